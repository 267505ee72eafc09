import { deepEqual, equal, notEqual, ok, throws } from "node:assert/strict";
import {
  generateSyntheticLedger,
  SEED_000_LANES,
  SYNTHETIC_CAPS,
  syntheticLedgerPlan,
  writeSyntheticLedger,
} from "./synthetic_ledger.ts";
import { type Episode, InvalidReason, StopReason } from "../analysis/schema/records.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { scanLedger } from "../inputs/ledger.ts";
import { overCap } from "../analysis/classify_episode.ts";
import { ledgerValidator } from "../analysis/validate_ledger.ts";

const encoder = new TextEncoder();

async function* bytesOf(lines: Iterable<string>): AsyncGenerator<Uint8Array> {
  for (const line of lines) yield encoder.encode(line + "\n");
}

async function readAll(lines: string[]) {
  const rows: Episode[] = [];
  const scan = await scanLedger(
    { chunks: bytesOf(lines), file: "synthetic" },
    (row) => rows.push(row),
  );
  return { rows, scan };
}

Deno.test("generateSyntheticLedger() yields exactly the rows asked for, deterministically", () => {
  const options = { rows: 300, agents: 3, seed: 11 };
  const first = [...generateSyntheticLedger(options)];
  equal(first.length, 300);
  deepEqual([...generateSyntheticLedger(options)], first);
  notEqual([...generateSyntheticLedger({ ...options, seed: 12 })].join("\n"), first.join("\n"));
  // A prefix of a longer ledger: the stream does not depend on where it stops.
  deepEqual([...generateSyntheticLedger({ ...options, rows: 100 })], first.slice(0, 100));
  equal([...generateSyntheticLedger({ ...options, rows: 0 })].length, 0);
  throws(
    () => generateSyntheticLedger({ rows: -1, agents: 1, seed: 1 }),
    /"rows" must be an integer ≥ 0/,
  );
  throws(
    () => generateSyntheticLedger({ rows: 1, agents: 0, seed: 1 }),
    /"agents" must be an integer ≥ 1/,
  );
});

Deno.test("generateSyntheticLedger() writes a valid hash chain the strict reader accepts", async () => {
  const lines = [...generateSyntheticLedger({ rows: 2000, agents: 4, seed: 3 })];
  const { rows, scan } = await readAll(lines);
  equal(scan.chained, true);
  equal(rows.length, 2000);
  // The chain rule, checked independently of the reader: SHA-256 of the previous line's text.
  equal(JSON.parse(lines[0]).prev_sha256, null);
  for (let i = 1; i < lines.length; i++) {
    equal(JSON.parse(lines[i]).prev_sha256, sha256Hex(lines[i - 1]));
  }
  // Unchained ledgers carry no prev_sha256 at all.
  const plain = [...generateSyntheticLedger({ rows: 50, agents: 2, seed: 3, chained: false })];
  ok(plain.every((line) => !line.includes("prev_sha256")));
  equal((await readAll(plain)).scan.chained, false);
});

Deno.test("generateSyntheticLedger() covers every stop and invalid reason within the caps", async () => {
  const { rows } = await readAll([...generateSyntheticLedger({ rows: 6000, agents: 4, seed: 5 })]);
  const scoredStops = new Set(rows.filter((r) => r.status === "scored").map((r) => r.stop_reason));
  deepEqual([...scoredStops].sort(), [...StopReason.options].sort());
  const reasons = new Set(rows.filter((r) => r.status === "invalid").map((r) => r.invalid_reason));
  // Every reason but `unsupported_api` and `judge_fault`, which the generator does not draw
  // (DRAWN_INVALID_REASONS).
  deepEqual(
    [...reasons].sort(),
    InvalidReason.options.filter((reason) =>
      reason !== "unsupported_api" && reason !== "judge_fault"
    )
      .sort(),
  );
  deepEqual([...new Set(rows.map((r) => r.lane))].sort(), SEED_000_LANES.map((l) => l.lane));
  ok(rows.some((r) => r.attempt === 2), "an invalid attempt is rerun");
  // Spend never exceeds a cap, and the cap that stopped an episode is reached exactly.
  for (const row of rows) deepEqual(overCap(row, SYNTHETIC_CAPS), [], row.episode_id);
  ok(
    rows.filter((r) => r.stop_reason === "step_cap" && r.status === "scored").every((r) =>
      r.model_calls === 60
    ),
  );
  ok(rows.filter((r) => r.stop_reason === "wall_cap").every((r) => r.wall_ms === 300_000));
  // Invalid rows are never resolved; scored rows always are true or false (the schema's invariant).
  ok(rows.every((r) => (r.status === "invalid") === (r.resolved === null)));
});

Deno.test("generateSyntheticLedger() compact rows omit defaults; full rows carry everything", () => {
  const compact = [...generateSyntheticLedger({ rows: 400, agents: 2, seed: 9 })].map((l) =>
    JSON.parse(l)
  );
  for (const row of compact) {
    equal("attempt" in row, row.attempt !== undefined && row.attempt !== 1);
    equal("status" in row, row.status === "invalid");
    equal("stop_reason" in row, row.stop_reason !== undefined && row.stop_reason !== "completed");
    ok(!("evidence" in row) && !("episode_id" in row));
  }
  const full = JSON.parse(
    [...generateSyntheticLedger({ rows: 1, agents: 1, seed: 9, detail: "full" })][0],
  );
  ok(
    ["evidence", "environment", "caps", "started_at", "episode_id", "notes"].every((k) =>
      k in full
    ),
  );
});

Deno.test("syntheticLedgerPlan() is the plan the large ledger follows", async () => {
  const options = { rows: 1000, agents: 4, seed: 21 };
  const plan = syntheticLedgerPlan(options);
  // ceil(1000 / 4) = 250 tasks, 4 agents, seed 000's lane weights.
  equal(plan.tasks.length, 250);
  deepEqual(plan.agents.map((a) => a.agent_id), ["agent-01", "agent-02", "agent-03", "agent-04"]);
  deepEqual(plan.lane_weights, { A: 8, B: 24, C: 12, D: 20, E: 16, F: 16, G: 4 });
  const validator = ledgerValidator(plan);
  const scan = await scanLedger(
    { chunks: bytesOf(generateSyntheticLedger(options)), file: "bench" },
    validator.add,
  );
  const report = validator.finish(scan);
  // Reruns push the last tasks past the 1000-row stop: only those may be missing, nothing else is wrong.
  const codes = new Set(report.findings.map((f) => f.code));
  ok(
    [...codes].every((c) => ["invalid_attempt", "missing_task", "row_count"].includes(c)),
    [...codes].join(),
  );
  // Rows run task by task, so the missing ones are the tail: the task of the last row (for the
  // agents after it) and every later task (for all four agents).
  const last = Number(JSON.parse([...generateSyntheticLedger(options)].at(-1)!).task_id.slice(1));
  const missing = report.findings.filter((f) => f.code === "missing_task").map((f) =>
    Number(f.task_id!.slice(1))
  );
  ok(missing.every((task) => task >= last), missing.join());
  equal(missing.filter((task) => task > last).length, (250 - last) * 4);
});

Deno.test("writeSyntheticLedger() streams the generator's lines to a file", async () => {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    const options = { rows: 5000, agents: 4, seed: 2 };
    const written = await writeSyntheticLedger(path, options);
    const text = await Deno.readTextFile(path);
    equal(text, [...generateSyntheticLedger(options)].map((line) => line + "\n").join(""));
    deepEqual(written, { path, rows: 5000, bytes: encoder.encode(text).length });
  } finally {
    await Deno.remove(path);
  }
});
