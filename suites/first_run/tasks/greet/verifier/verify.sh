#!/bin/sh
# Runs in the verifier image (busybox and Deno) once the candidate has exited:
# /workspace holds the candidate's files (read-only), /verifier these hidden
# ones. Candidate code runs only through "$LEDGERBENCH_AS_CANDIDATE" (as user
# nobody, unable to read /verifier). The last line printed is the verdict.
out=$("$LEDGERBENCH_AS_CANDIDATE" sh /workspace/greet.sh "Ada Lovelace")
if [ "$out" = "Hello, Ada Lovelace!" ]; then passed=true; else passed=false; fi
echo "{\"resolved\": $passed, \"checks\": [{\"name\": \"two_word_name\", \"passed\": $passed}]}"
