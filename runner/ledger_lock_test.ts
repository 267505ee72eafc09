import { equal, match, ok, rejects } from "node:assert/strict";
import { acquireLedgerLock, LedgerLockedError } from "./ledger_lock.ts";
import { currentRunner, processStart, runnerAlive } from "./runner_identity.ts";
import { tempDir } from "./_temp_dir_for_test.ts";

const NOW = () => new Date("2026-12-01T09:00:00.000Z");

Deno.test("acquireLedgerLock() refuses a second holder, naming the first, until it releases", async () => {
  await using dir = await tempDir();
  const ledger = `${dir.path}/ledger.jsonl`;
  const first = await acquireLedgerLock(ledger, { command: ["ledgerbench", "run"], now: NOW });
  equal(first.path, `${ledger}.lock`);
  const recorded = JSON.parse(await Deno.readTextFile(first.path));
  equal(recorded.pid, Deno.pid);
  equal(recorded.process_start, processStart(Deno.pid));
  equal(recorded.started_at, "2026-12-01T09:00:00.000Z");
  try {
    await acquireLedgerLock(ledger);
    ok(false, "the second lock was granted");
  } catch (refusal) {
    ok(refusal instanceof LedgerLockedError);
    equal(
      refusal.message,
      `Cannot run on ledger "${ledger}": another runner holds its lock "${ledger}.lock" ` +
        `(pid ${Deno.pid} on host "${Deno.hostname()}", since 2026-12-01T09:00:00.000Z: ledgerbench run)`,
    );
    equal(refusal.holder?.pid, Deno.pid);
  }
  first.release();
  first.release(); // idempotent
  await rejects(Deno.stat(first.path), Deno.errors.NotFound, "a released lock leaves no file");
  const again = await acquireLedgerLock(ledger);
  again.release();
  await rejects(Deno.stat(again.path), Deno.errors.NotFound);
});

Deno.test("acquireLedgerLock() in a missing directory is one line naming it", async () => {
  await using dir = await tempDir();
  await rejects(
    acquireLedgerLock(`${dir.path}/missing/ledger.jsonl`),
    new Error(
      `Cannot open ledger "${dir.path}/missing/ledger.jsonl": its directory "${dir.path}/missing" does not exist`,
    ),
  );
});

Deno.test("acquireLedgerLock(): a SIGKILLed holder's lock is free at once; runnerAlive() says it is gone", async () => {
  await using dir = await tempDir();
  const ledger = `${dir.path}/ledger.jsonl`;
  const script = `import { acquireLedgerLock } from "${
    new URL("./ledger_lock.ts", import.meta.url).href
  }";
await acquireLedgerLock(${JSON.stringify(ledger)}, { command: ["holder"] });
console.log("held");
await new Promise(() => setInterval(() => {}, 1000));`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  equal(new TextDecoder().decode(first.value), "held\n");
  const holder = { host: Deno.hostname(), pid: child.pid, start: processStart(child.pid)! };
  equal(runnerAlive(holder), true);
  await rejects(
    acquireLedgerLock(ledger),
    (error: Error) => {
      match(error.message, new RegExp(`\\(pid ${child.pid} on host .*: holder\\)$`));
      return true;
    },
  );
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
  equal(runnerAlive(holder), false);
  equal(runnerAlive({ ...holder, pid: Deno.pid }), false, "a reused pid has another start time");
  equal(runnerAlive(currentRunner()), true);
  equal(runnerAlive({ ...holder, host: "elsewhere" }), true, "another host cannot be checked");
  // the killed holder's file is still there, unlocked: the next runner locks it, and removes it
  equal(JSON.parse(await Deno.readTextFile(`${ledger}.lock`)).pid, child.pid);
  const lock = await acquireLedgerLock(ledger);
  equal(JSON.parse(await Deno.readTextFile(lock.path)).pid, Deno.pid);
  lock.release();
  await rejects(Deno.stat(lock.path), Deno.errors.NotFound);
});
