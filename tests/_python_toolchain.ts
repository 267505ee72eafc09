/**
 * Test helper: the offline Python toolchain image the task-environment tests
 * build on (tests/fixtures/toolchain/build_python_base.sh: the host's Python
 * over busybox, loaded with `docker import`; nothing is pulled).
 *
 * @module
 */

/**
 * Builds (or reuses) the Python toolchain image.
 *
 * @returns its reference, `ledgerbench-test/python:<tag>`
 * @throws {Error} when the script fails (its stderr in the message)
 */
export async function buildPythonBase(): Promise<string> {
  const script = new URL("./fixtures/toolchain/build_python_base.sh", import.meta.url).pathname;
  const out = await new Deno.Command("bash", { args: [script], stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`build_python_base.sh failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}
