#!/bin/sh
# Runs in the verifier image (busybox and Deno) once the candidate has exited:
# /workspace holds the candidate's files (read-only), /verifier these hidden
# ones. Candidate code runs only through "$LEDGERBENCH_AS_CANDIDATE" (as user
# nobody, unable to read /verifier). The last line printed is the verdict.
passed=true
checks=""
# check NAME EXPECTED ARG...: runs greet.sh as the candidate, compares what it prints.
check() {
  name=$1 expected=$2
  shift 2
  out=$("$LEDGERBENCH_AS_CANDIDATE" sh /workspace/greet.sh "$@")
  if [ "$out" = "$expected" ]; then ok=true; else ok=false; passed=false; fi
  checks="$checks${checks:+, }{\"name\": \"$name\", \"passed\": $ok}"
}
check case_1 "Hello, Grace!" Grace
check case_2 "Hello, Ada Lovelace!" "Ada Lovelace"
echo "{\"resolved\": $passed, \"checks\": [$checks]}"
