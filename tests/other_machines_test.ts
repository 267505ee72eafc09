/**
 * What broke on other machines (issue 24, "First, what breaks on other
 * machines today"), through the real CLI on the real engine:
 * - a long `TMPDIR` (the issue's 31 characters, and 90 as a Slurm job's)
 *   gives scored rows, not `harness_error` ("socket path ... is 110 bytes,
 *   over the 107-byte limit");
 * - a `run --resume` while a run is live, on its ledger (refused) and on
 *   another ledger of the same run id, with a live runner of another host
 *   sharing the `TMPDIR` and the artifact store: the live run's containers,
 *   rows and directories, and the other host's, are untouched;
 * - a full file system (a tmpfs the test mounts) names `ENOSPC` and what
 *   filled, in the row's notes and on the console: the artifact store, the
 *   runner's temporary directory, the ledger.
 * (The kill points that left a `.staging-*` directory: the kill-and-resume
 * property test and `runner/sandbox/artifact_store_test.ts`.)
 *
 * Skipped when no engine answers; the tests that mount or make namespaces
 * need root.
 *
 * @module
 */
import { deepEqual, doesNotMatch, equal, match, ok } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { startOtherHostRunner } from "../runner/_other_host_runner_for_test.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cliCommand } from "./_cli_run.ts";
import { containersOf, freezeMiniPlan, miniRunArgs } from "./_mini_plan.ts";

const ENGINE = await requireDockerEngine("tests/other_machines_test.ts");
const SEED = "0e4e0e4e".repeat(8);
const isRoot = Deno.uid() === 0;
const decoder = new TextDecoder();

/** A one-agent mini plan in `dir` whose provider answers after `delayMs`; the run's argv. */
async function fixture(dir: string, runId: string, delayMs = 0) {
  const suite = await freezeMiniPlan(dir, {
    seed: SEED,
    runId,
    freezeArgs: ["--order-seed", "7", "--agent", "a=ledgerbench/agent-solver:latest"],
  });
  const script = await suiteProviderScript(suite, { model: "m-a" });
  for (const rule of script.rules ?? []) rule.reply.delay_ms = delayMs;
  await Deno.writeTextFile(`${dir}/a.json`, JSON.stringify(script));
  const args = (ledger: string, ...rest: string[]) =>
    miniRunArgs(dir, ledger, ["--provider-script", `a=${dir}/a.json`, ...rest]);
  return { args, tasks: suite.manifest.tasks.length };
}

/** Runs the CLI to its end with `TMPDIR` set; code, stdout, stderr and its pid. */
async function run(args: readonly string[], tmp?: string) {
  const child = cliCommand(args, tmp === undefined ? {} : { env: { TMPDIR: tmp } }).spawn();
  const out = await child.output();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
    pid: child.pid,
  };
}

/** The rows of a ledger, read strictly (schema, duplicates, hash chain). */
async function rowsOf(ledger: string) {
  return (await loadLedger(ledger, { allowEmpty: true })).rows;
}

/** The socket directories under /tmp of a runner process (runner_socket_path.ts). */
function socketDirsOf(pid: number): string[] {
  return [...Deno.readDirSync("/tmp")].map((entry) => entry.name)
    .filter((name) => name.startsWith(`ledgerbench-sockets-${pid}-`));
}

async function cleanUp(paths: string[], runId: string): Promise<void> {
  for (const id of containersOf(runId)) {
    new Deno.Command("docker", { args: ["rm", "-f", id], stdout: "null", stderr: "null" })
      .outputSync();
  }
  for (const path of paths) {
    await new Deno.Command("umount", { args: ["--lazy", path], stderr: "null" }).output();
  }
  for (const path of paths) {
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", path], stderr: "null" }).output();
    await Deno.remove(path, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "run: a TMPDIR of 31 and of 90 characters gives scored rows, its sockets elsewhere",
  ignore: !ENGINE.available,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-tmpdir-" });
    const runId = `tmpdir-${crypto.randomUUID().slice(0, 8)}`;
    try {
      const { args, tasks } = await fixture(dir, runId);
      // As long as the issue's TMPDIR ("/tmp/crashw2/t6/sigint_once/tmp", 31 characters),
      // and as a Slurm job's: 90.
      const issue = `${dir}/t`.padEnd(31, "t");
      const slurm = `${dir}/job-8812345/`.padEnd(90, "t");
      for (const [i, tmp] of [issue, slurm].entries()) {
        await Deno.mkdir(tmp, { recursive: true });
        const ledger = `${dir}/ledger-${i}.jsonl`;
        const out = await run(args(ledger), tmp);
        equal(out.code, 0, out.stderr);
        const rows = await rowsOf(ledger);
        equal(rows.length, tasks);
        deepEqual(rows.filter((row) => row.status !== "scored").map((row) => row.notes), []);
        // Its run directory and its socket directory went with it.
        deepEqual([...Deno.readDirSync(tmp)], []);
        deepEqual(socketDirsOf(out.pid), []);
      }
    } finally {
      await cleanUp([dir], runId);
    }
  },
});

Deno.test({
  name:
    "run --resume while a run is live: refused on its ledger; on another ledger of the run id, " +
    "it touches neither the live run nor another host's runner sharing TMPDIR and artifacts",
  ignore: !ENGINE.available || !isRoot,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-live-" });
    const tmp = await Deno.makeTempDir({ prefix: "ledgerbench-shared-tmp-" });
    const runId = `live-${crypto.randomUUID().slice(0, 8)}`;
    let other: Awaited<ReturnType<typeof startOtherHostRunner>> | null = null;
    try {
      // Each answer comes after 4 s: the first run's candidate is live meanwhile.
      const { args, tasks } = await fixture(dir, runId, 4_000);
      const artifacts = `${dir}/artifacts`;
      await Deno.mkdir(artifacts);
      other = await startOtherHostRunner(tmp, { host: "node-b", store: artifacts });
      const ledger = `${dir}/ledger.jsonl`;
      const first = cliCommand(args(ledger), { env: { TMPDIR: tmp } }).spawn();
      const firstOut = first.output();
      const deadline = Date.now() + 60_000;
      while (containersOf(runId).length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const live = containersOf(runId);
      equal(live.length, 1, "the first run's candidate never started");
      const [same, another] = await Promise.all([
        run([...args(ledger), "--resume"], tmp),
        run([...args(`${dir}/other.jsonl`), "--resume"], tmp),
      ]);
      equal(same.code, 3, same.stderr);
      match(same.stderr, /another runner holds its lock/);
      equal(another.code, 0, another.stderr);
      equal((await rowsOf(`${dir}/other.jsonl`)).length, tasks);
      doesNotMatch(another.stderr, /removed \d+ (temporary director|container)/);

      const out = await firstOut;
      equal(out.code, 0, decoder.decode(out.stderr));
      doesNotMatch(decoder.decode(out.stderr), /removed \d+ (temporary director|container)/);
      const rows = await rowsOf(ledger);
      equal(rows.length, tasks);
      deepEqual(rows.filter((row) => row.status !== "scored").map((row) => row.notes), []);
      // The other host's run directory and staging are as it left them.
      equal(await Deno.readTextFile(`${other.runDir}/expected.txt`), "42\n");
      ok((await Deno.stat(other.staging!)).isDirectory);
    } finally {
      await other?.stop();
      await cleanUp([dir, tmp], runId);
    }
  },
});

Deno.test({
  name:
    "run: a full artifact store, temporary directory or ledger names ENOSPC and what filled, in the row and on the console",
  ignore: !ENGINE.available || !isRoot,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-full-" });
    const small = `${dir}/small`;
    const runId = `full-${crypto.randomUUID().slice(0, 8)}`;
    try {
      const { args } = await fixture(dir, runId);
      await Deno.mkdir(small);
      // One page: the first file written there fills it.
      const mount = async () => {
        const out = await new Deno.Command("mount", {
          args: ["-t", "tmpfs", "-o", "size=4k", "ledgerbench-test-full", small],
        }).output();
        equal(out.code, 0);
      };
      const unmount = () => new Deno.Command("umount", { args: ["--lazy", small] }).output();
      const cases = [
        {
          place: `the artifact store "${small}"`,
          args: args(`${dir}/ledger-a.jsonl`, "--artifacts", small),
          ledger: `${dir}/ledger-a.jsonl`,
        },
        {
          place: `the runner's temporary directory "${small}/ledgerbench-run-`,
          args: args(`${dir}/ledger-t.jsonl`),
          ledger: `${dir}/ledger-t.jsonl`,
          tmp: small,
        },
      ];
      for (const full of cases) {
        await mount();
        try {
          const out = await run(full.args, full.tmp);
          equal(out.code, 3, out.stderr);
          const cause = `No space left on device (ENOSPC) in ${full.place}`;
          const [row] = await rowsOf(full.ledger);
          equal(row.invalid_reason, "harness_error", row.notes);
          ok(row.notes.includes(cause), row.notes);
          // The console's line of the row says it, within its cut of the cause.
          const line = out.stderr.split("\n").find((text) => text.includes("harness error"));
          ok(line?.includes(cause), out.stderr);
        } finally {
          await unmount();
        }
      }
      // The ledger's own file system: no row can be written; the console says which file.
      await mount();
      try {
        const ledger = `${small}/ledger.jsonl`;
        const out = await run(args(ledger, "--artifacts", `${dir}/artifacts`));
        equal(out.code, 2, out.stderr);
        match(
          out.stderr,
          new RegExp(`^error: Cannot append to ledger "${ledger}": No space left on device`, "m"),
        );
      } finally {
        await unmount();
      }
    } finally {
      await cleanUp([dir], runId);
    }
  },
});
