#!/usr/bin/env bash
# Make a local image registry answer on 127.0.0.1:5000, idempotently (the
# prebuilt-image tests push a stand-in image to it and `freeze` pulls it from
# there: these machines reach no public registry).
#
# 1. apt-get install Debian 12's docker-registry (the CNCF Distribution
#    registry, 2.8) when it is missing;
# 2. write its configuration: loopback only, no authentication, storage under
#    /var/lib/ledgerbench-registry (the package's own configuration asks for
#    htpasswd authentication and listens on every address);
# 3. start it in the background (no systemd here; pid file under /run, log
#    under /var/log) unless it still runs;
# 4. wait until `GET /v2/` answers, or fail with a clear error.
#
# Docker treats a registry on 127.0.0.0/8 as insecure by default, so the
# engine pulls from it over plain HTTP with no daemon setting.
#
# Environment: REGISTRY_WAIT_SECONDS (default 30).
set -euo pipefail

WAIT_SECONDS="${REGISTRY_WAIT_SECONDS:-30}"
ADDRESS=127.0.0.1:5000
CONF=/etc/ledgerbench/registry.yml
PIDFILE=/run/ledgerbench-registry.pid
LOG=/var/log/ledgerbench-registry.log

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v docker-registry >/dev/null 2>&1; then
  echo "install_registry: installing docker-registry" >&2
  export DEBIAN_FRONTEND=noninteractive
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq docker-registry >/dev/null
fi

sudo_if_needed mkdir -p "$(dirname "$CONF")" /var/lib/ledgerbench-registry
sudo_if_needed tee "$CONF" >/dev/null <<CONFIG
version: 0.1
storage:
  filesystem:
    rootdirectory: /var/lib/ledgerbench-registry
  delete:
    enabled: true
http:
  addr: $ADDRESS
CONFIG

answers() {
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$ADDRESS/v2/")" = 200 ]
}

alive() {
  [ -f "$PIDFILE" ] && [ "$(cat "/proc/$(cat "$PIDFILE")/comm" 2>/dev/null)" = docker-registry ]
}

if ! answers && ! alive; then
  echo "install_registry: starting docker-registry on $ADDRESS (log: $LOG)" >&2
  sudo_if_needed sh -c "nohup docker-registry serve '$CONF' >>'$LOG' 2>&1 & echo \$! > '$PIDFILE'"
fi

deadline=$((SECONDS + WAIT_SECONDS))
until answers; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "install_registry: error: no registry answers on http://$ADDRESS/v2/ after" \
      "${WAIT_SECONDS} s (log: $LOG)" >&2
    exit 1
  fi
  sleep 0.5
done
echo "install_registry: registry ready on $ADDRESS" >&2
