/**
 * Loading a plan (seeds 002 and 003): the file through the strict
 * {@link Plan} schema, the checks the schema cannot express, and its hash
 * against the published one.
 *
 * @module
 */
import { canonicalJson } from "../analysis/canonical_json.ts";
import { ioError, LedgerError } from "../analysis/ledger_error.ts";
import { Plan } from "../analysis/schema/records.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { readInput } from "./input_file.ts";
import { fieldProblem, type Loaded, parseJsonFile, refuseRepeatedId } from "./json_file.ts";

/** Options of {@link loadPlan}. */
export interface LoadPlanOptions {
  /**
   * The published SHA-256 of the plan (`run --plan-sha256`); takes the place
   * of the `<plan>.sha256` file beside it.
   */
  expectedSha256?: string;
  /**
   * Refuse a plan whose hash cannot be checked (neither `expectedSha256` nor
   * a `.sha256` file) and one whose bytes are not the canonical form
   * `freeze` writes: what the runner requires before the first episode.
   */
  frozen?: boolean;
}

/** A plan as loaded: its path as given, its bytes' SHA-256 and the plan with defaults. */
export type LoadedPlan = Loaded<Plan>;

/** The file beside a plan that publishes its hash (`sha256sum` format), as `freeze` writes it. */
export function planSha256Path(path: string): string {
  return `${path}.sha256`;
}

/** The hash published in `<path>.sha256`, or null when there is no such file. */
async function publishedSha256(path: string): Promise<string | null> {
  const sidecar = planSha256Path(path);
  try {
    await Deno.lstat(sidecar);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw ioError(sidecar, error);
  }
  const text = new TextDecoder().decode(await readInput(sidecar));
  const hash = text.trim().split(/\s+/)[0] ?? "";
  if (!/^[0-9a-f]{64}$/.test(hash)) {
    throw new LedgerError([{
      code: "malformed_json",
      file: sidecar,
      line: 1,
      field: "",
      message:
        "must start with the plan's SHA-256 (64 lower-case hex digits), as sha256sum writes it",
    }]);
  }
  return hash;
}

/**
 * Task ids and agent ids unique; with lane weights, a weight for every
 * task's lane. The first problem in plan order is raised.
 */
function checkPlan(plan: Plan, path: string): void {
  const weighted = Object.keys(plan.lane_weights).length > 0;
  const taskAt = new Map<string, number>();
  plan.tasks.forEach((task, index) => {
    refuseRepeatedId(path, taskAt, { list: "tasks", what: "task", id: task.task_id, index });
    if (weighted && !(task.lane in plan.lane_weights)) {
      fieldProblem(
        path,
        `tasks.${index}.lane`,
        `lane "${task.lane}" has no entry in "lane_weights"`,
      );
    }
  });
  const agentAt = new Map<string, number>();
  plan.agents.forEach((agent, index) => {
    refuseRepeatedId(path, agentAt, { list: "agents", what: "agent", id: agent.agent_id, index });
  });
}

/**
 * Reads a plan and checks it.
 *
 * Checks: the file and its JSON (json_file.ts); the strict {@link Plan}
 * schema (an unknown key such as `tie_bnad` is an error, not a default
 * silently used); task ids and agent ids unique; with `lane_weights`, a
 * weight for every task's lane; and the hash: against `expectedSha256`
 * when given, else against the `<plan>.sha256` file when one is beside the
 * plan (a published hash that does not match is an error in every command,
 * seed 002: the plan is frozen before the first episode). With `frozen`,
 * a hash must be available and the bytes must be the canonical form
 * `freeze` writes. Cost: O(file).
 *
 * @param path a JSON file, as given
 * @param options `expectedSha256`, `frozen`
 * @returns the path, the SHA-256 of the bytes and the plan with every default applied
 * @throws {LedgerError} codes `io_error`, `bad_encoding`, `malformed_json`,
 *   `duplicate_key`, `number_out_of_range`, `schema_violation`, `hash_mismatch`
 * @example
 * ```ts
 * import { loadPlan } from "./plan.ts";
 * const plan = await loadPlan(new URL("../ledgers/examples/synthetic_plan.json", import.meta.url).pathname);
 * if (plan.value.tasks.length !== 84) throw new Error("seed 000: 28 tasks x 3");
 * ```
 */
export async function loadPlan(path: string, options: LoadPlanOptions = {}): Promise<LoadedPlan> {
  const bytes = await readInput(path);
  const sha256 = sha256Hex(bytes);
  const expected = options.expectedSha256 ?? await publishedSha256(path);
  const mismatch = (message: string): never => {
    throw new LedgerError([{ code: "hash_mismatch", file: path, line: 0, field: "", message }]);
  };
  if (expected === null) {
    if (options.frozen) {
      mismatch(
        `no "${
          planSha256Path(path)
        }" beside it to check its hash; pass the published hash with --plan-sha256`,
      );
    }
  } else if (sha256 !== expected) {
    const source = options.expectedSha256 === undefined
      ? `"${planSha256Path(path)}"`
      : "--plan-sha256";
    mismatch(
      `its SHA-256 is ${sha256}, but ${source} publishes ${expected}: the plan was changed after it was frozen`,
    );
  }
  const { value, text } = parseJsonFile(bytes, Plan, path);
  checkPlan(value, path);
  if (options.frozen && canonicalJson(value) !== text) {
    mismatch("it is not in the canonical form freeze writes (edited by hand?)");
  }
  return { path, sha256, value };
}
