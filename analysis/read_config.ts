/**
 * Reading the JSON configuration files of a run (the frozen plan and the
 * frozen price table) through their zod schemas, with the ledger reader's
 * error conventions: every problem names file, line and field.
 *
 * @module
 */
import type { z } from "zod";
import { ioError, LedgerError, type LedgerProblem } from "./ledger_error.ts";
import { Plan, PriceTable } from "./schema.ts";

async function readText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw ioError(path, error);
  }
}

/** The line of a JSON syntax error, from V8's "(line N column M)" suffix; 0 when absent. */
function syntaxErrorLine(message: string): number {
  const match = / \(line (\d+) column \d+\)$/.exec(message);
  return match === null ? 0 : Number(match[1]);
}

function parseConfig<S extends z.ZodType>(schema: S, text: string, file: string): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new LedgerError([{
      code: "malformed_json",
      file,
      line: syntaxErrorLine(message),
      field: "",
      message: `not valid JSON: ${message}`,
    }]);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new LedgerError([{
      code: "malformed_json",
      file,
      line: 0,
      field: "",
      message: "the file must hold one JSON object",
    }]);
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new LedgerError(parsed.error.issues.map((issue): LedgerProblem => {
    const keys = issue.code === "unrecognized_keys" ? (issue as { keys: string[] }).keys : [];
    return {
      code: "schema_violation",
      file,
      line: 0,
      field: [...issue.path, ...keys.slice(0, 1)].map(String).join("."),
      message: issue.message,
    };
  }));
}

function fail(file: string, field: string, message: string): never {
  throw new LedgerError([{ code: "schema_violation", file, line: 0, field, message }]);
}

/**
 * Reads a frozen plan (seeds 002 and 003) and checks it.
 *
 * Checks: JSON syntax (the problem carries the line V8 reports); the
 * {@link Plan} schema (every issue listed, field as a dotted path such as
 * `tasks.3.lane`); task ids and agent ids unique; and, when `lane_weights`
 * is not empty, a weight for every task's lane. Problems about the whole
 * file or a field carry line 0. Cost: O(file).
 *
 * @param path a JSON file
 * @returns the plan with every default applied
 * @throws {LedgerError} codes `io_error`, `malformed_json`, `schema_violation`
 * @example
 * ```ts
 * import { readPlan } from "./read_config.ts";
 * const plan = await readPlan(new URL("../ledgers/examples/synthetic_plan.json", import.meta.url).pathname);
 * if (plan.tasks.length === 0) throw new Error("a plan has tasks");
 * ```
 */
export async function readPlan(path: string): Promise<Plan> {
  const plan = parseConfig(Plan, await readText(path), path);
  const taskAt = new Map<string, number>();
  plan.tasks.forEach((task, i) => {
    const first = taskAt.get(task.task_id);
    if (first !== undefined) {
      fail(
        path,
        `tasks.${i}.task_id`,
        `duplicate task "${task.task_id}" (first at tasks.${first})`,
      );
    }
    taskAt.set(task.task_id, i);
    if (Object.keys(plan.lane_weights).length > 0 && !(task.lane in plan.lane_weights)) {
      fail(path, `tasks.${i}.lane`, `lane "${task.lane}" has no entry in "lane_weights"`);
    }
  });
  const agentAt = new Map<string, number>();
  plan.agents.forEach((agent, i) => {
    const first = agentAt.get(agent.agent_id);
    if (first !== undefined) {
      fail(
        path,
        `agents.${i}.agent_id`,
        `duplicate agent "${agent.agent_id}" (first at agents.${first})`,
      );
    }
    agentAt.set(agent.agent_id, i);
  });
  return plan;
}

/**
 * Reads a frozen price table (seed 001: money only through a frozen table)
 * through the {@link PriceTable} schema. Cost: O(file).
 *
 * @param path a JSON file
 * @returns the price table with every default applied
 * @throws {LedgerError} codes `io_error`, `malformed_json`, `schema_violation`
 */
export async function readPriceTable(path: string): Promise<PriceTable> {
  return parseConfig(PriceTable, await readText(path), path);
}
