/**
 * Seeded synthetic ledgers: the committed example under `ledgers/examples/`
 * and the large ledgers the benchmarks read. Every random draw comes from
 * `seededRandom(seed)`, nothing reads the clock, and integers are the only
 * numbers written, so the same options always give the same bytes.
 *
 * The data are invented; only their shape follows the seeds: seed 000's seven
 * weighted lanes, valid failures and invalid evaluations (with reruns, seed
 * 002), seed 003's stop reasons and caps, seed 001's row fields.
 *
 * @module
 */
import { type Random, seededRandom } from "../analysis/seeded_random.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import {
  type Caps,
  type InvalidReason,
  Plan,
  type PlannedTask,
  type StopReason,
} from "../analysis/schema/records.ts";

/** Seed 000's lanes: tasks per lane and lane weight (points out of 100). */
export const SEED_000_LANES: readonly { lane: string; tasks: number; weight: number }[] = [
  { lane: "A", tasks: 4, weight: 8 },
  { lane: "B", tasks: 6, weight: 24 },
  { lane: "C", tasks: 3, weight: 12 },
  { lane: "D", tasks: 5, weight: 20 },
  { lane: "E", tasks: 4, weight: 16 },
  { lane: "F", tasks: 4, weight: 16 },
  { lane: "G", tasks: 2, weight: 4 },
];

/** Added to an agent's skill per lane: some lanes are harder (invented). */
const LANE_DIFFICULTY: Record<string, number> = {
  A: 0.15,
  B: 0,
  C: 0.05,
  D: -0.1,
  E: -0.15,
  F: 0.05,
  G: -0.2,
};

/** How an invented agent behaves. */
export interface SyntheticAgent {
  agent_id: string;
  /** Probability of resolving a completed task before the lane adjustment. */
  skill: number;
  /** Probability that a scored attempt stops before completing. */
  censor_rate: number;
  /** Probability that an attempt is invalid (a harness or measurement failure). */
  invalid_rate: number;
  /** Median tokens of a completed episode. */
  median_tokens: number;
  /** Median model calls of a completed episode. */
  median_steps: number;
}

/** Everything that determines a synthetic ledger. */
export interface SyntheticConfig {
  seed: number | string;
  run_id: string;
  /** Tasks in their pre-registered order; each is attempted by every agent. */
  tasks: readonly PlannedTask[];
  agents: readonly SyntheticAgent[];
  /** Caps every row records and respects. */
  caps: Caps;
  price_table_id: string;
  /**
   * `"full"` writes every field (evidence, environment, timestamps, notes);
   * `"compact"` writes the seed-001 fields plus lane and model_calls, and
   * attempt, status, invalid_reason and stop_reason only where they differ
   * from the schema's defaults (1, scored, null, completed).
   */
  detail: "full" | "compact";
  /** Whether rows carry `prev_sha256` (SHA-256 of the previous line's bytes; null on the first). */
  chained: boolean;
  /** Stop after exactly this many rows (default: run every task to the end). */
  rows?: number;
  /** Start of the run in ms since the epoch (for timestamps); default 2026-09-01T08:00:00Z. */
  start_ms?: number;
  /** SHA-256 of the plan file, recorded in `environment.plan_sha256` of full rows (default null). */
  plan_sha256?: string | null;
}

/**
 * The invalid reasons the generator draws from. `unsupported_api` (issue 8)
 * and `judge_fault` (issue 14) are not drawn: every analysis counts invalid
 * reasons alike, and drawing them would reshuffle every later draw, hence
 * every committed example file.
 */
export const DRAWN_INVALID_REASONS: readonly InvalidReason[] = [
  "verifier_fault",
  "evidence_missing",
  "harness_error",
  "workspace_tampered",
  "provider_fault",
];

/** Censored stop reasons and their relative frequencies (invented). */
const CENSORED: readonly [StopReason, number][] = [
  ["step_cap", 0.3],
  ["token_cap", 0.3],
  ["wall_cap", 0.15],
  ["rate_limited", 0.15],
  ["error", 0.1],
];

/** Attempts after which an agent's invalid streak ends (the rerun is scored). */
const MAX_INVALID_ATTEMPTS = 2;
/** Probability that a completed scored episode made zero model calls (seed 000: a scored failure). */
const ZERO_CALL_RATE = 0.004;

function randomHex(random: Random): string {
  let out = "";
  for (let i = 0; i < 8; i++) {
    out += Math.floor(random() * 0x100000000).toString(16).padStart(8, "0");
  }
  return out;
}

function normal(random: Random): number {
  // Box-Muller; 1 - u keeps the logarithm finite.
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function clampInt(x: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, Math.round(x)));
}

function pick<T>(random: Random, weighted: readonly [T, number][]): T {
  let total = 0;
  for (const [, w] of weighted) total += w;
  let r = random() * total;
  for (const [value, w] of weighted) {
    r -= w;
    if (r < 0) return value;
  }
  return weighted[weighted.length - 1][0];
}

interface Spend {
  prompt_tokens: number;
  completion_tokens: number;
  tool_calls: number;
  model_calls: number;
  wall_ms: number;
}

/** Spend of one episode that stopped for `stop`, within every cap (equal only at the cap that stopped it). */
function spendFor(random: Random, agent: SyntheticAgent, stop: StopReason, caps: Caps): Spend {
  const tokenCap = caps.token_cap ?? Number.MAX_SAFE_INTEGER;
  const stepCap = caps.step_cap ?? Number.MAX_SAFE_INTEGER;
  const wallCap = caps.wall_ms_cap ?? Number.MAX_SAFE_INTEGER;
  let tokens = clampInt(agent.median_tokens * Math.exp(0.6 * normal(random)), 200, tokenCap - 1);
  let steps = clampInt(agent.median_steps * Math.exp(0.4 * normal(random)), 1, stepCap - 1);
  let wall = clampInt(steps * (2500 + 3500 * random()), 1000, wallCap - 1);
  if (stop === "token_cap") tokens = tokenCap - Math.floor(random() * Math.min(2000, tokenCap));
  if (stop === "step_cap") steps = stepCap;
  if (stop === "wall_cap") wall = wallCap;
  if (stop === "rate_limited" || stop === "error") {
    const part = 0.2 + 0.6 * random();
    tokens = Math.max(1, Math.round(tokens * part));
    steps = Math.max(1, Math.round(steps * part));
    wall = Math.max(1, Math.round(wall * part));
  }
  const prompt = Math.round(tokens * (0.7 + 0.15 * random()));
  return {
    prompt_tokens: prompt,
    completion_tokens: tokens - prompt,
    tool_calls: clampInt(steps * (0.6 + 0.6 * random()), 0, Number.MAX_SAFE_INTEGER),
    model_calls: steps,
    wall_ms: wall,
  };
}

const INVALID_STOP: Record<InvalidReason, StopReason | "provider"> = {
  verifier_fault: "completed",
  evidence_missing: "completed",
  workspace_tampered: "completed",
  harness_error: "error",
  provider_fault: "provider",
  unsupported_api: "completed",
  judge_fault: "completed",
};

const INVALID_NOTE: Record<InvalidReason, string> = {
  verifier_fault: "verifier setup phase failed (Permission denied) before any check ran",
  evidence_missing: "relay recorded no server-reported usage for this episode",
  harness_error: "runner failed to copy the task workspace into the container",
  workspace_tampered: "workspace digest changed before the candidate started",
  provider_fault: "provider returned 429 after retries were exhausted",
  unsupported_api:
    "relay refused every request: the agent speaks an API the harness does not meter",
  judge_fault: "the LLM judge's reply scored no dimension of the rubric",
};

/**
 * The lines of a synthetic ledger, without their `\n`, one attempt per line.
 *
 * Run order: task by task in plan order, each agent in turn; an invalid
 * attempt (probability `invalid_rate`, at most two in a row) is rerun at
 * once as the next attempt (seed 002: invalid attempts are rerun in the same
 * order). A scored attempt is censored with probability `censor_rate`
 * (stop reason drawn from step, token, wall cap, rate limit, error);
 * a completed one resolves with probability `skill` + the lane's difficulty
 * (clamped to [0.02, 0.98]); a censored one resolves with probability 0.1.
 * Spend never exceeds a cap; it equals the cap that stopped the episode.
 * Cost: O(rows); memory O(1) besides the config.
 *
 * @param config everything that determines the bytes
 * @returns a generator of lines (strings, no newline)
 */
export function* syntheticLedgerLines(config: SyntheticConfig): Generator<string> {
  const random = seededRandom(config.seed);
  const limit = config.rows ?? Infinity;
  const full = config.detail === "full";
  const start = config.start_ms ?? Date.UTC(2026, 8, 1, 8, 0, 0);
  const clocks = config.agents.map(() => start);
  const images = config.agents.map((agent) => `sha256:${sha256Hex(`image:${agent.agent_id}`)}`);
  const verifierImage = `sha256:${sha256Hex("image:verifier")}`;
  const taskRandom = seededRandom(`${config.seed}:tasks`);
  let previous: string | null = null;
  let written = 0;
  for (let t = 0; t < config.tasks.length; t++) {
    const task = config.tasks[t];
    const taskSeed = Math.floor(taskRandom() * 2 ** 31);
    for (let a = 0; a < config.agents.length; a++) {
      const agent = config.agents[a];
      for (let attempt = 1;; attempt++) {
        if (written >= limit) return;
        const invalid = attempt <= MAX_INVALID_ATTEMPTS && random() < agent.invalid_rate;
        let reason: InvalidReason | null = null;
        let stop: StopReason;
        let resolved: boolean | null;
        let zeroCalls = false;
        if (invalid) {
          reason = DRAWN_INVALID_REASONS[Math.floor(random() * DRAWN_INVALID_REASONS.length)];
          const mapped = INVALID_STOP[reason];
          stop = mapped === "provider" ? (random() < 0.5 ? "rate_limited" : "error") : mapped;
          resolved = null;
        } else if (random() < agent.censor_rate) {
          stop = pick(random, CENSORED);
          resolved = random() < 0.1;
        } else {
          stop = "completed";
          zeroCalls = random() < ZERO_CALL_RATE;
          const p = Math.max(0.02, Math.min(0.98, agent.skill + (LANE_DIFFICULTY[task.lane] ?? 0)));
          resolved = zeroCalls ? false : random() < p;
        }
        const spend = zeroCalls
          ? { prompt_tokens: 0, completion_tokens: 0, tool_calls: 0, model_calls: 0, wall_ms: 1500 }
          : spendFor(random, agent, stop, config.caps);
        const row: Record<string, unknown> = {};
        if (full) row.schema_version = 1;
        row.run_id = config.run_id;
        row.agent_id = agent.agent_id;
        row.task_id = task.task_id;
        row.seed = taskSeed;
        if (full) row.episode_id = `${config.run_id}/${agent.agent_id}/${task.task_id}/${attempt}`;
        if (full || attempt !== 1) row.attempt = attempt;
        row.lane = task.lane;
        if (full || invalid) row.status = invalid ? "invalid" : "scored";
        row.resolved = resolved;
        if (full || invalid) row.invalid_reason = reason;
        if (full || stop !== "completed") row.stop_reason = stop;
        row.prompt_tokens = spend.prompt_tokens;
        row.completion_tokens = spend.completion_tokens;
        row.tool_calls = spend.tool_calls;
        row.model_calls = spend.model_calls;
        row.wall_ms = spend.wall_ms;
        if (full) row.caps = config.caps;
        row.price_table_id = config.price_table_id;
        if (full) {
          const noEvidence = reason === "evidence_missing";
          row.evidence = {
            server_model_id: noEvidence || zeroCalls ? null : `model-${agent.agent_id}-2026-08`,
            usage_source: noEvidence ? "absent" : "server",
            request_fingerprint: noEvidence || zeroCalls ? null : randomHex(random),
          };
          row.environment = {
            agent_image_digest: images[a],
            verifier_image_digest: verifierImage,
            runner_version: "0.1.0-synthetic",
            sandbox: "docker",
            plan_sha256: config.plan_sha256 ?? null,
          };
          const artifact = reason === "harness_error" || reason === "provider_fault"
            ? null
            : randomHex(random);
          row.artifact_digest = artifact === null ? null : `sha256:${artifact}`;
          const began = clocks[a];
          const ended = began + spend.wall_ms;
          clocks[a] = ended + 1000 + Math.floor(random() * 4000);
          row.started_at = new Date(began).toISOString();
          row.finished_at = new Date(ended).toISOString();
        }
        if (config.chained) row.prev_sha256 = previous;
        if (full) {
          row.notes = reason !== null
            ? INVALID_NOTE[reason]
            : zeroCalls
            ? "candidate exited without a model call: a scored failure (seed 000)"
            : "";
        }
        const line = JSON.stringify(row);
        if (config.chained) previous = sha256Hex(line);
        written++;
        yield line;
        if (!invalid) break;
      }
    }
  }
}

/** Options for {@link generateSyntheticLedger}. */
export interface LargeLedgerOptions {
  /** Exactly this many rows are generated. */
  rows: number;
  /** Number of agents (`agent-01`, `agent-02`, ...), at least 1. */
  agents: number;
  seed: number | string;
  /** Hash-chain the rows (default true). */
  chained?: boolean;
  /** Row detail (default `"compact"`: about 310 bytes a row chained, 230 unchained). */
  detail?: "full" | "compact";
}

/** The caps of every synthetic ledger: seed 002's 300 s per task, invented token and step caps. */
export const SYNTHETIC_CAPS: Caps = { token_cap: 200_000, step_cap: 60, wall_ms_cap: 300_000 };

function largeConfig(options: LargeLedgerOptions): SyntheticConfig {
  if (!(Number.isInteger(options.rows) && options.rows >= 0)) {
    throw new RangeError(
      `Cannot generate a ledger: "rows" must be an integer ≥ 0, found ${options.rows}`,
    );
  }
  if (!(Number.isInteger(options.agents) && options.agents >= 1)) {
    throw new RangeError(
      `Cannot generate a ledger: "agents" must be an integer ≥ 1, found ${options.agents}`,
    );
  }
  const taskCount = Math.max(1, Math.ceil(options.rows / options.agents));
  const random = seededRandom(`${options.seed}:agents`);
  const agents: SyntheticAgent[] = Array.from({ length: options.agents }, (_, i) => ({
    agent_id: `agent-${String(i + 1).padStart(2, "0")}`,
    skill: 0.35 + 0.4 * random(),
    censor_rate: 0.01 + 0.12 * random(),
    invalid_rate: 0.01 + 0.04 * random(),
    median_tokens: Math.round(8000 + 40000 * random()),
    median_steps: Math.round(8 + 20 * random()),
  }));
  return {
    seed: options.seed,
    run_id: "bench",
    tasks: largeTasks(taskCount),
    agents,
    caps: SYNTHETIC_CAPS,
    price_table_id: "synth-usd",
    detail: options.detail ?? "compact",
    chained: options.chained ?? true,
    rows: options.rows,
  };
}

/** `count` tasks cycling through seed 000's lanes in proportion to their task counts. */
function largeTasks(count: number): PlannedTask[] {
  const cycle = SEED_000_LANES.flatMap(({ lane, tasks }) =>
    Array.from({ length: tasks }, () => lane)
  );
  return Array.from({ length: count }, (_, i) => ({
    task_id: `T${String(i + 1).padStart(7, "0")}`,
    lane: cycle[i % cycle.length],
  }));
}

/**
 * A large synthetic ledger for benchmarks, streamed line by line (no
 * newline): `options.rows` rows over `options.agents` agents, tasks
 * `T0000001`... cycling through seed 000's lanes, every stop reason and
 * invalid reason occurring at the generated rates. See
 * {@link syntheticLedgerLines} for the model. Deterministic in
 * `(rows, agents, seed, chained, detail)`. Cost: O(rows) time, O(1) memory;
 * about 1 µs-scale work per row plus one SHA-256 when chained.
 *
 * @param options row count, agent count, seed, chaining and detail
 * @returns a generator of exactly `options.rows` lines
 * @throws {RangeError} when `rows` or `agents` is not a valid count
 * @example
 * ```ts
 * import { generateSyntheticLedger } from "./synthetic_ledger.ts";
 * const lines = [...generateSyntheticLedger({ rows: 10, agents: 2, seed: 1 })];
 * if (lines.length !== 10 || JSON.parse(lines[0]).prev_sha256 !== null) throw new Error();
 * ```
 */
export function generateSyntheticLedger(options: LargeLedgerOptions): Generator<string> {
  return syntheticLedgerLines(largeConfig(options));
}

/**
 * The plan a {@link generateSyntheticLedger} ledger was generated under: its
 * tasks in order, its agents, seed 000's lane weights, the synthetic caps and
 * price table, fixed stopping. Rows stop at `options.rows`, so the last
 * planned tasks may have no row for some agents.
 *
 * @param options the same options given to {@link generateSyntheticLedger}
 * @returns the plan, parsed through the Plan schema (defaults applied)
 */
export function syntheticLedgerPlan(options: LargeLedgerOptions): Plan {
  const config = largeConfig(options);
  return Plan.parse({
    plan_id: `bench-${options.rows}-${options.agents}-${options.seed}`,
    suite_id: "synthetic-bench",
    order_seed: options.seed,
    tasks: config.tasks,
    agents: config.agents.map((agent) => ({ agent_id: agent.agent_id })),
    lane_weights: Object.fromEntries(SEED_000_LANES.map(({ lane, weight }) => [lane, weight])),
    caps: SYNTHETIC_CAPS,
    price_table_id: config.price_table_id,
    invalid_policy: "rerun-task",
  });
}

/** What {@link writeSyntheticLedger} wrote. */
export interface WrittenLedger {
  path: string;
  rows: number;
  bytes: number;
}

/**
 * Streams a {@link generateSyntheticLedger} ledger to a file, one `\n` after
 * every line, in batches of about 1 MB. Cost: O(rows) time, O(1 MB) memory.
 *
 * @param path the file to create or truncate
 * @param options as for {@link generateSyntheticLedger}
 * @returns the path, the number of rows and of bytes written
 */
export async function writeSyntheticLedger(
  path: string,
  options: LargeLedgerOptions,
): Promise<WrittenLedger> {
  const encoder = new TextEncoder();
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  let rows = 0;
  let bytes = 0;
  let batch: string[] = [];
  let batchChars = 0;
  const flush = async () => {
    const data = encoder.encode(batch.join(""));
    let done = 0;
    while (done < data.length) done += await file.write(data.subarray(done));
    bytes += data.length;
    batch = [];
    batchChars = 0;
  };
  try {
    for (const line of generateSyntheticLedger(options)) {
      batch.push(line, "\n");
      batchChars += line.length + 1;
      rows++;
      if (batchChars >= 1 << 20) await flush();
    }
    await flush();
  } finally {
    file.close();
  }
  return { path, rows, bytes };
}
