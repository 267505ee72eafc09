import { equal, ok } from "node:assert/strict";
import { removeDeadRunnerSocketDirs, runnerSocketPath } from "./runner_socket_path.ts";
import { currentRunner } from "./runner_identity.ts";
import { startRelay } from "./relay/relay.ts";

Deno.test("runnerSocketPath() is short and private whatever TMPDIR is, one socket per call", async () => {
  const before = Deno.env.get("TMPDIR");
  // A Slurm job's temporary directory is longer than this (issue 24).
  Deno.env.set("TMPDIR", `/tmp/${"slurm-job-tmp/".repeat(8)}`);
  try {
    const self = currentRunner();
    const first = await runnerSocketPath("relay");
    const second = await runnerSocketPath("relay");
    const dir = first.slice(0, first.lastIndexOf("/"));
    ok(
      new RegExp(
        `^/tmp/ledgerbench-sockets-${self.pid}-${self.start}-[0-9a-f]{8}/relay-\\d+\\.sock$`,
      )
        .test(first),
      first,
    );
    ok(second !== first && second.startsWith(`${dir}/`), second);
    ok(new TextEncoder().encode(first).length < 107, first);
    equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    // The relay listens there, and removes its socket when it closes.
    const relay = await startRelay(first, {
      upstreamBaseUrl: "http://127.0.0.1:9",
      upstreamKey: "k",
    });
    ok((await Deno.lstat(first)).isSocket);
    await relay.close();
    await Deno.lstat(first).then(() => ok(false, "socket left"), () => {});
  } finally {
    if (before === undefined) Deno.env.delete("TMPDIR");
    else Deno.env.set("TMPDIR", before);
  }
});

Deno.test("removeDeadRunnerSocketDirs() removes a gone runner's socket directory, never a live one's", async () => {
  const self = currentRunner();
  const live = (await runnerSocketPath("relay")).replace(/\/[^/]+$/, "");
  const child = new Deno.Command("true").spawn();
  await child.status;
  const exited = `/tmp/ledgerbench-sockets-${child.pid}-12345-0123abcd`;
  const reused = `/tmp/ledgerbench-sockets-${self.pid}-${self.start + 1}-0123abcd`;
  for (const dir of [exited, reused]) {
    await Deno.mkdir(dir, { mode: 0o700 });
    await Deno.writeTextFile(`${dir}/relay-1.sock`, "");
  }
  try {
    const removed = await removeDeadRunnerSocketDirs();
    ok(removed.includes(exited) && removed.includes(reused), String(removed));
    ok(!removed.includes(live));
    ok((await Deno.stat(live)).isDirectory);
  } finally {
    for (const dir of [exited, reused]) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
