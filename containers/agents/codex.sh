#!/bin/sh
# agent-codex: the OpenAI Codex CLI (npm `@openai/codex`, the version and
# integrity pinned in containers/build_images.sh), run non-interactively on
# /workspace/TASK.md with every model call going through the ledgerbench relay.
#
# The recipe (containers/build_images.sh, "agent-codex"): on the host, npm
# fetches the pinned platform package `@openai/codex@<version>-linux-x64`
# into containers/.build (never from inside a container); its static musl
# binary `codex` and the `rg` it ships go to /usr/local/bin of an image
# derived from ledgerbench/base, with this script as /usr/local/bin/codex-agent,
# the image's command.
#
# Configuration, written to $CODEX_HOME/config.toml (default $HOME/.codex;
# HOME is /tmp, the sandbox's writable tmpfs) on every start:
# - a model provider `ledgerbench` with `base_url` = $OPENAI_BASE_URL (the
#   relay's forwarder), `wire_api = "responses"` (POST /v1/responses,
#   streamed: the only wire API current Codex speaks), `env_key =
#   "OPENAI_API_KEY"` (the sandbox's placeholder key; the relay holds the real
#   one), no OpenAI login, no websockets, and no retries (each retry would be
#   another metered call against the step cap; a provider fault is the
#   harness's to record, not the agent's to hide);
# - the model $LEDGERBENCH_MODEL (the one the relay is pinned to);
# - no hosted web search (the provider would fetch the web for an agent that
#   has no network), no analytics, no update check.
#
# Run: `codex exec --dangerously-bypass-approvals-and-sandbox` (the container
# is the sandbox: no network, read-only root, no capabilities, so Codex's own
# Landlock/seccomp sandbox and its approval prompts have nothing to add and
# cannot be set up without privileges), `--skip-git-repo-check` (the workspace
# is no git repository), `--ephemeral` (no session files), in /workspace, the
# prompt read from /workspace/TASK.md on stdin. Arguments given to this script
# (a plan's agent `command`, e.g. `["codex-agent", "-c",
# "model_reasoning_effort=\"low\""]`) are passed to `codex exec` before the
# prompt. Codex runs its shell tool's commands with the user's login shell,
# here busybox sh. Exit code: Codex's own (0 when the turn completed).
set -eu

: "${OPENAI_BASE_URL:?codex-agent: OPENAI_BASE_URL is not set}"
: "${LEDGERBENCH_MODEL:?codex-agent: LEDGERBENCH_MODEL is not set}"
CODEX_HOME="${CODEX_HOME:-$HOME/.codex}"
export CODEX_HOME
mkdir -p "$CODEX_HOME"
cat >"$CODEX_HOME/config.toml" <<EOF
model_provider = "ledgerbench"
web_search = "disabled"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.ledgerbench]
name = "ledgerbench relay"
base_url = "$OPENAI_BASE_URL"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
requires_openai_auth = false
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0
EOF

exec codex exec --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check --ephemeral \
  --color never --cd /workspace --model "$LEDGERBENCH_MODEL" "$@" - </workspace/TASK.md
