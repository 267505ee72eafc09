/**
 * Generates the committed synthetic examples under `ledgers/examples/`
 * (`deno task generate-examples`): a hash-chained ledger of four invented
 * agents over seed 000's seven lanes, its frozen plan, its price table and
 * an errata file with one correction of each kind.
 *
 * Usage: `deno run --allow-write=ledgers/examples tools/generate_synthetic_ledger.ts [--out DIR]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { erratumLine } from "../analysis/errata.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { shuffleOnce } from "../analysis/shuffle_once.ts";
import type { PlannedTask } from "../analysis/schema/records.ts";
import {
  SEED_000_LANES,
  SYNTHETIC_CAPS,
  type SyntheticAgent,
  type SyntheticConfig,
  syntheticLedgerLines,
} from "./synthetic_ledger.ts";
import {
  DEFAULT_BOOTSTRAP,
  DEFAULT_CENSORING,
  DEFAULT_SPRT,
  DEFAULT_TIE_BAND,
} from "../analysis/defaults.ts";

/**
 * Seed of the example ledger's random stream, recorded in the plan's
 * `generator` member. Chosen so that the example covers every stop reason,
 * every invalid reason, a third attempt, a zero-call scored failure and all
 * three censoring claims.
 */
export const EXAMPLE_SEED = 20260921;
/** Seed of the one shuffle of the task order (seed 002: shuffled once with a published seed). */
export const EXAMPLE_ORDER_SEED = 7;
/** Each seed-000 lane contributes this many times its task count (28 × 3 = 84 tasks). */
const LANE_SCALE = 3;
const RUN_ID = "synthetic-2026-09";
const PRICE_TABLE_ID = "synthetic-usd-2026-09";

/** The four invented agents: one per censoring claim, and one in between. */
export const EXAMPLE_AGENTS: readonly SyntheticAgent[] = [
  {
    agent_id: "agent-alpha",
    skill: 0.7,
    censor_rate: 0.008,
    invalid_rate: 0.03,
    median_tokens: 30_000,
    median_steps: 18,
  },
  {
    agent_id: "agent-beta",
    skill: 0.6,
    censor_rate: 0.05,
    invalid_rate: 0.04,
    median_tokens: 18_000,
    median_steps: 14,
  },
  {
    agent_id: "agent-gamma",
    skill: 0.55,
    censor_rate: 0.2,
    invalid_rate: 0.03,
    median_tokens: 60_000,
    median_steps: 30,
  },
  {
    agent_id: "agent-delta",
    skill: 0.45,
    censor_rate: 0.06,
    invalid_rate: 0.05,
    median_tokens: 12_000,
    median_steps: 10,
  },
];

/** Seed 000's lanes × 3, ids like `B07`, shuffled once with {@link EXAMPLE_ORDER_SEED} (`shuffleOnce`). */
export function exampleTasks(): PlannedTask[] {
  const tasks: PlannedTask[] = SEED_000_LANES.flatMap(({ lane, tasks }) =>
    Array.from({ length: tasks * LANE_SCALE }, (_, i) => ({
      task_id: `${lane}${String(i + 1).padStart(2, "0")}`,
      lane,
    }))
  );
  return shuffleOnce(tasks, EXAMPLE_ORDER_SEED);
}

function exampleConfig(planSha256: string): SyntheticConfig {
  return {
    seed: EXAMPLE_SEED,
    run_id: RUN_ID,
    tasks: exampleTasks(),
    agents: EXAMPLE_AGENTS,
    caps: SYNTHETIC_CAPS,
    price_table_id: PRICE_TABLE_ID,
    detail: "full",
    chained: true,
    plan_sha256: planSha256,
  };
}

function examplePlan(tasks: PlannedTask[]): Record<string, unknown> {
  return {
    schema_version: 1,
    plan_id: RUN_ID,
    created_at: "2026-08-31T12:00:00Z",
    suite_id: `synthetic-seed-000-lanes-x${LANE_SCALE}`,
    suite_sha256: sha256Hex(JSON.stringify(tasks)),
    order_seed: EXAMPLE_ORDER_SEED,
    tasks,
    agents: EXAMPLE_AGENTS.map((agent) => ({
      agent_id: agent.agent_id,
      image_digest: `sha256:${sha256Hex(`image:${agent.agent_id}`)}`,
    })),
    lane_weights: Object.fromEntries(SEED_000_LANES.map(({ lane, weight }) => [lane, weight])),
    caps: SYNTHETIC_CAPS,
    price_table_id: PRICE_TABLE_ID,
    stopping: {
      kind: "sprt",
      params: { ...DEFAULT_SPRT, n_cap: tasks.length },
    },
    invalid_policy: "rerun-task",
    max_attempts: 3,
    censoring: { ...DEFAULT_CENSORING },
    bootstrap: { ...DEFAULT_BOOTSTRAP },
    tie_band: DEFAULT_TIE_BAND,
    environment: {
      runner_version: "0.1.0-synthetic",
      verifier_image_digest: `sha256:${sha256Hex("image:verifier")}`,
    },
    generator: { script: "tools/generate_synthetic_ledger.ts", seed: EXAMPLE_SEED },
  };
}

function examplePriceTable(): Record<string, unknown> {
  return {
    schema_version: 1,
    price_table_id: PRICE_TABLE_ID,
    currency: "USD",
    default_rate: { prompt_per_million: 0.5, completion_per_million: 2 },
    agent_rates: {
      "agent-gamma": { prompt_per_million: 3, completion_per_million: 15 },
    },
  };
}

type Row = Record<string, unknown>;

function firstRow(rows: Row[], match: (row: Row) => boolean, what: string): Row {
  const row = rows.find(match);
  if (row === undefined) throw new Error(`Cannot build the example errata: no row is ${what}`);
  return row;
}

function exampleErrata(rows: Row[]): string {
  const rescored = firstRow(
    rows,
    (r) =>
      r.agent_id === "agent-beta" && r.status === "scored" && r.stop_reason === "completed" &&
      r.resolved === false,
    "a completed failure of agent-beta",
  );
  const tampered = firstRow(
    rows,
    (r) =>
      r.agent_id === "agent-delta" && r.lane === "D" && r.status === "scored" &&
      r.resolved === true,
    "a lane-D success of agent-delta",
  );
  const errata = [
    {
      kind: "rescore_episode" as const,
      erratum_id: "errata-0001",
      created_at: "2026-09-05T09:00:00Z",
      episode_id: String(rescored.episode_id),
      resolved: true,
      verifier_image_digest: `sha256:${sha256Hex("image:verifier-fixed")}`,
      artifact_digest: rescored.artifact_digest as string,
      explanation:
        "The verifier failed in its setup phase (Permission denied) and the runner counted the " +
        "exit code as a model failure; the stored artifact was re-verified with the fixed verifier, " +
        "zero model calls, and passes",
    },
    {
      kind: "invalidate_episode" as const,
      erratum_id: "errata-0002",
      created_at: "2026-09-05T09:05:00Z",
      episode_id: String(tampered.episode_id),
      invalid_reason: "workspace_tampered" as const,
      explanation:
        "The runner copied a generator metadata file into the candidate workspace before the " +
        "episode; the observation is not valid",
    },
    {
      kind: "void_summary" as const,
      erratum_id: "errata-0003",
      created_at: "2026-09-05T09:10:00Z",
      summary_sha256: sha256Hex(
        "synthetic summary published 2026-09-04, before errata-0001 and errata-0002",
      ),
      explanation:
        "The summary published on 2026-09-04 counted a verifier fault as a model failure; it is " +
        "kept and marked void",
    },
  ];
  return errata.map((erratum) => erratumLine(erratum) + "\n").join("");
}

/** One example file and its exact contents. */
export interface ExampleFile {
  /** File name inside `ledgers/examples/`. */
  name: string;
  text: string;
}

/**
 * The four example files with their exact bytes: `synthetic_ledger.jsonl`
 * (hash-chained, full rows, each recording the plan file's SHA-256 in
 * `environment.plan_sha256`), `synthetic_plan.json` and `price_table.json`
 * (canonical JSON), `synthetic_errata.jsonl` (one rescore, one invalidation,
 * one voided summary). Deterministic: no clock, seeded randomness only.
 *
 * @returns the files in a fixed order
 */
export function exampleFiles(): ExampleFile[] {
  const plan = canonicalJson(examplePlan(exampleTasks()));
  const lines = [...syntheticLedgerLines(exampleConfig(sha256Hex(plan)))];
  const rows = lines.map((line) => JSON.parse(line) as Row);
  return [
    { name: "synthetic_ledger.jsonl", text: lines.map((line) => line + "\n").join("") },
    { name: "synthetic_plan.json", text: plan },
    { name: "price_table.json", text: canonicalJson(examplePriceTable()) },
    { name: "synthetic_errata.jsonl", text: exampleErrata(rows) },
  ];
}

/**
 * Writes {@link exampleFiles} into `dir` (created if needed).
 *
 * @param dir target folder (`ledgers/examples` by default from the command line)
 * @returns the paths written
 */
export async function writeExampleFiles(dir: string): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const file of exampleFiles()) {
    const path = `${dir}/${file.name}`;
    await Deno.writeTextFile(path, file.text);
    written.push(path);
  }
  return written;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { out: { type: "string", default: "ledgers/examples" }, help: { type: "boolean" } },
  });
  if (values.help) {
    console.log(
      "Usage: deno task generate-examples [--out DIR]\n\n" +
        "Regenerates the synthetic ledger, plan, price table and errata in ledgers/examples/.",
    );
  } else {
    for (const path of await writeExampleFiles(values.out)) console.log(`wrote ${path}`);
  }
}
