#!/bin/sh
# as_candidate.sh CMD [ARG...]: runs candidate code (a script from the
# artifact, a program the candidate built) on behalf of a verifier, without
# the verifier's rights (issue 7, item 1: candidate code run by b1, b2 and b3
# read /verifier/* and forged its verdict).
#
# - CMD runs as the unprivileged user nobody (uid 65534), who cannot read the
#   hidden files (/verifier is owner-only), write the verdict channel
#   (/ledgerbench/channel is owner-only), open the verifier's own descriptors
#   (/proc/<pid>/fd of another user) or signal its processes. Its working
#   directory is the caller's; HOME and TMPDIR are /scratch, the only place it
#   can write (a tmpfs of its own, so it cannot fill the verifier's /tmp).
# - stdin is /dev/null, stderr is discarded, descriptors 3-9 are closed;
#   stdout is read through a pipe and passed on, at most
#   LEDGERBENCH_CANDIDATE_OUTPUT_BYTES (default 1048576) bytes of it, only
#   after every process of the candidate user is gone.
# - It is killed after LEDGERBENCH_CANDIDATE_TIMEOUT_S seconds (default 10),
#   and then every process the candidate user left behind (background loops,
#   daemons) is killed, so nothing of it outlives this call.
#
# Exit status: CMD's (137 when the timeout killed it). Reading a file the
# candidate wrote through this tool (`as_candidate.sh cat FILE`) reads it with
# the candidate's rights: a link it planted to a hidden file gives nothing.
#
# In a task's own environment every tool here is the kit's busybox (see
# driver.sh, LEDGERBENCH_KIT); the candidate code itself runs with the
# environment's programs.
set -u
KIT="${LEDGERBENCH_KIT:-}"
BB="$KIT/bin/busybox"
limit_s="${LEDGERBENCH_CANDIDATE_TIMEOUT_S:-10}"
max_bytes="${LEDGERBENCH_CANDIDATE_OUTPUT_BYTES:-1048576}"
status_file="$("$BB" mktemp /tmp/as-candidate-status.XXXXXX)"
output_file="$("$BB" mktemp /tmp/as-candidate-output.XXXXXX)"
{
  # Options before `--`: su would take the candidate command's own options as its.
  "$BB" timeout -s KILL "$limit_s" "$BB" su -s "$KIT/bin/sh" -c 'HOME=/scratch TMPDIR=/scratch exec "$0" "$@"' \
    -- nobody "$@" \
    </dev/null 2>/dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
  echo "$?" >"$status_file"
  # Kill what the candidate user left behind; retry while the pids limit refuses the fork.
  until "$BB" su -s "$KIT/bin/sh" -c 'kill -9 -1 2>/dev/null; exit 0' -- nobody </dev/null >/dev/null 2>&1; do :; done
} | "$BB" head -c "$max_bytes" >"$output_file"
"$BB" cat "$output_file"
status="$("$BB" cat "$status_file")"
"$BB" rm -f "$status_file" "$output_file"
exit "${status:-1}"
