/**
 * `ledgerbench import table` at scale: a table of 210,000 rows
 * (past where spreading one argument per row overflowed V8's stack)
 * imports whole through the CLI's own entry point, and an import killed
 * with SIGKILL in the middle of writing leaves the ledger as it was, no
 * held lock and no temporary file in its place, so that the same import
 * then succeeds. The table is `bench/_run_table.ts`'s generated run table
 * with 20 agents.
 *
 * @module
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { importTableArgs, tableParts, writeInPieces } from "../bench/_run_table.ts";
import { acquireLedgerLock } from "../runner/ledger_lock.ts";
import { cliCommand, cliInProcess } from "./_cli_run.ts";

/** Rows of the large table: past the 120,000 or so where the spread overflowed. */
const ROWS = 210_000;
/** The `import table` arguments for a generated table, with the JSON summary. */
function importArgs(table: string, ledger: string): string[] {
  return [...importTableArgs(table, ledger), "--tokens-reported-by", "agent", "--json"];
}

/** Rows of the table killed mid-write: enough for a write that lasts a while. */
const KILLED_ROWS = 100_000;
const AGENTS = 20;
const SMALL_ROWS = 1_000;

/** Lines (LF-terminated) of a file, counted without decoding it. */
async function lineCount(path: string): Promise<number> {
  let count = 0;
  for (const byte of await Deno.readFile(path)) if (byte === 10) count++;
  return count;
}

/** Whether a path exists. */
async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Fails unless nothing beside `ledger` is left of a write: no batch file, marker or held lock. */
async function nothingLeftOver(ledger: string): Promise<void> {
  equal(await exists(`${ledger}.batch`), false, "a batch's temporary file is left");
  equal(await exists(`${ledger}.pending`), false, "a batch marker is left");
  // a lock file may remain only from a killed holder, and then it is free
  const lock = await acquireLedgerLock(ledger);
  lock.release();
}

Deno.test({
  name: "import table: 210,000 rows of 20 agents through the CLI, every row written",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "import_scale_" });
    try {
      const table = `${dir}/runs.csv`;
      const ledger = `${dir}/ledger.jsonl`;
      await writeInPieces(table, tableParts(ROWS, AGENTS));
      const result = await cliInProcess(...importArgs(table, ledger));
      equal(result.code, 0, result.stderr);
      const payload = JSON.parse(result.stdout);
      equal(payload.written, ROWS);
      equal(payload.existing_rows, 0);
      equal(payload.task_list.tasks, ROWS / AGENTS);
      equal(await lineCount(ledger), ROWS);
      equal(await exists(`${ledger}.lock`), false, "the lock is removed on release");
      await nothingLeftOver(ledger);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "import table: SIGKILL mid-write leaves the ledger as it was and frees the lock; the import then succeeds",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "import_kill_" });
    try {
      const small = `${dir}/first.csv`;
      const table = `${dir}/runs.csv`;
      const ledger = `${dir}/ledger.jsonl`;
      // a ledger already there (another run id, so the large table's rows are new to it)
      await writeInPieces(small, tableParts(SMALL_ROWS, AGENTS));
      const first = await cliInProcess(...importArgs(small, ledger), "--run-id", "earlier");
      equal(first.code, 0, first.stderr);
      const before = await Deno.readFile(ledger);
      await writeInPieces(table, tableParts(KILLED_ROWS, AGENTS));
      const child = cliCommand(importArgs(table, ledger)).spawn();
      let ended = false;
      child.status.then(() => ended = true);
      // wait until the batch is being written past the ledger's own bytes, then kill
      const deadline = Date.now() + 120_000;
      for (;;) {
        const size = await Deno.stat(`${ledger}.batch`).then((s) => s.size, () => 0);
        if (size > before.length) break;
        ok(!ended, "the import ended before its batch was seen being written");
        ok(Date.now() < deadline, "the import wrote no batch within 120 s");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await rejects(acquireLedgerLock(ledger), /another runner holds its lock/);
      child.kill("SIGKILL");
      const status = await child.status;
      equal(status.signal, "SIGKILL", "the import ended before it was killed");
      await child.stdout.cancel();
      await child.stderr.cancel();
      // the ledger is the one before the import, byte for byte, and its lock is free
      deepEqual(await Deno.readFile(ledger), before);
      const free = await acquireLedgerLock(ledger);
      free.release();
      // the killed writer's temporary file is removed by the next import, which succeeds
      const again = await cliInProcess(...importArgs(table, ledger));
      equal(again.code, 0, again.stderr);
      const payload = JSON.parse(again.stdout);
      equal(payload.existing_rows, SMALL_ROWS);
      equal(payload.written, KILLED_ROWS);
      equal(await lineCount(ledger), SMALL_ROWS + KILLED_ROWS);
      await nothingLeftOver(ledger);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
