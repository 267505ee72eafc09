/**
 * Two runners on one ledger and what a killed runner leaves behind, on the
 * real engine through the real CLI (issue 9, items 4 and 7): a second `run`
 * (or `run --resume`) on a ledger whose runner is live is refused, naming
 * the holder, and touches nothing of it; after a SIGKILL mid-episode,
 * `run --resume` removes the dead runner's temporary directories, tmpfs
 * workspace and containers, but not a live runner's directory. And two
 * console messages of item 10: a ledger in a missing directory, a full
 * artifact store.
 *
 * Skipped when no engine answers.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { buildImages } from "../runner/docker/build_images.ts";

import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { currentRunner } from "../runner/runner_identity.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli, cliCommand } from "./_cli_run.ts";
import { containersOf, freezeMiniPlan, miniRunArgs } from "./_mini_plan.ts";

const ENGINE = await requireDockerEngine("tests/runner_lock_test.ts");
const SEED = "10c410c4".repeat(8);

/** Polls `ready` every 20 ms until it holds or 60 s pass (a wait, not a timing assertion). */
async function waitFor(what: string, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Entries of `dir` whose names match `pattern`, as paths, one level at a time. */
async function find(dir: string, ...patterns: RegExp[]): Promise<string[]> {
  let found = [dir];
  for (const pattern of patterns) {
    const next: string[] = [];
    for (const parent of found) {
      try {
        for await (const entry of Deno.readDir(parent)) {
          if (pattern.test(entry.name)) next.push(`${parent}/${entry.name}`);
        }
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
    found = next;
  }
  return found.sort();
}

async function mountsBelow(dir: string): Promise<string[]> {
  const text = await Deno.readTextFile("/proc/self/mountinfo");
  return text.split("\n").map((line) => line.split(" ")[4]).filter((point) =>
    point?.startsWith(`${dir}/`)
  );
}

/** A one-agent plan on the mini suite, its provider script and the run's arguments. */
async function fixture(dir: string, runId: string) {
  const suite = await freezeMiniPlan(dir, {
    seed: SEED,
    runId,
    freezeArgs: ["--order-seed", "5", "--agent", "a=ledgerbench/agent-solver:latest"],
  });
  await Deno.writeTextFile(
    `${dir}/a.json`,
    JSON.stringify(await suiteProviderScript(suite, { model: "m-a" })),
  );
  await Deno.mkdir(`${dir}/run`);
  const ledger = `${dir}/run/ledger.jsonl`;
  const args = miniRunArgs(dir, ledger, ["--provider-script", `a=${dir}/a.json`]);
  return { ledger, args, tasks: suite.manifest.tasks.length };
}

async function cleanUp(dir: string, runId: string): Promise<void> {
  for (const id of containersOf(runId)) {
    new Deno.Command("docker", { args: ["rm", "-f", id], stdout: "null", stderr: "null" })
      .outputSync();
  }
  for (const point of await mountsBelow(dir)) {
    await new Deno.Command("umount", { args: ["--lazy", point] }).output();
  }
  await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
  await Deno.remove(dir, { recursive: true });
}

Deno.test({
  name:
    "run: a second run and a --resume on a live runner's ledger are refused, naming it; the ledger stays whole",
  ignore: !ENGINE.available,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-lock-" });
    const runId = `lock-${crypto.randomUUID().slice(0, 8)}`;
    try {
      const { ledger, args, tasks } = await fixture(dir, runId);
      // Each answer comes after 8 s: the first runner's candidate is live meanwhile.
      const script = JSON.parse(await Deno.readTextFile(`${dir}/a.json`));
      for (const rule of script.rules) rule.reply.delay_ms = 8_000;
      await Deno.writeTextFile(`${dir}/a.json`, JSON.stringify(script));
      const first = cliCommand(args).spawn();
      let firstEnded = false;
      first.status.then(() => firstEnded = true);
      await waitFor(
        "the first runner's container",
        () => Promise.resolve(containersOf(runId).length > 0),
      );
      const live = containersOf(runId);
      const [second, resumed] = await Promise.all([cli(...args), cli(...args, "--resume")]);
      equal(firstEnded, false, "the first runner ended before the second was refused");
      // The refused resume removed no "orphan": the live run's container is still there.
      deepEqual(containersOf(runId).filter((id) => live.includes(id)), live);
      const firstOut = await first.output();
      const firstErr = new TextDecoder().decode(firstOut.stderr);
      equal(firstOut.code, 0, firstErr);

      const holder = new RegExp(
        `^error: Cannot run on ledger "${ledger}": another runner holds its lock "${ledger}.lock" ` +
          `\\(pid ${first.pid} on host "${Deno.hostname()}", since \\S+: ledgerbench run --plan `,
      );
      equal(second.code, 3, second.stderr);
      match(second.stderr, holder);
      equal(second.stderr.trim().split("\n").length, 1, second.stderr);
      equal(second.stdout, "");
      equal(resumed.code, 3, resumed.stderr);
      match(resumed.stderr, holder);

      // One row per task, no duplicate, the chain unbroken, and no row of the
      // first run spoiled by the refused ones (a removed "orphan" would be a harness_error).
      const read = await loadLedger(ledger, { allowEmpty: true });
      equal(read.valid_rows, tasks);
      equal(new Set(read.rows.map((row) => row.episode_id)).size, tasks);
      deepEqual(read.rows.filter((row) => row.status !== "scored").map((row) => row.notes), []);
      // The lock is free again once the runner has ended.
      const again = await cli(...args, "--resume");
      equal(again.code, 0, again.stderr);
      match(again.stdout, new RegExp(`ledger ${ledger}: ${tasks} rows before, 0 appended`));
      deepEqual(containersOf(runId), []);
    } finally {
      await cleanUp(dir, runId);
    }
  },
});

Deno.test({
  name:
    "run --resume after a SIGKILL mid-episode removes the dead runner's temp dirs, tmpfs and containers, not a live runner's",
  ignore: !ENGINE.available || Deno.uid() !== 0,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-leak-" });
    const runId = `leak-${crypto.randomUUID().slice(0, 8)}`;
    let tmp = "";
    try {
      const { ledger, args, tasks } = await fixture(dir, runId);
      tmp = await Deno.makeTempDir({ prefix: "lbt-" });
      const env = { TMPDIR: tmp };
      // The provider first answers after 50 s, so the first candidate waits on its model call.
      const script = await Deno.readTextFile(`${dir}/a.json`);
      const slow = JSON.parse(script);
      for (const rule of slow.rules) rule.reply.delay_ms = 50_000;
      await Deno.writeTextFile(`${dir}/a.json`, JSON.stringify(slow));
      const child = cliCommand(args, { env }).spawn();
      // Kill it while a candidate runs on its workspace tmpfs, its call in the relay (the tmpfs
      // is mounted before the container is created: wait for both).
      await waitFor(
        "a running candidate",
        async () => (await mountsBelow(tmp)).length > 0 && containersOf(runId).length > 0,
      );
      child.kill("SIGKILL");
      equal((await child.status).signal, "SIGKILL");
      const runDirs = await find(tmp, new RegExp(`^ledgerbench-run-${child.pid}-\\d+-`));
      equal(runDirs.length, 1);
      const leftovers = await find(runDirs[0], /^ledgerbench-(episode|candidate|verifier)-/);
      ok(leftovers.some((path) => path.includes("/ledgerbench-candidate-")), String(leftovers));
      // Its relay's socket, in its socket directory (runner_socket_path.ts).
      const sockets = new RegExp(`^ledgerbench-sockets-${child.pid}-`);
      equal((await find("/tmp", sockets, /^relay-\d+\.sock$/)).length, 1);
      ok((await mountsBelow(tmp)).length >= 1);
      // A live runner's directory (this test process is alive): never touched.
      const self = currentRunner();
      const live = `${tmp}/ledgerbench-run-${self.pid}-${self.start}-999`;
      await Deno.mkdir(`${live}/ledgerbench-verifier-x/verifier`, { recursive: true });
      await Deno.writeTextFile(`${live}/ledgerbench-verifier-x/verifier/expected.txt`, "42\n");

      await Deno.writeTextFile(`${dir}/a.json`, script);
      const resumed = await cliCommand([...args, "--resume"], { env }).output();
      const stderr = new TextDecoder().decode(resumed.stderr);
      equal(resumed.code, 0, stderr);
      match(stderr, /removed 1 temporary directory left by runners that are gone/);
      match(stderr, /resume: removed \d+ container\(s\) left behind by the interrupted run/);
      deepEqual(await find(tmp, /./), [live]);
      deepEqual(await find("/tmp", sockets), []);
      equal(
        await Deno.readTextFile(`${live}/ledgerbench-verifier-x/verifier/expected.txt`),
        "42\n",
      );
      deepEqual(await mountsBelow(tmp), []);
      deepEqual(containersOf(runId), []);
      const read = await loadLedger(ledger, { allowEmpty: true });
      equal(read.valid_rows, tasks);
      equal(new Set(read.rows.map((row) => row.episode_id)).size, tasks);
    } finally {
      if (tmp !== "") await cleanUp(tmp, runId);
      await cleanUp(dir, runId);
    }
  },
});

Deno.test({
  name:
    "run: a ledger in a missing directory is one line, exit 2; a full artifact store's cause is on the console",
  ignore: !ENGINE.available || Deno.uid() !== 0,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-console-" });
    const runId = `console-${crypto.randomUUID().slice(0, 8)}`;
    const store = `${dir}/store`;
    try {
      const { ledger, args } = await fixture(dir, runId);
      const missing = `${dir}/missing/ledger.jsonl`;
      const lost = await cli(...args.map((arg) => arg === ledger ? missing : arg));
      equal(lost.code, 2, lost.stderr);
      equal(
        lost.stderr,
        `error: Cannot open ledger "${missing}": its directory "${dir}/missing" does not exist\n`,
      );

      // An artifact store with room for one page: the workspace cannot be stored.
      await Deno.mkdir(store);
      const mount = await new Deno.Command("mount", {
        args: ["-t", "tmpfs", "-o", "size=4k", "ledgerbench-test-store", store],
      }).output();
      equal(mount.code, 0);
      const full = await cli(...args, "--artifacts", store);
      equal(full.code, 3, full.stderr);
      match(
        full.stderr,
        /: invalid \(harness_error\), stop error, [^\n]*\n {2}harness error: [^\n]*No space left on device/,
      );
    } finally {
      await new Deno.Command("umount", { args: ["--lazy", store] }).output();
      await cleanUp(dir, runId);
    }
  },
});
