#!/bin/sh
# Entry point of the ledgerbench/verifier image (seed 000: the verifier runs in
# its own container, network none, 256 MB, half a CPU; hidden files are copied
# in only after the candidate exits).
#
# Contract with runner/sandbox/sealed_verifier.ts (the verifier runs as root with
# no capability but SETUID, SETGID and KILL, which it needs only to run
# candidate code as another user and to stop it). The paths are a
# container's; the runner names each in the environment (LEDGERBENCH_HIDDEN,
# LEDGERBENCH_ARTIFACT, LEDGERBENCH_SCRATCH, LEDGERBENCH_CHANNEL), so that the
# operator's --unsandboxed host runs this same driver on host directories,
# with the host's busybox (LEDGERBENCH_BUSYBOX) and a scratch directory of
# its own for /tmp (LEDGERBENCH_DRIVER_TMP):
#   /verifier   the task's hidden verifier files, a fresh owner-only copy:
#               setup.sh (optional), then verify.sh or verify.ts (required)
#   /workspace  the candidate's stored artifact, read-only; a link in it that
#               leaves the workspace points below /dev/null (never followed)
#   /tmp        the verifier's own scratch (owner-only tmpfs)
#   /scratch    scratch for candidate code (a tmpfs anyone may write)
#   /ledgerbench/channel
#               owner-only, the runner reads it after the exit: `verify.out`
#               (the verifier's stdout, whose last non-empty line must be the
#               JSON verdict {"resolved": true|false, "checks": [...]}) and
#               `stages` (one stage marker per line)
#   stdout, stderr
#               diagnostics only: never parsed for a verdict or a stage
#
# Candidate code is run only through $LEDGERBENCH_AS_CANDIDATE (as_candidate.sh),
# which runs it as user nobody, who can read none of the hidden files and
# write nothing the runner reads.
#
# In a task's own environment (issue 12) this image is mounted read-only at
# $LEDGERBENCH_KIT (/opt/ledgerbench/kit) and the driver runs from there: every
# tool it and as_candidate.sh use is the kit's busybox, Deno is the kit's
# (/opt/ledgerbench/deno finds its libraries beside it), and nothing of the
# environment's own programs runs except the verifier entry itself.
#
# The task's manifest may set (through the runner's environment):
#   LEDGERBENCH_VERIFIER_ENTRY  a path inside /verifier, executed directly (it
#               needs its execute bit and a #! line) instead of verify.sh/verify.ts
#   LEDGERBENCH_VERDICT=reward  Harbor's reward file: the entry writes
#               /logs/verifier/reward.txt (a number) or reward.json; the driver
#               copies the first 64 KiB of each into the channel after the
#               entry exits, whatever its exit code, and the runner reads them
#
# A failing setup.sh exits 97 and a missing entry exits 98: both are verifier
# faults (invalid evaluation), never a candidate failure.
KIT="${LEDGERBENCH_KIT:-}"
BB="${LEDGERBENCH_BUSYBOX:-$KIT/bin/busybox}"
HIDDEN="${LEDGERBENCH_HIDDEN:-/verifier}"
CHANNEL="${LEDGERBENCH_CHANNEL:-/ledgerbench/channel}"
stage() { echo "$*" >>"$CHANNEL/stages"; }
# Set and empty on the host, which has no way to run candidate code with fewer rights.
export LEDGERBENCH_AS_CANDIDATE="${LEDGERBENCH_AS_CANDIDATE-$KIT/opt/ledgerbench/verifier/as_candidate.sh}"
export LEDGERBENCH_CANDIDATE_SCRATCH="${LEDGERBENCH_SCRATCH:-/scratch}"
umask 077
# The engine gives /tmp the image's mode 1777; the verifier's scratch is its own.
"$BB" chmod 700 "${LEDGERBENCH_DRIVER_TMP:-/tmp}"

if [ -f "$HIDDEN/setup.sh" ]; then
  stage setup
  # Setup output goes to stderr (diagnostics).
  "$BB" sh "$HIDDEN/setup.sh" 1>&2 </dev/null
  code=$?
  if [ "$code" -ne 0 ]; then
    stage "setup-failed $code"
    exit 97
  fi
fi

if [ "${LEDGERBENCH_VERDICT:-line}" = reward ]; then
  "$BB" mkdir -p /logs/verifier
fi
entry="${LEDGERBENCH_VERIFIER_ENTRY:-}"
if [ -n "$entry" ]; then
  if [ ! -f "$HIDDEN/$entry" ]; then
    stage "missing-entry"
    echo "driver: the hidden files hold no entry \"$entry\"" >&2
    exit 98
  fi
  stage verify
  "$HIDDEN/$entry" </dev/null >"$CHANNEL/verify.out"
elif [ -f "$HIDDEN/verify.sh" ]; then
  stage verify
  "$BB" sh "$HIDDEN/verify.sh" </dev/null >"$CHANNEL/verify.out"
elif [ -f "$HIDDEN/verify.ts" ]; then
  stage verify
  "$BB" sh "$KIT/opt/ledgerbench/deno" run --quiet --no-config --no-remote --no-npm --no-lock \
    --allow-read --allow-write=/tmp,/scratch --allow-env --allow-run \
    "$HIDDEN/verify.ts" </dev/null >"$CHANNEL/verify.out"
else
  stage "missing-entry"
  echo "driver: the hidden files hold neither verify.sh nor verify.ts" >&2
  exit 98
fi
code=$?
stage "verify-exited $code"
if [ "${LEDGERBENCH_VERDICT:-line}" = reward ]; then
  for name in reward.txt reward.json; do
    if [ -f "/logs/verifier/$name" ]; then
      "$BB" head -c 65536 "/logs/verifier/$name" >"$CHANNEL/$name"
    fi
  done
  exit 0
fi
exit "$code"
