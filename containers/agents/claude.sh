#!/bin/sh
# agent-claude: Claude Code (npm `@anthropic-ai/claude-code`, its native
# linux-x64 binary; the version and integrity pinned in
# containers/build_images.sh), run headless on /workspace/TASK.md with every
# model call going through the ledgerbench relay.
#
# The recipe (containers/build_images.sh, "agent-claude"): on the host, npm
# fetches the pinned platform package `@anthropic-ai/claude-code-linux-x64`
# (one of the `optionalDependencies` of `@anthropic-ai/claude-code`) into
# containers/.build (never from inside a container); its binary `claude`
# (Bun, linked against glibc, whose files the base image holds for Deno) goes
# to /usr/local/bin of an image derived from ledgerbench/base, with this
# script as /usr/local/bin/claude-agent, the image's command, and the host's
# bash as /bin/bash with the libraries it needs beyond the base image's
# (libtinfo): Claude Code runs its Bash tool only with bash or zsh, and its
# shell snapshot is bash syntax that busybox sh rejects.
#
# Environment (over the sandbox's ANTHROPIC_BASE_URL, the relay's forwarder,
# and ANTHROPIC_API_KEY, its placeholder key; the relay holds the real one):
# - IS_SANDBOX=1: Claude Code refuses --dangerously-skip-permissions as root
#   (the sandbox runs as the runner's uid, root) unless told it is sandboxed;
# - CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, DISABLE_AUTOUPDATER=1,
#   DISABLE_TELEMETRY=1, DISABLE_ERROR_REPORTING=1: no telemetry, error
#   reports, update checks or other calls besides the model's (the sandbox
#   has no network; the relay refuses and counts whatever else is tried);
# - CLAUDE_CODE_MAX_RETRIES=0: no retries (each would be another metered
#   call; a provider fault is the harness's to record, not the agent's to
#   hide);
# - the model: --model "$LEDGERBENCH_MODEL", and the same model for every
#   role Claude Code would give another one (ANTHROPIC_SMALL_FAST_MODEL,
#   ANTHROPIC_DEFAULT_{HAIKU,SONNET,OPUS}_MODEL, CLAUDE_CODE_SUBAGENT_MODEL),
#   since the relay serves only the plan's model;
# - HOME=/tmp (the sandbox's writable tmpfs): Claude Code's config goes to
#   $HOME/.claude and $HOME/.claude.json; --no-session-persistence keeps no
#   transcript.
#
# Run: `claude -p` (print mode: one headless run, no trust dialog) with
# `--dangerously-skip-permissions` (the container is the sandbox: no network,
# read-only root, no capabilities), `--output-format text`, the prompt read
# from /workspace/TASK.md on stdin, in /workspace. Arguments given to this
# script (a plan's agent `command`, e.g. `["claude-agent", "--effort",
# "low"]`) are passed to `claude` before the prompt. Exit code: Claude Code's
# own (0 when the turn completed).
#
# As a bundle in a task's own environment (mounted at /opt/ledgerbench/agent,
# run by the image's ledgerbench.bundle-command label), the binary is started
# through the bundle's own glibc loader and libraries
# (/opt/ledgerbench/with-loader, containers/agents/_with_loader.sh), since the
# task's image may have another glibc or none; so is the bundle's bash
# (/opt/ledgerbench/shell/bash) when the task's image has no bash of its own.
set -eu

: "${ANTHROPIC_BASE_URL:?claude-agent: ANTHROPIC_BASE_URL is not set}"
: "${LEDGERBENCH_MODEL:?claude-agent: LEDGERBENCH_MODEL is not set}"
export HOME="${HOME:-/tmp}"
export IS_SANDBOX=1
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
export DISABLE_AUTOUPDATER=1
export DISABLE_TELEMETRY=1
export DISABLE_ERROR_REPORTING=1
export CLAUDE_CODE_MAX_RETRIES=0
export ANTHROPIC_SMALL_FAST_MODEL="$LEDGERBENCH_MODEL"
export ANTHROPIC_DEFAULT_HAIKU_MODEL="$LEDGERBENCH_MODEL"
export ANTHROPIC_DEFAULT_SONNET_MODEL="$LEDGERBENCH_MODEL"
export ANTHROPIC_DEFAULT_OPUS_MODEL="$LEDGERBENCH_MODEL"
export CLAUDE_CODE_SUBAGENT_MODEL="$LEDGERBENCH_MODEL"

# The root this script sits in: "" in its own image, the bundle's mount point
# inside a task's environment.
root="${0%/usr/local/bin/claude-agent}"
[ "$root" != "$0" ] || root=""
cd /workspace
if [ -z "$root" ]; then
  exec /usr/local/bin/claude -p --model "$LEDGERBENCH_MODEL" --dangerously-skip-permissions \
    --output-format text --no-session-persistence "$@" </workspace/TASK.md
fi
# The bundle's bash (through the bundle's loader) when the environment has
# none in the places Claude Code looks.
if ! [ -x /bin/bash ] && ! [ -x /usr/bin/bash ] && ! [ -x /usr/local/bin/bash ]; then
  export CLAUDE_CODE_SHELL="$root/opt/ledgerbench/shell/bash"
fi
exec "$root/bin/sh" "$root/opt/ledgerbench/with-loader" /usr/local/bin/claude -p \
  --model "$LEDGERBENCH_MODEL" --dangerously-skip-permissions --output-format text \
  --no-session-persistence "$@" </workspace/TASK.md
