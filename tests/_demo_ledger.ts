/**
 * The demo ledger with its artifact store, for tests that read episode logs
 * (`show`, `view`): `LEDGERBENCH_VIEW_DEMO` when set, else `ledgers/demo/`
 * when its artifacts/ is there (the demo writes it; git does not keep it),
 * else a demo run into a temporary directory (needs Docker), once per test
 * process and removed when it ends. A fresh run's row order is its own: find episodes by id.
 *
 * @module
 */
import { cli, ROOT } from "./_cli_run.ts";

let demoRun: Promise<string> | undefined;

/**
 * The path of a demo ledger whose artifacts are present (module doc).
 *
 * @throws {Error} when the artifacts are absent and the demo cannot run
 */
export function demoLedger(): Promise<string> {
  return demoRun ??= (async () => {
    const named = Deno.env.get("LEDGERBENCH_VIEW_DEMO");
    if (named !== undefined) return named;
    const committed = `${ROOT}ledgers/demo`;
    if (await exists(`${committed}/artifacts/sha256`)) return `${committed}/ledger.jsonl`;
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench_view_demo_" });
    // Removed when the test process ends (the run is shared by every test in it).
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    const result = await cli(
      "demo",
      "--out",
      `${dir}/ledger`,
      "--work",
      `${dir}/work`,
      "--reports",
      `${dir}/reports`,
    );
    const ledger = `${dir}/ledger/ledger.jsonl`;
    if (result.code !== 0 || !(await exists(`${dir}/ledger/artifacts/sha256`))) {
      throw new Error(
        `The demo's artifacts are not in ledgers/demo/artifacts and the demo could not run ` +
          `(it needs a Docker engine: bash .ci/install_docker.sh): ${result.stderr.slice(-400)}`,
      );
    }
    return ledger;
  })();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
