import { deepEqual, equal, ok } from "node:assert/strict";
import { createRunTempDir, removeDeadRunnerTempDirs } from "./run_temp_dir.ts";
import { currentRunner } from "./runner_identity.ts";
import { tempDir } from "./_temp_dir_for_test.ts";
import { startOtherHostRunner } from "./_other_host_runner_for_test.ts";

const isRoot = Deno.uid() === 0;

async function mounted(point: string): Promise<boolean> {
  const text = await Deno.readTextFile("/proc/self/mountinfo");
  return text.split("\n").some((line) => line.split(" ")[4] === point);
}

Deno.test({
  name:
    "removeDeadRunnerTempDirs() removes a gone runner's directory and unmounts its tmpfs, never a live runner's",
  ignore: !isRoot,
  async fn() {
    await using base = await tempDir();
    const self = currentRunner();
    await using run = await createRunTempDir(base.path);
    const live = run.path;
    ok(/^ledgerbench-run-\d+-\d+-\d+-.+$/.test(live.slice(base.path.length + 1)), live);
    ok(live.startsWith(`${base.path}/ledgerbench-run-${self.pid}-${self.start}-`), live);
    ok(live.endsWith(`-${self.host}`), live);
    await Deno.mkdir(`${live}/ledgerbench-verifier-x/verifier`, { recursive: true });
    // A runner that is gone: this pid with another start time (a reused pid), and a pid that exited.
    const child = new Deno.Command("true").spawn();
    await child.status;
    const reused = `${base.path}/ledgerbench-run-${self.pid}-${self.start + 1}-1`;
    const exited = `${base.path}/ledgerbench-run-${child.pid}-12345-1`;
    const quota = `${exited}/ledgerbench-candidate-y/quota`;
    await Deno.mkdir(`${reused}/ledgerbench-episode-z`, { recursive: true });
    await Deno.writeTextFile(`${reused}/ledgerbench-episode-z/relay.sock`, "");
    await Deno.mkdir(quota, { recursive: true });
    const mount = await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "size=64k", "ledgerbench-workspace", quota],
    }).output();
    equal(mount.code, 0);
    await Deno.writeTextFile(`${quota}/expected.txt`, "hidden");
    await Deno.mkdir(`${base.path}/ledgerbench-episode-unrelated`);

    deepEqual(await removeDeadRunnerTempDirs(base.path), [reused, exited].sort());
    equal(await mounted(quota), false);
    const left = [];
    for await (const entry of Deno.readDir(base.path)) left.push(entry.name);
    deepEqual(
      left.sort(),
      [live.slice(base.path.length + 1), "ledgerbench-episode-unrelated"].sort(),
    );
    ok((await Deno.stat(`${live}/ledgerbench-verifier-x/verifier`)).isDirectory);
    deepEqual(await removeDeadRunnerTempDirs(base.path), []);
    await run[Symbol.asyncDispose]();
    await Deno.stat(live).then(
      () => ok(false, "still there"),
      (e) => ok(e instanceof Deno.errors.NotFound),
    );
  },
});

Deno.test({
  name: "removeDeadRunnerTempDirs() warns about a directory it cannot remove and goes on",
  ignore: !isRoot,
  async fn() {
    await using base = await tempDir();
    const stuck = `${base.path}/ledgerbench-run-999999999-1-1`;
    const gone = `${base.path}/ledgerbench-run-999999999-1-2`;
    await Deno.mkdir(stuck);
    await Deno.mkdir(gone);
    await Deno.writeTextFile(`${stuck}/relay.sock`, "");
    // An immutable file: even root cannot remove it (chattr(1)).
    const chattr = await new Deno.Command("chattr", { args: ["+i", `${stuck}/relay.sock`] })
      .output();
    equal(chattr.code, 0);
    try {
      const warnings: string[] = [];
      deepEqual(await removeDeadRunnerTempDirs(base.path, (m) => warnings.push(m)), [gone]);
      equal(warnings.length, 1);
      ok(
        warnings[0].startsWith(
          `warning: cannot remove "${stuck}", left by a runner that is gone: `,
        ),
        warnings[0],
      );
    } finally {
      await new Deno.Command("chattr", { args: ["-i", `${stuck}/relay.sock`] }).output();
    }
  },
});

Deno.test({
  name:
    "removeDeadRunnerTempDirs() leaves the directory of a live runner of another host sharing TMPDIR",
  ignore: !isRoot,
  async fn() {
    // A cluster's TMPDIR may be shared by its nodes (issue 24): the other node's pid means
    // nothing here, so its directory must never be judged by this host's processes.
    await using base = await tempDir();
    const other = await startOtherHostRunner(base.path, { host: "node-b" });
    try {
      deepEqual(await removeDeadRunnerTempDirs(base.path), []);
      equal(await Deno.readTextFile(`${other.runDir}/expected.txt`), "42\n");
    } finally {
      await other.stop();
    }
  },
});
