/**
 * The public SWE-Bench Pro results (tests/fixtures/import/swebench_pro,
 * nine agents over 730 instances, seven of them lacking some) made into a
 * ledger as a researcher makes one: the CSV run table written to a
 * directory and imported with the real `ledgerbench import table`, which
 * writes the ledger and the task list beside it.
 *
 * @module
 */
import { ROOT } from "./_cli_run.ts";
import { type FieldScaleLedger, importRunTable } from "./_field_scale_ledger.ts";

/** The fixture: the 730 instance ids, and per agent one verdict character per id. */
export interface SweBenchProResults {
  /** The instance ids, in the fixture's order. */
  ids: string[];
  /** Per agent, `1` resolved, `0` not resolved, `-` no result, one character per id. */
  agents: Record<string, string>;
}

/** Reads the fixture. */
export function sweBenchProResults(): SweBenchProResults {
  return JSON.parse(
    Deno.readTextFileSync(`${ROOT}tests/fixtures/import/swebench_pro/results.json`),
  );
}

/**
 * Writes the fixture as a run table (`model,instance_id,resolved`, one row
 * per result) into `dir` and imports it (`importRunTable`).
 *
 * @throws {Error} when the import exits non-zero (its stderr in the message)
 */
export function importSweBenchProLedger(dir: string): Promise<FieldScaleLedger> {
  const { ids, agents } = sweBenchProResults();
  const lines = ["model,instance_id,resolved"];
  for (const [agent, verdicts] of Object.entries(agents)) {
    ids.forEach((id, i) => {
      if (verdicts[i] !== "-") lines.push(`${agent},${id},${verdicts[i] === "1"}`);
    });
  }
  return importRunTable(dir, lines.join("\n") + "\n", {
    map: "agent_id=model,task_id=instance_id,resolved=resolved",
  });
}
