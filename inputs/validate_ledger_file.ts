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
import type { Plan } from "../analysis/schema/records.ts";
import { scanLedgerFile } from "./ledger.ts";

/**
 * Validates a ledger against its frozen plan (seed 003, `validate`), reading
 * the ledger once, streaming and leniently, so that every problem is listed.
 *
 * The findings and the rules behind them are `ledgerValidator`'s
 * (analysis/validate_ledger.ts); reader problems (malformed JSON, encoding,
 * repeated keys, schema, duplicate ids, hash chain) become findings with
 * their line and field.
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
