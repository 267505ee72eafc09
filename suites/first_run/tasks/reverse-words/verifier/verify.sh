#!/bin/sh
# Runs in the verifier image once the candidate has exited (see greet's verify.sh).
passed=true
checks=""
# check NAME EXPECTED ARG...: runs reverse.sh as the candidate, compares what it prints.
check() {
  name=$1 expected=$2
  shift 2
  out=$("$LEDGERBENCH_AS_CANDIDATE" sh /workspace/reverse.sh "$@")
  if [ "$out" = "$expected" ]; then ok=true; else ok=false; passed=false; fi
  checks="$checks${checks:+, }{\"name\": \"$name\", \"passed\": $ok}"
}
check case_1 "c b a" a b c
check case_2 "stop the at here" here at the stop
echo "{\"resolved\": $passed, \"checks\": [$checks]}"
