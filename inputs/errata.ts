/**
 * Reading an errata file (analysis/errata.ts applies it): streaming, with
 * the ledger reader's conventions.
 *
 * @module
 */
import {
  type ErrataFile,
  type ErrataOptions,
  type ErratumEntry,
  repeatedCorrection,
  repeatedCorrectionMessage,
} from "../analysis/errata.ts";
import { LedgerError, type LedgerProblem } from "../analysis/ledger_error.ts";
import { Erratum } from "../analysis/schema/records.ts";
import { openInput } from "./input_file.ts";
import { parseLine, scanJsonl } from "./jsonl.ts";

/**
 * Reads an errata file, streaming: each line must be one JSON object fitting
 * the {@link Erratum} schema (a strict object: an unknown key is an error),
 * `erratum_id` must not repeat (code `duplicate_erratum_id`, field
 * `erratum_id`), and no erratum may repeat the correction of the one before
 * it on the same episode or summary (`repeatedCorrection` in
 * analysis/errata.ts: same kind and fields, whatever the id, time and
 * explanation; code `duplicate_erratum_id`, the whole line, naming the line
 * it repeats). Problems name file, line and field. A zero-byte file holds
 * no corrections. Cost: O(file) time, O(errata) memory.
 *
 * @param path the errata file
 * @param options `lenient` lists problems instead of throwing (rows with a
 *   problem are then left out of `entries` and listed in `problems`)
 * @returns the errata in file order with the file's SHA-256
 * @throws {LedgerError} on the first problem unless `lenient`; an unreadable
 *   file throws code `io_error` even when lenient
 */
export async function loadErrata(path: string, options: ErrataOptions = {}): Promise<ErrataFile> {
  const chunks = await openInput(path);
  const entries: ErratumEntry[] = [];
  const problems: LedgerProblem[] = [];
  const seen = new Set<string>();
  const latest = new Map<string, { entry: ErratumEntry; correction: string }>();
  const report = (problem: LedgerProblem) => {
    if (!options.lenient) throw new LedgerError([problem]);
    problems.push(problem);
  };
  const summary = await scanJsonl(chunks, (bytes, line, text) => {
    const result = parseLine(Erratum, { bytes, file: path, line, text });
    if (!result.ok) return report(result.problem);
    const erratum = result.value;
    if (seen.has(erratum.erratum_id)) {
      return report({
        code: "duplicate_erratum_id",
        file: path,
        line,
        field: "erratum_id",
        message: `duplicate erratum "${erratum.erratum_id}"`,
      });
    }
    seen.add(erratum.erratum_id);
    const entry = { line, erratum };
    const first = repeatedCorrection(latest, entry);
    if (first !== null) {
      return report({
        code: "duplicate_erratum_id",
        file: path,
        line,
        field: "",
        message: repeatedCorrectionMessage(erratum, first),
      });
    }
    entries.push(entry);
  });
  return { file: path, sha256: summary.sha256, lines: summary.lines, entries, problems };
}
