/**
 * Issue 21, "a runner-written ledger always passes `validate --plan`": the
 * error findings of `validate` (the same `validateLedgerFile` the CLI
 * calls) for a ledger the runner wrote from a frozen plan, for an engine
 * test to assert there are none.
 *
 * @module
 */
import { validateLedgerFile } from "../inputs/validate_ledger_file.ts";
import type { Plan } from "../analysis/schema/records.ts";

/**
 * The error findings of validating `ledger` against `plan`, each as
 * `code: message` (empty: the ledger fits its plan, `validate` exits 0).
 *
 * @param ledger the ledger file the runner wrote
 * @param plan the frozen plan it ran
 * @returns the error findings, worded
 */
export async function ledgerErrors(ledger: string, plan: Plan): Promise<string[]> {
  const report = await validateLedgerFile(ledger, plan);
  return report.findings
    .filter((finding) => finding.severity === "error")
    .map((finding) => `${finding.code}: ${finding.message}`);
}
