import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { createHash } from "node:crypto";
import { loadLedger } from "../inputs/ledger.ts";
import { LedgerError } from "../analysis/ledger_error.ts";
import { type EpisodeDraft, LedgerWriter } from "./ledger_writer.ts";
import { tempDir } from "./_temp_dir_for_test.ts";

function draft(task: string, fields: Partial<EpisodeDraft> = {}): EpisodeDraft {
  return {
    run_id: "r1",
    agent_id: "a",
    task_id: task,
    seed: 7,
    episode_id: `r1/a/${task}/1`,
    resolved: true,
    prompt_tokens: 10,
    completion_tokens: 5,
    tool_calls: 1,
    wall_ms: 100,
    price_table_id: "p",
    ...fields,
  };
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function lines(path: string): Promise<Uint8Array[]> {
  const bytes = await Deno.readFile(path);
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 10) {
      out.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  return out;
}

Deno.test("LedgerWriter.open() chains rows by the SHA-256 of the previous line", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const path = `${dir}/ledger.jsonl`;
  const { writer, existing, torn } = await LedgerWriter.open(path);
  equal(existing, 0);
  equal(torn, null);
  await writer.append(draft("t1"));
  await writer.append(draft("t2", { resolved: false }));
  await writer.append(
    draft("t3", { status: "invalid", resolved: null, invalid_reason: "verifier_fault" }),
  );
  await writer.close();
  const [l1, l2, l3] = await lines(path);
  // Independent recomputation with node:crypto over the bytes on disk.
  equal(JSON.parse(new TextDecoder().decode(l1)).prev_sha256, null);
  equal(JSON.parse(new TextDecoder().decode(l2)).prev_sha256, sha256(l1));
  equal(JSON.parse(new TextDecoder().decode(l3)).prev_sha256, sha256(l2));
  const ledger = await loadLedger(path);
  equal(ledger.valid_rows, 3);
  ok(ledger.chained);
  deepEqual(ledger.rows.map((r) => r.status), ["scored", "scored", "invalid"]);
});

Deno.test("LedgerWriter writes one canonical single-line row with every default explicit", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const path = `${dir}/ledger.jsonl`;
  const { writer } = await LedgerWriter.open(path);
  await writer.append(draft("t1"));
  await writer.close();
  const text = await Deno.readTextFile(path);
  equal(text.split("\n").length, 2);
  const keys = Object.keys(JSON.parse(text));
  deepEqual(keys, [...keys].sort());
  // The schema defaults (attempt 1, lane "default", stop "completed", ...) are written out.
  match(text, /"attempt":1,/);
  match(text, /"lane":"default",/);
  match(text, /"stop_reason":"completed",/);
  match(text, /^\{"agent_id":"a","artifact_digest":null,"attempt":1,/);
});

Deno.test("LedgerWriter refuses an existing ledger without resume, a duplicate and a bad row", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const path = `${dir}/ledger.jsonl`;
  const first = await LedgerWriter.open(path);
  await first.writer.append(draft("t1"));
  await rejects(first.writer.append(draft("t1")), /duplicate episode "r1\/a\/t1\/1"/);
  await rejects(
    first.writer.append(
      draft("t2", { status: "invalid", resolved: true, invalid_reason: "harness_error" }),
    ),
    /field "resolved": must be null when "status" is "invalid"/,
  );
  await first.writer.close();
  equal((await lines(path)).length, 1);
  await rejects(LedgerWriter.open(path), /already holds rows; pass --resume/);
});

Deno.test("LedgerWriter resumes a ledger and keeps the chain intact", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const path = `${dir}/ledger.jsonl`;
  const first = await LedgerWriter.open(path);
  await first.writer.append(draft("t1"));
  await first.writer.append(draft("t2"));
  await first.writer.close();
  const replayed: [string, number][] = [];
  const second = await LedgerWriter.open(path, {
    resume: true,
    replay: (row, line) => replayed.push([row.task_id, line]),
  });
  equal(second.existing, 2);
  deepEqual(replayed, [["t1", 1], ["t2", 2]]);
  await rejects(second.writer.append(draft("t2")), /duplicate episode/);
  await second.writer.append(draft("t3"));
  await second.writer.close();
  const ledger = await loadLedger(path);
  equal(ledger.valid_rows, 3);
  const [, l2, l3] = await lines(path);
  equal(JSON.parse(new TextDecoder().decode(l3)).prev_sha256, sha256(l2));
});

Deno.test("LedgerWriter moves a torn final line to the sidecar, loudly, and reports its episode", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const path = `${dir}/ledger.jsonl`;
  const first = await LedgerWriter.open(path);
  await first.writer.append(draft("t1"));
  await first.writer.append(draft("t2"));
  await first.writer.close();
  const whole = await Deno.readFile(path);
  const secondLineStart = whole.indexOf(10) + 1;
  // A write cut short: the second row loses its last 30 bytes and its newline.
  const cut = whole.length - 31;
  await Deno.writeFile(path, whole.subarray(0, cut));
  const tail = whole.subarray(secondLineStart, cut);
  const warnings: string[] = [];
  const resumed = await LedgerWriter.open(path, {
    resume: true,
    now: () => new Date("2026-11-07T00:00:00Z"),
    warn: (m) => warnings.push(m),
  });
  equal(resumed.existing, 1);
  deepEqual(resumed.torn, {
    offset: secondLineStart,
    length: tail.length,
    sha256: sha256(tail),
    sidecar: `${path}.torn.jsonl`,
    episode_id: "r1/a/t2/1",
    unfinished_batch: false,
  });
  equal(warnings.length, 1);
  match(warnings[0], /ended in a torn line .* episode "r1\/a\/t2\/1".*moved to/);
  const sidecar = JSON.parse(await Deno.readTextFile(`${path}.torn.jsonl`));
  equal(sidecar.detected_at, "2026-11-07T00:00:00.000Z");
  equal(sidecar.text, new TextDecoder().decode(tail));
  equal(sidecar.offset, secondLineStart);
  // The ledger was cut back to its last complete row, and the chain continues from it.
  equal((await Deno.readFile(path)).length, secondLineStart);
  await resumed.writer.append(draft("t2", { notes: "re-run after torn line" }));
  await resumed.writer.close();
  const ledger = await loadLedger(path);
  equal(ledger.valid_rows, 2);
});

Deno.test("LedgerWriter refuses to resume a ledger that fails the strict read or has no chain", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const broken = `${dir}/broken.jsonl`;
  await Deno.writeTextFile(broken, '{"not":"a row"}\n');
  await rejects(LedgerWriter.open(broken, { resume: true }), LedgerError);
  const unchained = `${dir}/unchained.jsonl`;
  await Deno.copyFile(
    new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url),
    unchained,
  );
  await rejects(LedgerWriter.open(unchained, { resume: true }), /carry no hash chain/);
});

Deno.test("LedgerWriter serialises concurrent appends into one valid chain", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const path = `${dir}/ledger.jsonl`;
  const { writer } = await LedgerWriter.open(path);
  await Promise.all(Array.from({ length: 20 }, (_, i) => writer.append(draft(`t${i}`))));
  await writer.close();
  const ledger = await loadLedger(path);
  equal(ledger.valid_rows, 20);
  equal(new Set(ledger.rows.map((r) => r.episode_id)).size, 20);
});

Deno.test("LedgerWriter resumes past lines longer than its 64 KiB backward reads", async () => {
  await using temp = await tempDir();
  const path = `${temp.path}/ledger.jsonl`;
  // Notes of 150,000 characters: each line spans three 64 KiB blocks read from the end.
  const long = (task: string) => draft(task, { notes: `${task}:${"x".repeat(150_000)}` });
  const first = await LedgerWriter.open(path);
  await first.writer.append(long("t1"));
  await first.writer.append(long("t2"));
  await first.writer.close();
  // Resume after a clean end: the chain continues from the long last line.
  const second = await LedgerWriter.open(path, { resume: true });
  equal(second.existing, 2);
  equal(second.torn, null);
  await second.writer.append(long("t3"));
  await second.writer.close();
  const [, l2, l3] = await lines(path);
  equal(JSON.parse(new TextDecoder().decode(l3)).prev_sha256, sha256(l2));
  // Resume after a torn long line: the whole 100,000-byte tail goes to the sidecar.
  const whole = await Deno.readFile(path);
  const thirdStart = whole.length - l3.length - 1;
  await Deno.writeFile(path, whole.subarray(0, thirdStart + 100_000));
  const third = await LedgerWriter.open(path, { resume: true, warn: () => {} });
  equal(third.existing, 2);
  deepEqual(
    { offset: third.torn?.offset, length: third.torn?.length },
    { offset: thirdStart, length: 100_000 },
  );
  equal(third.torn?.sha256, sha256(whole.subarray(thirdStart, thirdStart + 100_000)));
  await third.writer.append(long("t3"));
  await third.writer.close();
  const ledger = await loadLedger(path);
  equal(ledger.valid_rows, 3);
  deepEqual(await Deno.readFile(path), whole);
});

Deno.test("LedgerWriter resumes a ledger that holds only a torn first line", async () => {
  await using temp = await tempDir();
  const path = `${temp.path}/ledger.jsonl`;
  const first = await LedgerWriter.open(path);
  await first.writer.append(draft("t1"));
  await first.writer.close();
  const whole = await Deno.readFile(path);
  await Deno.writeFile(path, whole.subarray(0, 40));
  const resumed = await LedgerWriter.open(path, { resume: true, warn: () => {} });
  equal(resumed.existing, 0);
  deepEqual({ offset: resumed.torn?.offset, length: resumed.torn?.length }, {
    offset: 0,
    length: 40,
  });
  await resumed.writer.append(draft("t1"));
  await resumed.writer.close();
  // The same row again, first in the chain (prev_sha256 null): the same bytes as before the cut.
  deepEqual(await Deno.readFile(path), whole);
});

Deno.test({
  name:
    "LedgerWriter.append() on a full disk cuts the ledger back to its last row; later rows and resume are intact",
  ignore: Deno.uid() !== 0,
  async fn() {
    await using temp = await tempDir();
    const fs = `${temp.path}/fs`;
    await Deno.mkdir(fs);
    const mount = await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "size=64k", "ledgerbench-test-full", fs],
    }).output();
    equal(mount.code, 0, new TextDecoder().decode(mount.stderr));
    try {
      const path = `${fs}/ledger.jsonl`;
      const { writer } = await LedgerWriter.open(path);
      await writer.append(draft("t1"));
      const oneRow = (await Deno.stat(path)).size;
      // Fill every other page of the file system: the ledger's last page keeps 4096 - oneRow bytes.
      const filler = await Deno.open(`${fs}/filler`, { write: true, create: true });
      try {
        for (;;) await filler.write(new Uint8Array(4096));
      } catch (error) {
        ok(error instanceof Error && /No space left/.test(error.message), String(error));
      }
      filler.close();
      // A row longer than the page's rest: the write is cut short, then fails (ENOSPC).
      const long = "n".repeat(6000);
      await rejects(
        writer.append(draft("t2", { notes: long })),
        (error: Error) => {
          match(
            error.message,
            new RegExp(
              `^Cannot append to ledger "${path}": No space left on device.*; ` +
                `the ledger was cut back to its last complete row at byte ${oneRow}$`,
            ),
          );
          return true;
        },
      );
      equal((await Deno.stat(path)).size, oneRow);
      await Deno.remove(`${fs}/filler`);
      await writer.append(draft("t2", { notes: long }));
      await writer.append(draft("t3"));
      await writer.close();
      const bytes = await Deno.readFile(path);
      equal(bytes[bytes.length - 1], 10);
      const ledger = await loadLedger(path);
      equal(ledger.valid_rows, 3);
      deepEqual(ledger.rows.map((row) => row.episode_id), ["r1/a/t1/1", "r1/a/t2/1", "r1/a/t3/1"]);
      const resumed = await LedgerWriter.open(path, { resume: true });
      equal(resumed.existing, 3);
      equal(resumed.torn, null);
      await resumed.writer.close();
    } finally {
      await new Deno.Command("umount", { args: ["--lazy", fs] }).output();
    }
  },
});

Deno.test("LedgerWriter.appendAll() writes the same bytes as appends one by one", async () => {
  await using temp = await tempDir();
  const one = `${temp.path}/one.jsonl`;
  const batch = `${temp.path}/batch.jsonl`;
  const drafts = [draft("t1"), draft("t2", { resolved: false }), draft("t3")];
  const first = await LedgerWriter.open(one);
  for (const d of drafts) await first.writer.append(d);
  await first.writer.close();
  const second = await LedgerWriter.open(batch);
  equal(await second.writer.appendAll(drafts), 3);
  // the chain continues after a batch, as after an append
  await second.writer.append(draft("t4"));
  await second.writer.close();
  const third = await LedgerWriter.open(one, { resume: true });
  await third.writer.append(draft("t4"));
  await third.writer.close();
  deepEqual(await Deno.readFile(batch), await Deno.readFile(one));
  // neither an earlier version's marker nor the batch's temporary file is left
  await rejects(Deno.stat(`${batch}.pending`), Deno.errors.NotFound);
  await rejects(Deno.stat(`${batch}.batch`), Deno.errors.NotFound);
  equal((await loadLedger(batch)).valid_rows, 4);
});

Deno.test("LedgerWriter.appendAll() writes nothing on a bad row", async () => {
  await using temp = await tempDir();
  const path = `${temp.path}/ledger.jsonl`;
  const { writer } = await LedgerWriter.open(path);
  await writer.append(draft("t1"));
  const before = await Deno.readFile(path);
  await rejects(
    writer.appendAll([draft("t2"), draft("t3"), draft("t2")]),
    /\(row 3 of the batch, nothing written\): duplicate episode "r1\/a\/t2\/1"/,
  );
  await rejects(writer.appendAll([draft("t1")]), /row 1 of the batch.*duplicate episode/);
  await rejects(
    writer.appendAll([draft("t2"), draft("t3", { status: "invalid", resolved: true })]),
    /\(row 2 of the batch, nothing written\): field "resolved": must be null/,
  );
  deepEqual(await Deno.readFile(path), before);
  equal(await writer.appendAll([]), 0);
  await writer.appendAll([draft("t2"), draft("t3")]);
  await writer.close();
  equal((await loadLedger(path)).valid_rows, 3);
});

Deno.test("LedgerWriter.open() undoes a batch that a crash left unfinished, bytes kept aside", async () => {
  await using temp = await tempDir();
  const path = `${temp.path}/ledger.jsonl`;
  const first = await LedgerWriter.open(path);
  await first.writer.append(draft("t1"));
  await first.writer.close();
  const before = await Deno.readFile(path);
  // What a process killed mid-batch leaves: the marker, and two of three rows on disk.
  const full = `${temp.path}/full.jsonl`;
  const other = await LedgerWriter.open(full);
  await other.writer.appendAll([draft("t1"), draft("t2"), draft("t3"), draft("t4")]);
  await other.writer.close();
  const whole = await Deno.readFile(full);
  const lineEnds = [...whole.keys()].filter((i) => whole[i] === 10);
  const partial = whole.subarray(before.length, lineEnds[2] + 1 + 40);
  await Deno.writeFile(path, partial, { append: true });
  await Deno.writeTextFile(
    `${path}.pending`,
    JSON.stringify({ ledger: path, offset: before.length, rows: 3 }) + "\n",
  );
  const warnings: string[] = [];
  const resumed = await LedgerWriter.open(path, {
    resume: true,
    now: () => new Date("2026-11-07T00:00:00Z"),
    warn: (m) => warnings.push(m),
  });
  deepEqual(resumed.torn, {
    offset: before.length,
    length: partial.length,
    sha256: sha256(partial),
    sidecar: `${path}.torn.jsonl`,
    episode_id: null,
    unfinished_batch: true,
  });
  equal(resumed.existing, 1);
  match(warnings[0], /holds a batch whose write never completed .* cut back to where the batch/);
  deepEqual(await Deno.readFile(path), before);
  await rejects(Deno.stat(`${path}.pending`), Deno.errors.NotFound);
  const sidecar = JSON.parse(await Deno.readTextFile(`${path}.torn.jsonl`));
  deepEqual([sidecar.unfinished_batch, sidecar.text], [true, new TextDecoder().decode(partial)]);
  // The import can run again: its rows are not in the ledger.
  await resumed.writer.appendAll([draft("t2"), draft("t3"), draft("t4")]);
  await resumed.writer.close();
  deepEqual(await Deno.readFile(path), whole.subarray(0, whole.length));
});

Deno.test("LedgerWriter.open() drops the marker of a batch that wrote nothing, and refuses a bad one", async () => {
  await using temp = await tempDir();
  const path = `${temp.path}/ledger.jsonl`;
  const first = await LedgerWriter.open(path);
  await first.writer.append(draft("t1"));
  await first.writer.close();
  const size = (await Deno.stat(path)).size;
  await Deno.writeTextFile(`${path}.pending`, JSON.stringify({ offset: size }) + "\n");
  const resumed = await LedgerWriter.open(path, { resume: true, warn: () => {} });
  equal(resumed.torn, null);
  await resumed.writer.close();
  await rejects(Deno.stat(`${path}.pending`), Deno.errors.NotFound);
  await Deno.writeTextFile(`${path}.pending`, JSON.stringify({ offset: size + 10 }) + "\n");
  await rejects(
    LedgerWriter.open(path, { resume: true }),
    /records an unfinished batch at offset \d+, but the ledger holds \d+ bytes/,
  );
});

Deno.test("LedgerWriter.open() removes the batch file a killed import left; the ledger is as it was", async () => {
  await using temp = await tempDir();
  const path = `${temp.path}/ledger.jsonl`;
  const first = await LedgerWriter.open(path);
  await first.writer.append(draft("t1"));
  await first.writer.close();
  const before = await Deno.readFile(path);
  // what a process killed before its rename leaves: the ledger's lines and part of a row
  await Deno.writeFile(`${path}.batch`, new Uint8Array([...before, ...before.subarray(0, 40)]));
  const resumed = await LedgerWriter.open(path, { resume: true });
  equal(resumed.existing, 1);
  equal(resumed.torn, null);
  await rejects(Deno.stat(`${path}.batch`), Deno.errors.NotFound);
  deepEqual(await Deno.readFile(path), before);
  equal(await resumed.writer.appendAll([draft("t2")]), 1);
  await resumed.writer.close();
  equal((await loadLedger(path)).valid_rows, 2);
});

Deno.test("LedgerWriter creates the ledger at its first row, not when opened", async () => {
  await using temp = await tempDir();
  const path = `${temp.path}/ledger.jsonl`;
  const { writer } = await LedgerWriter.open(path);
  await rejects(writer.appendAll([draft("t1"), draft("t1")]), /duplicate episode/);
  await rejects(Deno.stat(path), Deno.errors.NotFound);
  await writer.append(draft("t1"));
  await writer.close();
  equal((await loadLedger(path)).valid_rows, 1);
});
