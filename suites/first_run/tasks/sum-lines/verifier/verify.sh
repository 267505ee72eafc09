#!/bin/sh
# Runs in the verifier image once the candidate has exited (see greet's
# verify.sh). The candidate cannot read /verifier, so its input is copied into
# a directory only the verifier can write; the expected sum stays hidden here.
shared=$(mktemp -d /scratch/shared.XXXXXX) && chmod 755 "$shared"
cp /verifier/numbers.txt "$shared/" && chmod 644 "$shared/numbers.txt"
out=$("$LEDGERBENCH_AS_CANDIDATE" sh /workspace/sum.sh "$shared/numbers.txt")
if [ "$out" = "140" ]; then passed=true; else passed=false; fi
echo "{\"resolved\": $passed, \"checks\": [{\"name\": \"case_1\", \"passed\": $passed}]}"
