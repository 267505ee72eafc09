/**
 * A run table at field scale (issue 25): fourteen invented agents over
 * invented SWE-bench-style instances, in the shape of the public
 * SWE-Bench Pro run table a researcher imports with `import table` — one
 * row per attempt, a `model` column, long instance ids ending in commit
 * hashes, a `resolved` column, `turns`, and no token, time or cost
 * columns (that table records none). Three things in it are there to be
 * noticed: `orca-13b-2025-02` ran only 77% of the instances (23% missing),
 * `kestrel-coder-7b` ran 92%, and `heron-8b-2024-10` has a harness error on
 * one attempt in six (16.7% invalid, over the 10% band).
 *
 * Every number comes from {@link seededRandom} with {@link FIELD_SCALE_SEED}:
 * the same arguments give the same bytes.
 *
 * @module
 */
import { randomIndex, seededRandom } from "../analysis/seeded_random.ts";

/** Seed of the table's random stream. */
export const FIELD_SCALE_SEED = 20261202;

/** The column map `import table` reads the table with. */
export const FIELD_SCALE_MAP =
  "agent_id=model,task_id=instance_id,resolved=resolved,model_calls=turns";

/** The value map: `error` cells are harness errors (invalid, never the agent's failure). */
export const FIELD_SCALE_VALUES = "resolved=True:true,False:false,error:invalid/harness_error";

/** One invented agent of the table. */
export interface FieldScaleAgent {
  /** The `model` cell. */
  model: string;
  /** Probability of resolving an instance of average difficulty. */
  skill: number;
  /** Share of the instances the agent ran (the rest are missing). */
  coverage: number;
  /** Share of its attempts that are harness errors. */
  error_rate: number;
}

/** The fourteen agents, strongest first; names of varied length on purpose (table widths). */
export const FIELD_SCALE_AGENTS: readonly FieldScaleAgent[] = [
  { model: "northwind/albatross-large-thinking-2025-09", skill: 0.46, coverage: 1, error_rate: 0 },
  { model: "northwind/albatross-large-2025-05", skill: 0.43, coverage: 1, error_rate: 0.01 },
  { model: "orca-13b-2025-02", skill: 0.43, coverage: 0.77, error_rate: 0 },
  { model: "meridian-pro-1.5", skill: 0.41, coverage: 1, error_rate: 0 },
  { model: "meridian-flash-1.5", skill: 0.36, coverage: 1, error_rate: 0.02 },
  { model: "cobalt-xl", skill: 0.34, coverage: 1, error_rate: 0 },
  { model: "kestrel-coder-32b", skill: 0.31, coverage: 1, error_rate: 0 },
  { model: "kestrel-coder-7b", skill: 0.24, coverage: 0.92, error_rate: 0 },
  { model: "heron-8b-2024-10", skill: 0.22, coverage: 1, error_rate: 1 / 6 },
  { model: "lumen-open-70b-instruct", skill: 0.2, coverage: 1, error_rate: 0.01 },
  { model: "lumen-open-8b-instruct", skill: 0.14, coverage: 1, error_rate: 0 },
  { model: "tern-mini", skill: 0.12, coverage: 1, error_rate: 0 },
  { model: "petrel", skill: 0.09, coverage: 1, error_rate: 0.005 },
  { model: "wren-nano-2024-06", skill: 0.05, coverage: 1, error_rate: 0 },
];

const REPOS = [
  "ansible__ansible",
  "element-hq__element-web",
  "flipt-io__flipt",
  "future-architect__vuls",
  "gravitational__teleport",
  "internetarchive__openlibrary",
  "navidrome__navidrome",
  "protonmail__webclients",
  "qutebrowser__qutebrowser",
  "tutao__tutanota",
];

/** Lower-case hex of `length` digits drawn from `random`. */
function hex(random: () => number, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += "0123456789abcdef"[randomIndex(random, 16)];
  return out;
}

/**
 * The table's CSV text: a header, then one row per attempt that ran, agent
 * by agent, instance by instance. An instance's difficulty is shared by
 * every agent (attempts on one task are correlated, as on a real
 * benchmark); an agent resolves it with probability `skill` shifted by
 * that difficulty, clamped to [0.01, 0.99].
 *
 * @param instances how many instances (the public table has 730; tests use fewer)
 * @returns the CSV, LF line endings, ending in a line break
 * @example
 * ```ts
 * import { fieldScaleTable } from "./field_scale_table.ts";
 * const csv = fieldScaleTable(3);
 * console.assert(csv.startsWith("model,instance_id,resolved,turns\n"));
 * ```
 */
export function fieldScaleTable(instances: number): string {
  const random = seededRandom(FIELD_SCALE_SEED);
  const tasks = Array.from({ length: instances }, (_, i) => {
    const repo = REPOS[i % REPOS.length];
    return {
      id: `instance_${repo}-${hex(random, 40)}-v${hex(random, 40)}`,
      difficulty: random() - 0.5,
    };
  });
  const lines = ["model,instance_id,resolved,turns"];
  for (const agent of FIELD_SCALE_AGENTS) {
    for (const task of tasks) {
      const ran = random() < agent.coverage;
      const errored = random() < agent.error_rate;
      const p = Math.min(0.99, Math.max(0.01, agent.skill - 0.6 * task.difficulty));
      const resolved = random() < p;
      const turns = 5 + randomIndex(random, 95);
      if (!ran) continue;
      const verdict = errored ? "error" : resolved ? "True" : "False";
      lines.push(`${agent.model},${task.id},${verdict},${errored ? "" : turns}`);
    }
  }
  return lines.join("\n") + "\n";
}
