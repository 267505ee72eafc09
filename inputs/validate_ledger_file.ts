/**
 * Validating a ledger file against its frozen plan: the streaming reader
 * (ledger.ts) feeding the pure validator (analysis/validate_ledger.ts).
 *
 * @module
 */
import {
  ledgerValidator,
  type ValidateOptions,
  type ValidationReport,
} from "../analysis/validate_ledger.ts";
import type { Plan } from "../analysis/schema.ts";
import { scanLedgerFile } from "./ledger.ts";

/**
 * Validates a ledger against its frozen plan (seed 003, `validate`), reading
 * the ledger once, streaming and leniently, so that every problem is listed.
 *
 * Findings (severity in brackets; `ok` is true when there is no error):
 *
 * - reader problems [error]: malformed JSON, blank line, schema violation
 *   (which covers unknown stop reasons: the schema holds the enum),
 *   duplicate `episode_id`, broken hash chain; each with its line and field
 * - `unexpected_agent` [error]: an agent the plan does not list (once, at its
 *   first row; only when the plan lists agents, else the ledger's agents are
 *   taken as planned)
 * - `unexpected_task` [error]: a task not in the plan (once per agent and task)
 * - `lane_mismatch`, `price_table_mismatch`, `caps_mismatch` [error]: a row
 *   that disagrees with the frozen plan (caps only when both are set)
 * - `over_cap` [error]: spend over a cap (`overCap`; the plan's cap
 *   where it sets one, else the row's recorded cap), one per cap exceeded
 * - `invalid_attempt` [info]: every invalid row with its reason
 * - `duplicate_scored_attempt` [error]: a second scored row for one agent and
 *   task (seed 000: no best-of, no automatic retries of valid results)
 * - `attempts_exceeded` [error]: an `attempt` number above the plan's
 *   `max_attempts`
 * - `no_scored_attempt` [error]: a planned task with only invalid attempts
 * - `missing_task` [error]: a planned task with no row for a planned agent;
 *   under SPRT stopping, tasks after the last one an agent reached in the
 *   pre-registered order are `not_reached` [info] instead, while a gap before
 *   it stays `missing_task`
 * - `row_count` [error]: scored rows of planned agents and tasks ≠ tasks ×
 *   agents (seed 003: `len(records) == planned_tasks`); under SPRT only more
 *   than that is an error
 *
 * Cost: one pass over the file, O(agents × planned tasks) memory besides the
 * reader's set of episode ids.
 *
 * @param path the ledger file
 * @param plan the frozen plan (`loadPlan` in plan.ts reads one)
 * @param options a cap on listed findings per code
 * @returns the report: `ok`, counts, stop reasons, per-agent counts and findings
 * @throws {LedgerError} code `io_error` when the file cannot be read, `empty_file`
 *   for a zero-byte ledger
 */
export async function validateLedgerFile(
  path: string,
  plan: Plan,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const validator = ledgerValidator(plan, options);
  return validator.finish(await scanLedgerFile(path, validator.add, { lenient: true }));
}
