#!/bin/sh
# The oracle: a known fix, run in the candidate's sandbox by `suite check`.
cat > /workspace/reverse.sh <<'SCRIPT'
#!/bin/sh
out=""
for word in "$@"; do out="$word${out:+ }$out"; done
echo "$out"
SCRIPT
