#!/bin/sh
# agent-opencode: opencode (npm `opencode-ai`, its linux-x64 platform
# package's native binary, a Bun executable linked against glibc; the
# version and integrity pinned in containers/build_images.sh), run headless
# on /workspace/TASK.md with every model call going through the ledgerbench
# relay as Chat Completions.
#
# The recipe (containers/build_images.sh, "agent-opencode"): on the host, npm
# fetches `opencode-linux-x64` (one of the `optionalDependencies` of
# `opencode-ai`, a 3 kB shim); its `opencode` goes to /usr/local/bin beside
# Codex's static `rg` (opencode's grep and glob tools run `rg`, and without
# one download it from github.com), with this script as
# /usr/local/bin/opencode-agent, the image's command.
#
# Configuration, inline (OPENCODE_CONFIG_CONTENT): one provider `relay` on the
# `@ai-sdk/openai-compatible` provider built into the binary (nothing is
# installed at run time), `baseURL` $OPENAI_BASE_URL (the relay's forwarder)
# and `apiKey` $OPENAI_API_KEY (its placeholder; the relay holds the real
# key), the plan's model $LEDGERBENCH_MODEL as `model` and `small_model` (the
# relay serves only it), auto-update and sharing off, and the `webfetch` tool
# denied (it fetches URLs itself, outside the relay). Environment:
# OPENCODE_DISABLE_MODELS_FETCH=1 (else it fetches models.opencode.ai/api.json
# at start and hourly), the other OPENCODE_DISABLE_* switches for auto-update,
# default plugins, LSP downloads, sharing and external skills, and HOME=/tmp
# with opencode's global config directory seeded (a package.json and a
# package-lock.json naming its plugin, and an empty node_modules) so that its
# background `npm install @opencode-ai/plugin` finds nothing to do (else it
# reaches registry.npmjs.org on every start).
#
# Run: `opencode run --auto --title task` in /workspace with TASK.md on stdin
# (`--auto` approves what would be asked; `--title` spares a title-generation
# model call). Arguments given to this script (a plan's agent `command`) are
# passed to `opencode run` first. Every turn is one streamed
# `POST /v1/chat/completions` with `stream_options.include_usage` and
# `max_tokens` 32000; its shell tool runs busybox `sh`. opencode retries a
# call that failed with 408, 409, 429 or 5xx (or whose error names a server
# error or a rate limit) up to 5 times, with no setting to turn it off: each
# retry is another metered call, the agent's own choice. Exit code:
# opencode's own (0 when the turn completed, 1 on a model error).
#
# As a bundle in a task's own environment (mounted at /opt/ledgerbench/agent),
# the binary is started through the bundle's own glibc loader and libraries
# (/opt/ledgerbench/with-loader, containers/agents/_with_loader.sh), and the
# bundle's `rg` is in PATH.
set -eu

: "${OPENAI_BASE_URL:?opencode-agent: OPENAI_BASE_URL is not set}"
: "${OPENAI_API_KEY:?opencode-agent: OPENAI_API_KEY is not set}"
: "${LEDGERBENCH_MODEL:?opencode-agent: LEDGERBENCH_MODEL is not set}"
export HOME="${HOME:-/tmp}"

# A JSON string of $1 (backslashes and quotes escaped; the values are the
# runner's, but a model name is the plan author's text).
json() {
  printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"
}

config="$HOME/.config/opencode"
mkdir -p "$config/node_modules"
printf '{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}\n' >"$config/package.json"
printf '{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}}}\n' \
  >"$config/package-lock.json"
model="$(json "$LEDGERBENCH_MODEL")"
OPENCODE_CONFIG_CONTENT="{\"provider\": {\"relay\": {\"npm\": \"@ai-sdk/openai-compatible\",
  \"name\": \"relay\", \"options\": {\"baseURL\": $(json "$OPENAI_BASE_URL"),
  \"apiKey\": $(json "$OPENAI_API_KEY")}, \"models\": {$model: {\"name\": $model,
  \"tool_call\": true}}}}, \"model\": $(json "relay/$LEDGERBENCH_MODEL"),
  \"small_model\": $(json "relay/$LEDGERBENCH_MODEL"), \"autoupdate\": false,
  \"share\": \"disabled\", \"permission\": {\"webfetch\": \"deny\"}}"
export OPENCODE_CONFIG_CONTENT
export OPENCODE_DISABLE_MODELS_FETCH=1
export OPENCODE_DISABLE_AUTOUPDATE=1
export OPENCODE_DISABLE_DEFAULT_PLUGINS=1
export OPENCODE_DISABLE_LSP_DOWNLOAD=1
export OPENCODE_DISABLE_SHARE=1
export OPENCODE_DISABLE_EXTERNAL_SKILLS=1

# The root this script sits in: "" in its own image, the bundle's mount point
# inside a task's environment.
root="${0%/usr/local/bin/opencode-agent}"
[ "$root" != "$0" ] || root=""
cd /workspace
if [ -z "$root" ]; then
  exec /usr/local/bin/opencode run --auto --title task "$@" </workspace/TASK.md
fi
exec "$root/bin/sh" "$root/opt/ledgerbench/with-loader" /usr/local/bin/opencode run \
  --auto --title task "$@" </workspace/TASK.md
