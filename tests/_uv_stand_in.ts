/**
 * A stand-in for uv's installer, for the tests that run Harbor's own tasks.
 *
 * @module
 */

/**
 * uv's installer as it stands in here (Harbor's tasks run `curl -LsSf
 * https://astral.sh/uv/0.9.7/install.sh | sh`, then `uvx --with pytest==…
 * --with pytest-json-ctrf==… pytest --ctrf …`; uv would take Python and
 * pytest from GitHub and PyPI, which these machines cannot reach): it
 * installs a `uvx` that takes Python and pytest from Debian's packages,
 * dropping `--with` and pytest-json-ctrf's `--ctrf`. Served by a loopback
 * HTTPS server as astral.sh, through the verifier's egress proxy.
 */
export const UV_INSTALLER = [
  "#!/bin/sh",
  "# ledgerbench's stand-in for uv's installer (tests only; see tests/_uv_stand_in.ts)",
  "set -e",
  'mkdir -p "$HOME/.local/bin"',
  "cat > \"$HOME/.local/bin/uvx\" <<'UVX'",
  "#!/bin/sh",
  "set -e",
  "while [ $# -gt 0 ]; do",
  '  case "$1" in --with) shift 2 ;; --with=*) shift ;; *) break ;; esac',
  "done",
  'tool="$1"; shift',
  'if ! python3 -c "import pytest" 2>/dev/null; then',
  "  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pytest >&2",
  "fi",
  "n=$#; i=0",
  'while [ "$i" -lt "$n" ]; do',
  '  a="$1"; shift; i=$((i + 1))',
  '  if [ "$a" = --ctrf ]; then shift; i=$((i + 1)); continue; fi',
  '  set -- "$@" "$a"',
  "done",
  'exec python3 -m "$tool" "$@"',
  "UVX",
  'chmod +x "$HOME/.local/bin/uvx"',
  'printf \'export PATH="$HOME/.local/bin:$PATH"\\n\' > "$HOME/.local/bin/env"',
  "",
].join("\n");
