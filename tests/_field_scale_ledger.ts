/**
 * The field-scale ledger of issue 25, made as a researcher makes one: the
 * generated 14-agent run table ({@link fieldScaleTable}) written to a
 * directory and imported with the real `ledgerbench import table`, which
 * writes the ledger and the task list beside it.
 *
 * @module
 */
import { cliInProcess } from "./_cli_run.ts";
import {
  FIELD_SCALE_MAP,
  FIELD_SCALE_VALUES,
  fieldScaleTable,
} from "../tools/field_scale_table.ts";

/** The files one import made. */
export interface FieldScaleLedger {
  /** The CSV run table. */
  table: string;
  /** The ledger `import table` wrote. */
  ledger: string;
  /** The task list it wrote beside the ledger (`ledger.tasks.json`). */
  tasks: string;
}

/**
 * Writes a CSV run table into `dir` (`run_table.csv`) and imports it with
 * `import table` into `dir/ledger.jsonl`.
 *
 * @param dir a fresh directory of the test's
 * @param csv the table's text
 * @param maps `--map`, and `--values` when given
 * @throws {Error} when the import exits non-zero (its stderr in the message)
 */
export async function importRunTable(
  dir: string,
  csv: string,
  maps: { map: string; values?: string },
): Promise<FieldScaleLedger> {
  const table = `${dir}/run_table.csv`;
  const ledger = `${dir}/ledger.jsonl`;
  await Deno.writeTextFile(table, csv);
  const values = maps.values === undefined ? [] : ["--values", maps.values];
  const result = await cliInProcess(
    "import",
    "table",
    table,
    "--out",
    ledger,
    "--map",
    maps.map,
    ...values,
  );
  if (result.code !== 0) throw new Error(`import table failed: ${result.stderr}`);
  return { table, ledger, tasks: `${dir}/ledger.tasks.json` };
}

/**
 * Writes the table of `instances` instances into `dir` and imports it.
 *
 * @throws {Error} when the import exits non-zero (its stderr in the message)
 */
export function importFieldScaleLedger(
  dir: string,
  instances = 120,
): Promise<FieldScaleLedger> {
  return importRunTable(dir, fieldScaleTable(instances), {
    map: FIELD_SCALE_MAP,
    values: FIELD_SCALE_VALUES,
  });
}
