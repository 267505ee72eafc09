#!/usr/bin/env bash
# Make rootful Podman's Docker-compatible API service reachable on
# /run/podman/podman.sock, idempotently, with the images of the Docker engine
# copied in (issue 24: Podman as a node's engine).
#
# 1. apt-get install Debian's podman (4.3.1 on Debian 12) and runc (the
#    runtime Docker uses here) when missing, without the recommends (buildah,
#    slirp4netns, fuse-overlayfs, uidmap: rootless-only);
# 2. write /etc/containers/containers.conf.d/ledgerbench.conf: an /etc/hosts
#    without the host's entries (base_hosts_file = "none", as Docker's), and,
#    where this machine cannot raise its own limits (no CAP_SYS_RESOURCE, as
#    in some VMs and containers), Podman's default ulimits set to the current
#    hard limits (Podman otherwise asks runc for nofile and nproc 1048576,
#    which runc then fails to set: "error setting rlimit type 7"), the limits
#    Docker's containers inherit from dockerd;
# 3. keep Podman's storage driver (overlay) unless it does not work here,
#    then fall back to vfs in /etc/containers/storage.conf;
# 4. start `podman system service --time=0` in the background (no systemd
#    here) from /run/podman (conmon writes an "oom" file into its working
#    directory), unless it answers already; a stale socket is removed;
# 5. wait until it answers, or fail with a clear error;
# 6. copy every ledgerbench/* image of the Docker engine whose ID Podman
#    lacks (`docker save | podman load`: the image ID is the digest of the
#    image's config, which the copy keeps, so a plan frozen on Docker runs
#    unchanged on Podman), and check that the IDs match;
# 7. run one container with the sandbox's main flags as a smoke test.
#
# Environment: PODMAN_WAIT_SECONDS (default 60), PODMAN_LOG (default
# /var/log/ledgerbench-podman.log).
set -euo pipefail

SOCKET=/run/podman/podman.sock
RUN_DIR=/run/podman
PIDFILE="$RUN_DIR/ledgerbench-service.pid"
CONF=/etc/containers/containers.conf.d/ledgerbench.conf
WAIT_SECONDS="${PODMAN_WAIT_SECONDS:-60}"
LOG="${PODMAN_LOG:-/var/log/ledgerbench-podman.log}"

log() { echo "install_podman: $*" >&2; }
die() {
  echo "install_podman: error: $*" >&2
  exit 1
}
sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Bit 24 of the effective capabilities is CAP_SYS_RESOURCE.
can_raise_limits() {
  local eff
  eff="$(awk '/^CapEff:/ { print $2 }' /proc/self/status)"
  [ $(((16#$eff >> 24) & 1)) -eq 1 ]
}
conf="[containers]
base_hosts_file = \"none\""
# The smaller of a hard limit and its kernel ceiling (Podman lowers its own nproc
# to kernel.pid_max, and the containers' cannot be higher than the service's).
capped() { if [ "$1" = unlimited ] || [ "$1" -gt "$2" ]; then echo "$2"; else echo "$1"; fi; }
if ! can_raise_limits; then
  nofile="$(capped "$(ulimit -Hn)" "$(cat /proc/sys/fs/nr_open)")"
  nproc="$(capped "$(ulimit -Hu)" "$(cat /proc/sys/kernel/pid_max)")"
  conf="$conf
default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
fi
conf_changed=false
if [ "$(cat "$CONF" 2>/dev/null)" != "$conf" ]; then
  log "writing $CONF"
  sudo_if_needed mkdir -p "$(dirname "$CONF")"
  printf '%s\n' "$conf" | sudo_if_needed tee "$CONF" >/dev/null
  conf_changed=true
fi

if ! sudo_if_needed podman info >/dev/null 2>&1; then
  [ -e /etc/containers/storage.conf ] &&
    die "podman does not work here with /etc/containers/storage.conf: $(sudo_if_needed podman info 2>&1 | tail -n 1)"
  log "podman's default storage does not work here; using the vfs driver"
  printf '[storage]\ndriver = "vfs"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n' |
    sudo_if_needed tee /etc/containers/storage.conf >/dev/null
  sudo_if_needed podman info >/dev/null 2>&1 ||
    die "podman does not work here: $(sudo_if_needed podman info 2>&1 | tail -n 1)"
fi

service_answers() {
  sudo_if_needed podman --remote --url "unix://$SOCKET" version >/dev/null 2>&1
}
# The service is ours when the pid its pid file names runs `podman system service`.
service_alive() {
  [ -f "$PIDFILE" ] && tr '\0' ' ' <"/proc/$(cat "$PIDFILE")/cmdline" 2>/dev/null |
    grep -q "podman system service"
}

if $conf_changed && service_alive; then
  log "restarting the service for the new configuration"
  sudo_if_needed kill "$(cat "$PIDFILE")"
  for _ in $(seq 50); do service_alive || break; sleep 0.1; done
elif $conf_changed && service_answers; then
  log "warning: a service not started here answers on $SOCKET; restart it to apply $CONF"
fi
if ! service_answers && ! service_alive; then
  sudo_if_needed rm -f "$SOCKET" "$PIDFILE"
  sudo_if_needed mkdir -p "$RUN_DIR"
  log "starting podman system service (log: $LOG)"
  sudo_if_needed sh -c "cd '$RUN_DIR' && nohup podman system service --time=0 'unix://$SOCKET' \
    >>'$LOG' 2>&1 & echo \$! >'$PIDFILE'"
fi

deadline=$((SECONDS + WAIT_SECONDS))
until [ -S "$SOCKET" ] && service_answers; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "install_podman: error: Podman's service did not answer on \"$SOCKET\" within" \
      "${WAIT_SECONDS}s; see \"$LOG\"" >&2
    tail -n 20 "$LOG" >&2 2>/dev/null || true
    exit 1
  fi
  sleep 0.2
done
version="$(sudo_if_needed podman --remote --url "unix://$SOCKET" version --format '{{.Server.Version}}')"
log "Podman $version ready on $SOCKET"

if ! docker version >/dev/null 2>&1; then
  log "no Docker engine: no image copied (run .ci/install_docker.sh and containers/build_images.sh first)"
  exit 0
fi
podman_id() { sudo_if_needed podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
refs=()
while read -r ref id; do
  [ "$(podman_id "$ref")" = "${id#sha256:}" ] || refs+=("$ref")
done < <(docker images --filter 'reference=ledgerbench/*' --format '{{.Repository}}:{{.Tag}} {{.ID}}' --no-trunc)
if [ "${#refs[@]}" -gt 0 ]; then
  log "copying ${#refs[@]} image(s) from Docker"
  docker save "${refs[@]}" | sudo_if_needed podman load -q >/dev/null ||
    die "cannot copy the images into Podman (docker save | podman load)"
  for ref in "${refs[@]}"; do
    want="$(docker image inspect --format '{{.Id}}' "$ref")"
    [ "$(podman_id "$ref")" = "${want#sha256:}" ] ||
      die "image \"$ref\" has ID \"$(podman_id "$ref")\" in Podman, \"$want\" in Docker"
  done
fi
log "Podman holds the $(docker images --filter 'reference=ledgerbench/*' -q | sort -u | wc -l) ledgerbench image(s) of Docker, with the same IDs"
# Smoke test: a container with the sandbox's main flags starts (a limit or a
# storage driver that does not work here fails now, not in the tests).
if docker image inspect ledgerbench/base:latest >/dev/null 2>&1; then
  sudo_if_needed podman --remote --url "unix://$SOCKET" run --rm --network none --read-only \
    --cap-drop ALL --security-opt no-new-privileges ledgerbench/base:latest true ||
    die "Podman cannot run a sandboxed container; see \"$LOG\""
fi
