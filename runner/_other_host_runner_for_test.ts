/**
 * Test helper: a live runner of another host, for the tests of what a cluster's nodes
 * share (issue 24): a process in its own UTS, pid and mount namespaces
 * (`unshare --uts --pid --fork --mount-proc`, root only), with its own host
 * name and its own `/proc`, as a runner on another node sees them, that
 * makes its run directory in a shared `TMPDIR` (and, when given, a staging
 * entry in a shared artifact store) exactly as the runner does, then waits
 * until its stdin closes and removes them.
 *
 * @module
 */

/** The other host's runner. */
export interface OtherHostRunner {
  /** Its run directory in the shared temporary directory. */
  runDir: string;
  /** Its staging entry in the shared store, or null when no store was given. */
  staging: string | null;
  /** Ends it (closes its stdin) and waits for it. */
  stop(): Promise<void>;
}

const RUNNER = new URL("./", import.meta.url).href;

const SCRIPT = `
import { createRunTempDir } from "${RUNNER}run_temp_dir.ts";
const [base, store] = Deno.args;
const temp = await createRunTempDir(base);
await Deno.writeTextFile(\`\${temp.path}/expected.txt\`, "42\\n");
let staging = null;
if (store !== undefined) {
  const { stagingPath } = await import("${RUNNER}sandbox/store_staging.ts");
  staging = stagingPath(store);
  await Deno.mkdir(staging, { recursive: true });
}
console.log(JSON.stringify({ runDir: temp.path, staging }));
for await (const _ of Deno.stdin.readable) { /* until stdin closes */ }
if (staging !== null) await Deno.remove(staging);
await temp[Symbol.asyncDispose]();
`;

/**
 * Starts a runner of host `host` whose run directory goes under `base`.
 *
 * @param base the shared temporary directory
 * @param options the host name (default `node-b`) and a shared artifact store
 * @returns the running runner, once its directory is made
 */
export async function startOtherHostRunner(
  base: string,
  options: { host?: string; store?: string } = {},
): Promise<OtherHostRunner> {
  const child = new Deno.Command("unshare", {
    args: [
      "--uts",
      "--pid",
      "--fork",
      "--mount-proc",
      "sh",
      "-c",
      'hostname "$0" && exec "$1" eval --no-config "$2" "$3" $4',
      options.host ?? "node-b",
      Deno.execPath(),
      SCRIPT,
      base,
      options.store ?? "",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`The other host's runner ended early: ${line}`);
    line += value;
  }
  const made = JSON.parse(line) as { runDir: string; staging: string | null };
  return {
    ...made,
    stop: async () => {
      await child.stdin.close();
      await reader.cancel();
      await child.status;
    },
  };
}
