#!/usr/bin/env bash
# Make a Docker engine reachable on /var/run/docker.sock, idempotently.
#
# 1. apt-get install docker.io and busybox-static when either is missing
#    (busybox-static is the userland of the offline images, see
#    containers/build_images.sh);
# 2. start dockerd in the background unless an engine answers or a dockerd
#    still runs (`dockerd --iptables=false --bridge=none`: the sandboxes run
#    with `--network none`, so no bridge or NAT rules are needed); a stale
#    socket or pid file left by an engine that no longer runs is removed;
# 3. wait until the engine answers on the socket, or fail with a clear error.
#
# Environment: DOCKER_WAIT_SECONDS (default 600: an engine that restarts after
# an unclean stop first removes every stale network sandbox, about 0.1 s
# each), DOCKERD_LOG (default /var/log/ledgerbench-dockerd.log).
set -euo pipefail

SOCKET=/var/run/docker.sock
PIDFILE=/var/run/docker.pid
WAIT_SECONDS="${DOCKER_WAIT_SECONDS:-600}"
LOG="${DOCKERD_LOG:-/var/log/ledgerbench-dockerd.log}"

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
# The images need a static busybox (the dynamic "busybox" package will not do).
if ! [ -x /usr/bin/busybox ] || ldd /usr/bin/busybox >/dev/null 2>&1; then
  missing+=(busybox-static)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install_docker: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq "${missing[@]}" >/dev/null
fi

engine_answers() {
  docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

# A dockerd is alive when the pid its pid file names is a running dockerd
# (a pid file copied from another boot may name an unrelated process).
dockerd_alive() {
  [ -f "$PIDFILE" ] && [ "$(cat "/proc/$(cat "$PIDFILE")/comm" 2>/dev/null)" = dockerd ]
}

if ! engine_answers && ! dockerd_alive; then
  # A machine image can keep the socket and pid file of an engine that no
  # longer runs; a socket alone says nothing about a live engine, so stale
  # files are removed before the start.
  sudo_if_needed rm -f "$SOCKET" "$PIDFILE"
  echo "install_docker: starting dockerd (log: $LOG)" >&2
  sudo_if_needed sh -c "nohup dockerd --iptables=false --bridge=none >>'$LOG' 2>&1 &"
fi

deadline=$((SECONDS + WAIT_SECONDS))
until [ -S "$SOCKET" ] && engine_answers; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "install_docker: error: the Docker engine did not answer on \"$SOCKET\" within" \
      "${WAIT_SECONDS}s; see \"$LOG\"" >&2
    tail -n 20 "$LOG" >&2 2>/dev/null || true
    exit 1
  fi
  sleep 0.5
done
echo "install_docker: engine $(docker version --format '{{.Server.Version}}') ready on $SOCKET" >&2
