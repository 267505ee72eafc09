/**
 * A stand-in for uv, for the tests that run Harbor's own tasks. Their
 * `test.sh` runs `curl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh`,
 * then `uvx --with pytest==… --with pytest-json-ctrf==… pytest --ctrf …`;
 * uv would then download a prebuilt Python (python-build-standalone, from
 * GitHub) and pytest (from PyPI), which these machines cannot reach. Here a
 * loopback HTTPS server answers as astral.sh, through the verifier's egress
 * proxy, with the installer and, in place of uv's prebuilt Python, a tar of
 * Debian's `python3` and `python3-pytest` as installed in the stand-in base.
 *
 * @module
 */
import { systemTempDir } from "./_test_ca.ts";
import { standInBase } from "./_stand_in_bases.ts";
import { withMachineLock } from "./_machine_lock.ts";

/** Where the stand-in's astral.sh serves the installer. */
const INSTALLER_PATH = "astral.sh/uv/0.9.7/install.sh";

/** Where the stand-in's astral.sh serves the Python that uvx unpacks. */
const PYTHON_PATH = "astral.sh/uv/0.9.7/python-pytest.tar";

/**
 * uv's installer as it stands in here: it installs a `uvx` that, unless
 * Python with pytest is there already, unpacks the Python of
 * {@linkcode PYTHON_PATH} at `/` (as uv unpacks the Python it downloads),
 * drops `--with` and pytest-json-ctrf's `--ctrf`, and runs the tool as a
 * Python module.
 */
const UV_INSTALLER = [
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
  `  curl -fsSL https://${PYTHON_PATH} | tar -x -C /`,
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

/**
 * Run as root in the Ubuntu stand-in (with the host's network, for the
 * machine's Debian mirror): installs `python3` and `python3-pytest` with
 * apt, then writes to stdout a tar of every path the packages it added
 * list (`dpkg -L`) and the byte code their installation compiled. Each
 * verifier then unpacks it in about 2 s, where the same apt install took
 * 19 s and 21 s of CPU.
 */
const PYTHON_TAR_SCRIPT = `set -e
export DEBIAN_FRONTEND=noninteractive
dpkg-query -W -f '\${Package}\\n' | sort >/tmp/before
apt-get update -qq >&2
apt-get install -y -qq python3 python3-pytest >&2
dpkg-query -W -f '\${Package}\\n' | sort >/tmp/after
comm -13 /tmp/before /tmp/after | xargs dpkg -L | grep '^/' >/tmp/listed
find /usr/lib/python3 /usr/lib/python3.* -path '*__pycache__*' >>/tmp/listed
while IFS= read -r path; do
  if [ -e "$path" ] || [ -L "$path" ]; then printf '%s\\n' "$path"; fi
done </tmp/listed | sort -u >/tmp/paths
tar --no-recursion -cf - -T /tmp/paths 2>/dev/null
`;

/**
 * The tar {@linkcode PYTHON_TAR_SCRIPT} writes, made once per Ubuntu
 * stand-in (about 30 s) and kept in the temp directory under that image's
 * ID; concurrent callers, in this process or others, are serialized by a
 * lock file, and the one that waited reads what the first wrote.
 */
async function standInPython(): Promise<Uint8Array> {
  const ubuntu = await standInBase();
  const file = `${systemTempDir()}/ledgerbench-stand-in-python-${ubuntu.slice(7, 23)}.tar`;
  return await withMachineLock("ledgerbench-stand-in-python", async () => {
    const kept = await Deno.readFile(file).catch(() => null);
    if (kept !== null) return kept;
    const made = await new Deno.Command("docker", {
      args: ["run", "--rm", "--network", "host", ubuntu, "bash", "-c", PYTHON_TAR_SCRIPT],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!made.success || made.stdout.length === 0) {
      throw new Error(
        `Cannot make the stand-in's Python with pytest (exit ${made.code}): ` +
          new TextDecoder().decode(made.stderr).trim().slice(-2000),
      );
    }
    await Deno.writeFile(`${file}.tmp`, made.stdout);
    await Deno.rename(`${file}.tmp`, file);
    return made.stdout;
  });
}

/**
 * The files the stand-in's astral.sh serves (for `startPackageServer`):
 * uv's installer and the Python with pytest its `uvx` unpacks.
 *
 * @returns the package server's files by `"host/path"`
 */
export async function uvStandInFiles(): Promise<Record<string, Uint8Array | string>> {
  return { [INSTALLER_PATH]: UV_INSTALLER, [PYTHON_PATH]: await standInPython() };
}
