import { deepEqual, equal, fail, ok } from "node:assert/strict";
import { EXAMPLE_AGENTS, writeExampleFiles } from "./generate_synthetic_ledger.ts";
import { SEED_000_LANES } from "./synthetic_ledger.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { loadPriceTable } from "../inputs/price_table.ts";
import { applyErrata } from "../analysis/errata.ts";
import { loadErrata } from "../inputs/errata.ts";
import { censoringSummary } from "../analysis/censoring.ts";
import { InvalidReason, StopReason } from "../analysis/schema/records.ts";

const EXAMPLES = new URL("../ledgers/examples/", import.meta.url).pathname;

Deno.test("writeExampleFiles() regenerates the committed examples byte for byte", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const written = await writeExampleFiles(dir);
    const drifted: string[] = [];
    for (const path of written) {
      const name = path.slice(dir.length + 1);
      let committed: Uint8Array | null = null;
      try {
        committed = await Deno.readFile(`${EXAMPLES}${name}`);
      } catch {
        committed = null;
      }
      const fresh = await Deno.readFile(path);
      if (
        committed === null || committed.length !== fresh.length ||
        !committed.every((b, i) => b === fresh[i])
      ) {
        drifted.push(`ledgers/examples/${name}`);
      }
    }
    if (drifted.length > 0) {
      fail(
        `Example files drifted from their generator: ${drifted.join(", ")}; regenerate them with ` +
          "deno task generate-examples (or: deno run --allow-write=ledgers/examples " +
          "tools/generate_synthetic_ledger.ts)",
      );
    }
    deepEqual(written.map((path) => path.slice(dir.length + 1)), [
      "synthetic_ledger.jsonl",
      "synthetic_plan.json",
      "price_table.json",
      "synthetic_errata.jsonl",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("exampleFiles() gives a ledger with every case the analyses must handle", async () => {
  const ledger = await loadLedger(`${EXAMPLES}synthetic_ledger.jsonl`);
  const plan = (await loadPlan(`${EXAMPLES}synthetic_plan.json`)).value;
  const rows = ledger.rows;
  equal(ledger.chained, true);
  ok(rows.length >= 300 && rows.length <= 600, `${rows.length} rows`);
  // Four agents, each over seed 000's lanes × 3 (A 12, B 18, C 9, D 15, E 12, F 12, G 6 scored rows).
  for (const agent of EXAMPLE_AGENTS) {
    const scored = rows.filter((r) => r.agent_id === agent.agent_id && r.status === "scored");
    deepEqual(
      SEED_000_LANES.map(({ lane }) => scored.filter((r) => r.lane === lane).length),
      SEED_000_LANES.map(({ tasks }) => tasks * 3),
    );
  }
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
  ok(rows.some((r) => r.attempt === 3), "a task needed three attempts");
  // Seed 000: a candidate that made no model call is a scored failure, not an invalid episode.
  ok(rows.some((r) => r.status === "scored" && r.model_calls === 0 && r.resolved === false));
  // Seed 003's three claims all occur.
  const claims = censoringSummary(rows, { policy: plan.censoring }).agents.map((a) => a.claim);
  deepEqual(new Set(claims), new Set(["headline", "both_labelled", "budget_adequacy_only"]));
  // Every row records the SHA-256 of the plan file it ran under.
  const planSha = sha256Hex(await Deno.readTextFile(`${EXAMPLES}synthetic_plan.json`));
  ok(rows.every((r) => r.environment?.plan_sha256 === planSha));
  // One frozen price table for the whole run, the one the plan names.
  const table = (await loadPriceTable(`${EXAMPLES}price_table.json`)).value;
  equal(table.price_table_id, plan.price_table_id);
  ok(rows.every((r) => r.price_table_id === table.price_table_id));
});

Deno.test("exampleFiles() errata apply cleanly: one of each kind", async () => {
  const ledger = await loadLedger(`${EXAMPLES}synthetic_ledger.jsonl`);
  const errata = await loadErrata(`${EXAMPLES}synthetic_errata.jsonl`);
  deepEqual(errata.entries.map((e) => e.erratum.kind), [
    "rescore_episode",
    "invalidate_episode",
    "void_summary",
  ]);
  const result = applyErrata(ledger.rows, errata);
  deepEqual(result.problems, []);
  deepEqual(
    result.applied.map((a) => [a.kind, a.before.resolved, a.after.status, a.after.resolved]),
    [
      ["rescore_episode", false, "scored", true],
      ["invalidate_episode", true, "invalid", null],
    ],
  );
  equal(result.voided_summaries.length, 1);
});
