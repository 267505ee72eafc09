import { createHash } from "node:crypto";
import {
  deepEqual,
  equal,
  notStrictEqual,
  ok,
  rejects,
  strictEqual,
  throws,
} from "node:assert/strict";
import { applyErrata, type ErrataFile, erratumLine } from "./errata.ts";
import { loadErrata } from "../inputs/errata.ts";
import { LedgerError, type LedgerProblem } from "./ledger_error.ts";
import { loadLedger } from "../inputs/ledger.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;
const AT = "2026-09-04T12:00:00Z";
const SUMMARY = "a".repeat(64);

const INVALIDATE = {
  kind: "invalidate_episode",
  erratum_id: "e-1",
  created_at: AT,
  episode_id: "r1/a/t3/1",
  invalid_reason: "verifier_fault",
  explanation: "verifier crashed in its setup phase: Permission denied",
} as const;
const RESCORE = {
  kind: "rescore_episode",
  erratum_id: "e-2",
  created_at: AT,
  episode_id: "r1/b/t2/1",
  resolved: true,
  explanation: "stored artifact re-verified with zero model calls",
} as const;
const VOID = {
  kind: "void_summary",
  erratum_id: "e-3",
  created_at: AT,
  summary_sha256: SUMMARY,
  explanation: "the 89-point summary is void",
} as const;

async function withFile<T>(text: string, body: (path: string) => Promise<T>): Promise<T> {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, text);
    return await body(path);
  } finally {
    await Deno.remove(path);
  }
}

function jsonl(...records: unknown[]): string {
  return records.map((record) => JSON.stringify(record)).join("\n") + "\n";
}

async function problemOf(path: string): Promise<LedgerProblem> {
  try {
    await loadErrata(path);
  } catch (e) {
    ok(e instanceof LedgerError);
    return e.problems[0];
  }
  throw new Error("expected loadErrata() to throw");
}

Deno.test("loadErrata() reads every kind in file order with the file's SHA-256", async () => {
  const text = jsonl(INVALIDATE, RESCORE, VOID);
  await withFile(text, async (path) => {
    const errata = await loadErrata(path);
    equal(errata.file, path);
    equal(errata.lines, 3);
    equal(errata.sha256, createHash("sha256").update(text).digest("hex"));
    deepEqual(errata.entries.map((entry) => [entry.line, entry.erratum.kind]), [
      [1, "invalidate_episode"],
      [2, "rescore_episode"],
      [3, "void_summary"],
    ]);
    // Defaults are filled in by the schema.
    equal(errata.entries[0].erratum.schema_version, 1);
    deepEqual(errata.problems, []);
  });
});

Deno.test("loadErrata() names file, line and field of each bad line", async () => {
  const cases: [string, Partial<LedgerProblem>][] = [
    [jsonl(INVALIDATE) + "{not json\n", { code: "malformed_json", line: 2, field: "" }],
    [jsonl(INVALIDATE) + "\n" + jsonl(RESCORE), { code: "blank_line", line: 2, field: "" }],
    [jsonl({ ...VOID, kind: "delete_episode" }), {
      code: "schema_violation",
      line: 1,
      field: "kind",
    }],
    [jsonl({ ...VOID, summary_sha256: "xyz" }), {
      code: "schema_violation",
      line: 1,
      field: "summary_sha256",
    }],
    [jsonl({ ...INVALIDATE, invalid_reason: "bad_luck" }), {
      code: "schema_violation",
      line: 1,
      field: "invalid_reason",
    }],
    [jsonl(RESCORE, { ...RESCORE, extra: 1 }), {
      code: "schema_violation",
      line: 2,
      field: "extra",
    }],
    [jsonl(INVALIDATE, RESCORE, { ...VOID, erratum_id: "e-1" }), {
      code: "duplicate_erratum_id",
      line: 3,
      field: "erratum_id",
    }],
  ];
  for (const [text, expected] of cases) {
    await withFile(text, async (path) => {
      const problem = await problemOf(path);
      deepEqual(
        { code: problem.code, file: problem.file, line: problem.line, field: problem.field },
        { ...expected, file: path },
        text,
      );
    });
  }
  await rejects(loadErrata("/nonexistent/errata.jsonl"), (error: unknown) => {
    ok(error instanceof LedgerError);
    equal(error.problems[0].code, "io_error");
    equal(error.problems[0].file, "/nonexistent/errata.jsonl");
    return true;
  });
});

Deno.test("loadErrata() in lenient mode lists every problem and keeps the good lines", async () => {
  const text = jsonl(INVALIDATE, { ...RESCORE, resolved: "yes" }, { ...VOID, erratum_id: "e-1" }) +
    "[]\n";
  await withFile(text, async (path) => {
    const errata = await loadErrata(path, { lenient: true });
    deepEqual(errata.entries.map((entry) => entry.line), [1]);
    deepEqual(errata.problems.map((p) => [p.line, p.code, p.field]), [
      [2, "schema_violation", "resolved"],
      [3, "duplicate_erratum_id", "erratum_id"],
      [4, "malformed_json", ""],
    ]);
    // Every line is accounted for: kept or listed.
    equal(errata.entries.length + errata.problems.length, errata.lines);
  });
});

function errataOf(...records: unknown[]): Promise<ErrataFile> {
  return withFile(jsonl(...records), (path) => loadErrata(path));
}

Deno.test("applyErrata() corrects copies, reports before/after and voided summaries", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const snapshot = structuredClone(rows);
  const read = await errataOf(INVALIDATE, RESCORE, VOID);
  // The reader refuses a summary voided twice (a repeated correction); an ErrataFile built
  // by hand may still hold one.
  const again = { line: 4, erratum: { ...read.entries[2].erratum, erratum_id: "e-4" } };
  const errata = { ...read, lines: 4, entries: [...read.entries, again] };
  const result = applyErrata(rows, errata);
  // The input rows are untouched.
  deepEqual(rows, snapshot);
  equal(result.errata_file, errata.file);
  equal(result.errata_sha256, errata.sha256);
  deepEqual(result.applied, [
    {
      erratum_id: "e-1",
      kind: "invalidate_episode",
      line: 1,
      episode_id: "r1/a/t3/1",
      before: { status: "scored", resolved: false, invalid_reason: null },
      after: { status: "invalid", resolved: null, invalid_reason: "verifier_fault" },
    },
    {
      erratum_id: "e-2",
      kind: "rescore_episode",
      line: 2,
      episode_id: "r1/b/t2/1",
      before: { status: "scored", resolved: false, invalid_reason: null },
      after: { status: "scored", resolved: true, invalid_reason: null },
    },
  ]);
  // The same summary voided twice is listed once.
  deepEqual(result.voided_summaries, [SUMMARY]);
  // Row 3 (a/t3) and row 6 (b/t2) are new objects; the other six are the input objects.
  equal(result.rows.length, 8);
  notStrictEqual([...result.rows][2], rows[2]);
  notStrictEqual([...result.rows][5], rows[5]);
  for (const i of [0, 1, 3, 4, 6, 7]) strictEqual([...result.rows][i], rows[i]);
  deepEqual([...result.rows][2], {
    ...rows[2],
    status: "invalid",
    resolved: null,
    invalid_reason: "verifier_fault",
  });
  // Agent a now 3 resolved of 3 scored, agent b 3 of 4 (hand count from the sample).
  const resolved = (agent: string) =>
    [...result.rows].filter((r) => r.agent_id === agent && r.resolved).length;
  equal(resolved("a"), 3);
  equal(resolved("b"), 3);
});

Deno.test("applyErrata() turns a null rescore into a verifier fault and chains errata", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const errata = await errataOf(
    { ...RESCORE, erratum_id: "x-1", episode_id: "r1/a/t1/1", resolved: null },
    // The episode is now invalid for verifier_fault, so a second rescore may repair it.
    { ...RESCORE, erratum_id: "x-2", episode_id: "r1/a/t1/1", resolved: false },
  );
  const result = applyErrata(rows, errata);
  deepEqual(result.applied.map((a) => [a.before, a.after]), [
    [
      { status: "scored", resolved: true, invalid_reason: null },
      { status: "invalid", resolved: null, invalid_reason: "verifier_fault" },
    ],
    [
      { status: "invalid", resolved: null, invalid_reason: "verifier_fault" },
      { status: "scored", resolved: false, invalid_reason: null },
    ],
  ]);
  equal([...result.rows][0].resolved, false);
  deepEqual(result.voided_summaries, []);
});

Deno.test("applyErrata() refuses unknown episodes and unrepairable rescores", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const unknown = await errataOf(VOID, { ...INVALIDATE, episode_id: "r1/c/t1/1" });
  throws(() => applyErrata(rows, unknown), (error: unknown) => {
    ok(error instanceof LedgerError);
    deepEqual(
      { ...error.problems[0], message: undefined },
      {
        code: "unknown_episode",
        file: unknown.file,
        line: 2,
        field: "episode_id",
        message: undefined,
      },
    );
    ok(error.message.includes('names episode "r1/c/t1/1", which is not in the ledger'));
    return true;
  });
  // Missing evidence is not cured by re-verifying: the rescore conflicts.
  const conflict = await errataOf(
    { ...INVALIDATE, episode_id: "r1/b/t1/1", invalid_reason: "evidence_missing" },
    { ...RESCORE, episode_id: "r1/b/t1/1" },
  );
  throws(() => applyErrata(rows, conflict), (error: unknown) => {
    ok(error instanceof LedgerError);
    equal(error.problems[0].code, "erratum_conflict");
    equal(error.problems[0].line, 2);
    return true;
  });
  // Lenient: both problems listed, the applicable errata still applied.
  const both = await errataOf(
    { ...INVALIDATE, episode_id: "r1/c/t1/1" },
    {
      ...INVALIDATE,
      erratum_id: "e-9",
      episode_id: "r1/b/t1/1",
      invalid_reason: "evidence_missing",
    },
    { ...RESCORE, episode_id: "r1/b/t1/1" },
  );
  const result = applyErrata(rows, both, { lenient: true });
  deepEqual(result.problems.map((p) => [p.line, p.code]), [[1, "unknown_episode"], [
    3,
    "erratum_conflict",
  ]]);
  deepEqual(result.applied.map((a) => a.erratum_id), ["e-9"]);
});

Deno.test("erratumLine() writes the parsed record on one line with sorted keys", () => {
  equal(
    erratumLine(VOID),
    '{"created_at":"2026-09-04T12:00:00Z","erratum_id":"e-3","explanation":"the 89-point summary is void",' +
      `"kind":"void_summary","schema_version":1,"summary_sha256":"${SUMMARY}"}`,
  );
  // rescore_episode fills its two digest defaults with null.
  ok(erratumLine(RESCORE).includes('"artifact_digest":null'));
  throws(() => erratumLine({ ...VOID, summary_sha256: "nope" } as never));
});

Deno.test("loadErrata() refuses a correction that repeats the latest one on its target", async () => {
  const later = "2026-09-05T08:00:00Z";
  // Same kind, episode and reason; another id, time and explanation: the same correction.
  const again = { ...INVALIDATE, erratum_id: "e-9", created_at: later, explanation: "again" };
  const problem = await withFile(jsonl(INVALIDATE, RESCORE, again), problemOf);
  deepEqual(problem, {
    code: "duplicate_erratum_id",
    file: problem.file,
    line: 3,
    field: "",
    message: 'erratum "e-9" repeats the correction on line 1 (erratum "e-1"): the same ' +
      'invalidate_episode of episode "r1/a/t3/1" again, which would change nothing',
  });
  // A voided summary voided again, whatever lies between.
  const voidAgain = await withFile(
    jsonl(VOID, INVALIDATE, { ...VOID, erratum_id: "e-8" }),
    problemOf,
  );
  deepEqual([voidAgain.line, voidAgain.code], [3, "duplicate_erratum_id"]);
  // Lenient: listed, and left out of the entries (applying it would change nothing).
  await withFile(jsonl(INVALIDATE, again), async (path) => {
    const errata = await loadErrata(path, { lenient: true });
    deepEqual(errata.entries.map((entry) => entry.erratum.erratum_id), ["e-1"]);
    deepEqual(errata.problems.map((p) => [p.line, p.code]), [[2, "duplicate_erratum_id"]]);
  });
});

Deno.test("loadErrata() keeps corrections that differ, or that restore an earlier state", async () => {
  const rescoreA = { ...RESCORE, erratum_id: "e-4", episode_id: "r1/a/t3/1" };
  const errata = await errataOf(
    INVALIDATE,
    // another reason on the same episode: a different change
    { ...INVALIDATE, erratum_id: "e-5", invalid_reason: "harness_error" },
    // the first reason again, after the second: it changes the row back
    { ...INVALIDATE, erratum_id: "e-6" },
    rescoreA,
    // the same verdict on another artifact: a different re-verification
    { ...rescoreA, erratum_id: "e-7", artifact_digest: `sha256:${"c".repeat(64)}` },
    // the same correction on another episode
    { ...INVALIDATE, erratum_id: "e-10", episode_id: "r1/a/t1/1" },
    VOID,
    { ...VOID, erratum_id: "e-11", summary_sha256: "b".repeat(64) },
  );
  deepEqual(
    errata.entries.map((entry) => entry.erratum.erratum_id),
    ["e-1", "e-5", "e-6", "e-4", "e-7", "e-10", "e-3", "e-11"],
  );
});
