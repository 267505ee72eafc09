import { deepEqual, equal, ok } from "node:assert/strict";
import { appendErratum } from "./errata_file.ts";
import { erratumLine } from "../analysis/errata.ts";
import { loadErrata } from "../inputs/errata.ts";
import { LedgerError, type LedgerProblem } from "../analysis/ledger_error.ts";

const AT = "2026-09-04T12:00:00Z";
const VOID = {
  kind: "void_summary",
  erratum_id: "e-1",
  created_at: AT,
  summary_sha256: "b".repeat(64),
  explanation: "the 89-point summary is void",
} as const;
const INVALIDATE = {
  kind: "invalidate_episode",
  erratum_id: "e-2",
  created_at: AT,
  episode_id: "r1/a/t3/1",
  invalid_reason: "verifier_fault",
  explanation: "verifier setup crashed",
} as const;

async function inTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function problemOf(promise: Promise<unknown>): Promise<LedgerProblem> {
  try {
    await promise;
  } catch (error) {
    ok(error instanceof LedgerError, String(error));
    return error.problems[0];
  }
  throw new Error("expected a LedgerError");
}

Deno.test("appendErratum() creates the file and appends canonical single-line rows", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/errata.jsonl`;
    deepEqual(await appendErratum(path, VOID), {
      line: 1,
      erratum: { ...VOID, schema_version: 1 },
    });
    const second = await appendErratum(path, INVALIDATE);
    equal(second.line, 2);
    // The bytes are exactly erratumLine() of each record, one per line.
    equal(await Deno.readTextFile(path), `${erratumLine(VOID)}\n${erratumLine(INVALIDATE)}\n`);
    const errata = await loadErrata(path);
    deepEqual(errata.entries.map((entry) => entry.erratum.erratum_id), ["e-1", "e-2"]);
  });
});

Deno.test("appendErratum() validates before writing and never touches the file on refusal", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/errata.jsonl`;
    await appendErratum(path, VOID);
    const before = await Deno.readTextFile(path);
    const bad = await problemOf(appendErratum(path, { ...INVALIDATE, invalid_reason: "bad_luck" }));
    deepEqual(
      { code: bad.code, file: bad.file, line: bad.line, field: bad.field },
      { code: "schema_violation", file: path, line: 2, field: "invalid_reason" },
    );
    const missing = await problemOf(
      appendErratum(path, { ...VOID, erratum_id: "e-3", explanation: undefined }),
    );
    equal(missing.field, "explanation");
    const duplicate = await problemOf(appendErratum(path, { ...INVALIDATE, erratum_id: "e-1" }));
    deepEqual(
      { code: duplicate.code, line: duplicate.line, field: duplicate.field },
      { code: "duplicate_erratum_id", line: 2, field: "erratum_id" },
    );
    ok(duplicate.message.includes("already exists on line 1"));
    const unknown = await problemOf(
      appendErratum(path, INVALIDATE, { episodes: new Set(["r1/a/t1/1"]) }),
    );
    deepEqual(
      { code: unknown.code, line: unknown.line, field: unknown.field },
      { code: "unknown_episode", line: 2, field: "episode_id" },
    );
    equal(await Deno.readTextFile(path), before);
    // With the episode known, it is appended.
    equal((await appendErratum(path, INVALIDATE, { episodes: new Set(["r1/a/t3/1"]) })).line, 2);
  });
});

Deno.test("appendErratum() terminates a last line that lacks its newline", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/errata.jsonl`;
    await Deno.writeTextFile(path, erratumLine(VOID));
    equal((await appendErratum(path, INVALIDATE)).line, 2);
    equal(await Deno.readTextFile(path), `${erratumLine(VOID)}\n${erratumLine(INVALIDATE)}\n`);
  });
});

Deno.test("appendErratum() refuses to append to a damaged errata file", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/errata.jsonl`;
    await Deno.writeTextFile(path, `${erratumLine(VOID)}\n{oops\n`);
    const problem = await problemOf(appendErratum(path, INVALIDATE));
    deepEqual([problem.code, problem.line], ["malformed_json", 2]);
    const io = await problemOf(appendErratum(`${dir}/missing/errata.jsonl`, VOID));
    deepEqual([io.code, io.file, io.line], ["io_error", `${dir}/missing/errata.jsonl`, 0]);
  });
});

Deno.test("appendErratum() refuses the same correction again, naming the line it repeats", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/errata.jsonl`;
    await appendErratum(path, VOID);
    await appendErratum(path, INVALIDATE);
    const before = await Deno.readTextFile(path);
    const again = { ...INVALIDATE, erratum_id: "e-3", created_at: "2026-09-05T00:00:00Z" };
    const repeat = await problemOf(appendErratum(path, again));
    deepEqual(repeat, {
      code: "duplicate_erratum_id",
      file: path,
      line: 3,
      field: "",
      message: 'erratum "e-3" repeats the correction on line 2 (erratum "e-2"): the same ' +
        'invalidate_episode of episode "r1/a/t3/1" again, which would change nothing; ' +
        "nothing was written",
    });
    equal(await Deno.readTextFile(path), before);
    // Another reason is another correction.
    equal((await appendErratum(path, { ...again, invalid_reason: "harness_error" })).line, 3);
  });
});
