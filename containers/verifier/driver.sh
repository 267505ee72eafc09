#!/bin/sh
# Entry point of the ledgerbench/verifier image (seed 000: the verifier runs in
# its own container, network none, 256 MB, half a CPU; hidden files are copied
# in only after the candidate exits).
#
# Contract with runner/sandbox/run_verifier.ts:
#   /verifier   the task's hidden verifier files, a fresh read-only copy:
#               setup.sh (optional), then verify.sh or verify.ts (required)
#   /workspace  the candidate's stored artifact, read-only (copy it to /tmp to
#               modify it; /tmp is a small writable tmpfs)
#   stdout      the last non-empty line must be the JSON verdict
#               {"resolved": true|false, "checks": [...]}
#   stderr      stage markers "::ledgerbench-stage::<stage>" let the runner
#               tell a setup fault from a crash of the checks
#
# A failing setup.sh exits 97 and a missing entry exits 98: both are verifier
# faults (invalid evaluation), never a candidate failure.
stage() { echo "::ledgerbench-stage::$*" >&2; }

if [ -f /verifier/setup.sh ]; then
  stage setup
  # Setup output goes to stderr so that it can never be taken for the verdict.
  sh /verifier/setup.sh 1>&2 </dev/null
  code=$?
  if [ "$code" -ne 0 ]; then
    stage "setup-failed $code"
    exit 97
  fi
fi

if [ -f /verifier/verify.sh ]; then
  stage verify
  exec sh /verifier/verify.sh </dev/null
elif [ -f /verifier/verify.ts ]; then
  stage verify
  exec deno run --quiet --no-config --no-remote --no-npm --no-lock \
    --allow-read --allow-write=/tmp --allow-env --allow-run \
    /verifier/verify.ts </dev/null
fi
stage "missing-entry"
echo "driver: /verifier holds neither verify.sh nor verify.ts" >&2
exit 98
