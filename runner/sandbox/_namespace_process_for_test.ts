/**
 * Test helper: a host process alone in a fresh network namespace, standing in
 * for a `--network none` container's init process (needs root and
 * util-linux's `unshare`).
 *
 * @module
 */
import assert from "node:assert/strict";

/**
 * Starts `unshare -n sh -c "<setup> && echo ready && exec sleep 120"` and
 * resolves once `setup` has run in the new namespace (e.g. `ip link set lo
 * up`, which is what `--network none` gives).
 *
 * @param setup a shell command run inside the namespace before it is used
 * @returns the process id and a `stop` that kills it and waits for it
 */
export async function processInNewNamespace(
  setup: string,
): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = new Deno.Command("unshare", {
    args: ["-n", "sh", "-c", `${setup} && echo ready && exec sleep 120`],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await reader.read()).value, "ready\n");
  return {
    pid: child.pid,
    stop: async () => {
      child.kill("SIGKILL");
      await child.status;
      await reader.cancel();
    },
  };
}
