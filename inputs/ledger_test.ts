/**
 * Every bad-input error of the ledger reader (issue 2, "Reading is
 * streaming..."): each names code, file, line and field; lenient mode lists
 * every problem and accounts for every line; seed-001 minimal rows load
 * unchanged with the documented defaults.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { lineSha256, loadLedger, loadLedgerTable } from "./ledger.ts";
import { LedgerError, type LedgerProblem } from "../analysis/ledger_error.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;
const encoder = new TextEncoder();

function row(task_id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    run_id: "r1",
    agent_id: "a",
    task_id,
    seed: 7,
    resolved: true,
    prompt_tokens: 100,
    completion_tokens: 50,
    tool_calls: 1,
    wall_ms: 1000,
    price_table_id: "local-0",
    ...fields,
  };
}

/** Serialises rows as a hash-chained ledger (prev_sha256 = SHA-256 of the previous line). */
function chainedLines(rows: Record<string, unknown>[]): string[] {
  const lines: string[] = [];
  let previous: string | null = null;
  for (const r of rows) {
    const line = JSON.stringify({ ...r, prev_sha256: previous });
    lines.push(line);
    previous = lineSha256(encoder.encode(line));
  }
  return lines;
}

async function withLedger<T>(text: string, body: (path: string) => Promise<T>): Promise<T> {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, text);
    return await body(path);
  } finally {
    await Deno.remove(path);
  }
}

/** Reads strictly and returns the one problem thrown, with the file path used. */
function strictProblem(
  text: string,
): Promise<{ path: string; problem: LedgerProblem; error: LedgerError }> {
  return withLedger(text, async (path) => {
    try {
      await loadLedger(path);
    } catch (error) {
      ok(error instanceof LedgerError, String(error));
      equal(error.problems.length, 1);
      return { path, problem: error.problems[0], error };
    }
    throw new Error(`expected loadLedger() to throw on:\n${text}`);
  });
}

async function assertProblem(
  text: string,
  expected: { code: string; line: number; field: string; message?: RegExp },
): Promise<void> {
  const { path, problem, error } = await strictProblem(text);
  deepEqual(
    { code: problem.code, file: problem.file, line: problem.line, field: problem.field },
    { code: expected.code, file: path, line: expected.line, field: expected.field },
    text,
  );
  if (expected.message) ok(expected.message.test(problem.message), problem.message);
  // The thrown message names file, line and (when there is one) field.
  const where = expected.field === ""
    ? `${path}:${expected.line}: `
    : `${path}:${expected.line}: field "${expected.field}": `;
  ok(error.message.startsWith(`Cannot read ${where}`), error.message);
}

const jsonl = (...rows: Record<string, unknown>[]) =>
  rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

Deno.test("loadLedger() rejects a malformed JSON line, naming file and line", async () => {
  await assertProblem(jsonl(row("t1")) + '{"run_id": "r1",\n', {
    code: "malformed_json",
    line: 2,
    field: "",
  });
  // A JSON value that is not an object is malformed too.
  await assertProblem(jsonl(row("t1")) + "[1, 2]\n", {
    code: "malformed_json",
    line: 2,
    field: "",
    message: /one JSON object/,
  });
  // Bytes that are not UTF-8 cannot be a JSON line: an encoding problem, not a syntax one.
  await withLedger("", async (path) => {
    await Deno.writeFile(
      path,
      new Uint8Array([...encoder.encode(jsonl(row("t1"))), 0xff, 0xfe, 10]),
    );
    const error = await loadLedger(path).then(() => null, (e) => e);
    ok(error instanceof LedgerError);
    deepEqual([error.problems[0].code, error.problems[0].line], ["bad_encoding", 2]);
  });
});

Deno.test("loadLedger() rejects a blank line anywhere, including before the end", async () => {
  await assertProblem(jsonl(row("t1")) + "\n" + jsonl(row("t2")), {
    code: "blank_line",
    line: 2,
    field: "",
  });
  // Two newlines at the end leave an empty line 2 (a single final newline does not).
  await assertProblem(jsonl(row("t1")) + "\n", { code: "blank_line", line: 2, field: "" });
  await assertProblem(jsonl(row("t1")) + "\r\n", { code: "blank_line", line: 2, field: "" });
});

Deno.test("loadLedger() rejects schema violations, naming the field", async () => {
  const cases: [Record<string, unknown>, string, RegExp?][] = [
    // Wrong type.
    [row("t2", { resolved: "yes" }), "resolved"],
    [row("t2", { prompt_tokens: -5 }), "prompt_tokens"],
    [row("t2", { wall_ms: 1.5 }), "wall_ms"],
    // Unknown field (rows are strict), also inside caps.
    [row("t2", { passed: true }), "passed"],
    [row("t2", { caps: { tokens_cap: 5 } }), "caps.tokens_cap"],
    // A required seed-001 field missing.
    [(({ price_table_id: _, ...rest }) => rest)(row("t2")), "price_table_id"],
    // Enumerations.
    [row("t2", { stop_reason: "timeout" }), "stop_reason"],
    [
      row("t2", { status: "invalid", resolved: null, invalid_reason: "bad_luck" }),
      "invalid_reason",
    ],
    // The invariants: resolved is null exactly when invalid, and invalid rows say why.
    [
      row("t2", { status: "invalid", resolved: true, invalid_reason: "verifier_fault" }),
      "resolved",
      /must be null/,
    ],
    [row("t2", { status: "invalid", resolved: null }), "invalid_reason", /must be set/],
    [row("t2", { resolved: null }), "resolved", /must be true or false/],
    [row("t2", { invalid_reason: "verifier_fault" }), "invalid_reason", /must be null/],
  ];
  for (const [bad, field, message] of cases) {
    await assertProblem(jsonl(row("t1"), bad), {
      code: "schema_violation",
      line: 2,
      field,
      message,
    });
  }
});

Deno.test("loadLedger() rejects a duplicate episode_id, explicit or derived", async () => {
  // Derived: "<run_id>/<agent_id>/<task_id>/<attempt>" repeats on line 3.
  await assertProblem(jsonl(row("t1"), row("t2"), row("t1")), {
    code: "duplicate_episode_id",
    line: 3,
    field: "episode_id",
    message: /duplicate episode "r1\/a\/t1\/1"/,
  });
  // A second attempt is a different episode; an explicit id equal to a derived one is not.
  await assertProblem(
    jsonl(row("t1"), row("t1", { attempt: 2 }), row("t9", { episode_id: "r1/a/t1/2" })),
    {
      code: "duplicate_episode_id",
      line: 3,
      field: "episode_id",
    },
  );
});

Deno.test("loadLedger() rejects every break of the hash chain", async () => {
  const rows = [row("t1"), row("t2"), row("t3"), row("t4")];
  const lines = chainedLines(rows);
  const ledger = (ls: string[]) => ls.join("\n") + "\n";
  // The intact chain reads.
  await withLedger(ledger(lines), async (path) => equal((await loadLedger(path)).rows.length, 4));
  // Tampered line 2 (resolved flipped): line 2 still fits, line 3 no longer holds its hash.
  const tampered = [...lines];
  tampered[1] = tampered[1].replace('"resolved":true', '"resolved":false');
  await assertProblem(ledger(tampered), {
    code: "broken_hash_chain",
    line: 3,
    field: "prev_sha256",
    message: new RegExp(
      `expected "${lineSha256(encoder.encode(tampered[1]))}" \\(SHA-256 of line 2\\)`,
    ),
  });
  // prev_sha256 missing mid-ledger.
  const missing = [...lines];
  missing[2] = JSON.stringify(rows[2]);
  await assertProblem(ledger(missing), {
    code: "broken_hash_chain",
    line: 3,
    field: "prev_sha256",
    message: /missing in a hash-chained ledger/,
  });
  // A deleted row: line 2 of the shortened ledger points at the deleted row.
  await assertProblem(ledger([lines[0], lines[2], lines[3]]), {
    code: "broken_hash_chain",
    line: 2,
    field: "prev_sha256",
  });
  // A deleted first row: the new first row must have null.
  await assertProblem(ledger(lines.slice(1)), {
    code: "broken_hash_chain",
    line: 1,
    field: "prev_sha256",
    message: /must be null on the first row/,
  });
  // Reordered rows.
  await assertProblem(ledger([lines[0], lines[2], lines[1], lines[3]]), {
    code: "broken_hash_chain",
    line: 2,
    field: "prev_sha256",
  });
  // An unchained ledger may not start carrying the field halfway.
  await assertProblem(
    jsonl(row("t1"), {
      ...row("t2"),
      prev_sha256: lineSha256(encoder.encode(JSON.stringify(row("t1")))),
    }),
    {
      code: "broken_hash_chain",
      line: 2,
      field: "prev_sha256",
      message: /the first row carries no hash chain/,
    },
  );
});

Deno.test("loadLedger() names the file when it cannot be opened", async () => {
  const error = await loadLedger("/nonexistent/ledger.jsonl").then(() => null, (e) => e);
  ok(error instanceof LedgerError);
  deepEqual(
    { code: error.problems[0].code, file: error.problems[0].file, line: error.problems[0].line },
    { code: "io_error", file: "/nonexistent/ledger.jsonl", line: 0 },
  );
});

Deno.test("loadLedger() in lenient mode lists every problem and accounts for every line", async () => {
  const good = chainedLines([row("t1"), row("t2"), row("t3"), row("t4"), row("t5"), row("t6")]);
  const lines = [
    good[0], // 1 ok
    "{oops", // 2 malformed (and so line 3's predecessor hash is of "{oops")
    good[2], // 3 broken chain: its prev is good[1]'s hash
    "", // 4 blank
    JSON.stringify({ ...JSON.parse(good[4]), resolved: "no" }), // 5 schema violation
    good[5], // 6 broken chain (line 5 was altered)
  ];
  await withLedger(lines.join("\n") + "\n", async (path) => {
    const ledger = await loadLedger(path, { lenient: true });
    deepEqual(ledger.problems.map((p) => [p.line, p.code, p.field, p.file === path]), [
      [2, "malformed_json", "", true],
      [3, "broken_hash_chain", "prev_sha256", true],
      [4, "blank_line", "", true],
      [5, "schema_violation", "resolved", true],
      [6, "broken_hash_chain", "prev_sha256", true],
    ]);
    deepEqual(ledger.rows.map((r) => r.task_id), ["t1"]);
    // Nothing dropped silently: every line is a row or a listed problem.
    equal(ledger.rows.length + ledger.problems.length, ledger.lines);
    equal(ledger.valid_rows, 1);
  });
  // A duplicate in lenient mode: the first occurrence is kept, the second listed.
  await withLedger(jsonl(row("t1"), row("t2"), row("t1", { resolved: false })), async (path) => {
    const ledger = await loadLedger(path, { lenient: true });
    deepEqual(ledger.rows.map((r) => r.resolved), [true, true]);
    deepEqual(ledger.problems.map((p) => [p.line, p.code]), [[3, "duplicate_episode_id"]]);
    equal(ledger.rows.length + ledger.problems.length, ledger.lines);
  });
});

Deno.test("loadLedgerTable() finds duplicates by the ids it reads back from its rows, past bad lines", async () => {
  // The duplicate check keeps a hash and a row index per id and reads the id back from the
  // table: the indices must stay aligned when lines are left out (a bad line, a duplicate).
  const lines = [row("t1"), null, row("t2"), row("t1"), row("t3"), row("t2")]
    .map((r) => r === null ? "{not json" : JSON.stringify(r));
  await withLedger(lines.join("\n") + "\n", async (path) => {
    const ledger = await loadLedgerTable(path, { lenient: true });
    deepEqual([...ledger.rows].map((r) => r.task_id), ["t1", "t2", "t3"]);
    deepEqual([...ledger.row_lines], [1, 3, 5]);
    deepEqual(ledger.problems.map((p) => [p.line, p.code]), [
      [2, "malformed_json"],
      [4, "duplicate_episode_id"],
      [6, "duplicate_episode_id"],
    ]);
  });
});

Deno.test("loadLedger() loads the seed-001 minimal rows unchanged with the documented defaults", async () => {
  const raw = (await Deno.readTextFile(SAMPLE)).trimEnd().split("\n").map((line) =>
    JSON.parse(line)
  );
  const ledger = await loadLedger(SAMPLE);
  equal(ledger.chained, false);
  equal(ledger.rows.length, 8);
  deepEqual(ledger.problems, []);
  ledger.rows.forEach((parsed, i) => {
    const r = raw[i];
    // Every field of the sample survives as written...
    for (const key of Object.keys(r)) deepEqual(parsed[key as keyof typeof parsed], r[key], key);
    // ...and the absent ones take the defaults documented in analysis/schema/records.ts.
    deepEqual(parsed, {
      ...r,
      schema_version: 1,
      episode_id: `${r.run_id}/${r.agent_id}/${r.task_id}/1`,
      attempt: 1,
      lane: "default",
      status: "scored",
      invalid_reason: null,
      stop_reason: "completed",
      model_calls: null,
      caps: { token_cap: null, step_cap: null, wall_ms_cap: null },
      evidence: null,
      environment: null,
      artifact_digest: null,
      started_at: null,
      finished_at: null,
      notes: "",
    });
    ok(!("prev_sha256" in parsed));
  });
  // Seed 001: agent a resolves 3 of 4, agent b 2 of 4.
  const resolved = (agent: string) =>
    ledger.rows.filter((r) => r.agent_id === agent && r.resolved).length;
  deepEqual([resolved("a"), resolved("b")], [3, 2]);
});
