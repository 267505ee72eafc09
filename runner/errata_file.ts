/**
 * Appending to an errata file: the only write the errata ever see. The
 * ledger is never rewritten; corrections go here (seed 000).
 *
 * @module
 */
import {
  type ErratumEntry,
  erratumLine,
  repeatedCorrection,
  repeatedCorrectionMessage,
} from "../analysis/errata.ts";
import { loadErrata } from "../inputs/errata.ts";
import { parseLine } from "../inputs/jsonl.ts";
import { ioError, LedgerError } from "../analysis/ledger_error.ts";
import { Erratum } from "../analysis/schema/records.ts";

/** Options for {@link appendErratum}. */
export interface AppendErratumOptions {
  /**
   * Episode ids of the ledger the erratum corrects; when given, an episode
   * erratum naming another id is refused with code `unknown_episode`.
   */
  episodes?: ReadonlySet<string>;
}

const encoder = new TextEncoder();

/**
 * Appends one erratum to an errata file as one canonical single-line JSON row
 * ({@link erratumLine}: defaults filled in, keys sorted), then fsyncs.
 *
 * Before writing it checks, in order: the record fits the {@link Erratum}
 * schema (code `schema_violation`, naming the line it would occupy and the
 * field); the existing file reads strictly (any problem in it is thrown as
 * is, a repeated correction among them); the `erratum_id` is new
 * (`duplicate_erratum_id`); the record does not repeat the correction of
 * the latest erratum on its episode or summary (`repeatedCorrection` in
 * analysis/errata.ts: same kind and fields, whatever the id, time and
 * explanation; `duplicate_erratum_id`, naming the line it repeats); and, when
 * `options.episodes` is given, the episode exists (`unknown_episode`). A file
 * whose last line lacks its newline gets one first, so rows never merge. The
 * file is created when absent. One writer at a time: concurrent appenders
 * are not coordinated. Cost: O(existing file) to check it.
 *
 * @param path the errata file
 * @param erratum the record to append
 * @param options the ledger's episode ids, to refuse unknown episodes
 * @returns the stored record (defaults applied) and its 1-based line
 * @throws {LedgerError} on any of the problems above, naming file, line and field;
 *   code `io_error` when the file cannot be read or opened
 */
export async function appendErratum(
  path: string,
  erratum: unknown,
  options: AppendErratumOptions = {},
): Promise<ErratumEntry> {
  let existing: Uint8Array | null = null;
  try {
    existing = await Deno.readFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw ioError(path, error);
    }
  }
  const errata = existing === null
    ? { entries: [] as ErratumEntry[], lines: 0 }
    : await loadErrata(path);
  const line = errata.lines + 1;
  const parsed = parseLine(Erratum, {
    bytes: encoder.encode(JSON.stringify(erratum ?? null)),
    file: path,
    line,
  });
  if (!parsed.ok) throw new LedgerError([parsed.problem]);
  const record = parsed.value;
  const clash = errata.entries.find((entry) => entry.erratum.erratum_id === record.erratum_id);
  if (clash !== undefined) {
    throw new LedgerError([{
      code: "duplicate_erratum_id",
      file: path,
      line,
      field: "erratum_id",
      message: `erratum "${record.erratum_id}" already exists on line ${clash.line}`,
    }]);
  }
  const latest = new Map<string, { entry: ErratumEntry; correction: string }>();
  for (const entry of errata.entries) repeatedCorrection(latest, entry);
  const first = repeatedCorrection(latest, { line, erratum: record });
  if (first !== null) {
    throw new LedgerError([{
      code: "duplicate_erratum_id",
      file: path,
      line,
      field: "",
      message: `${repeatedCorrectionMessage(record, first)}; nothing was written`,
    }]);
  }
  if (options.episodes !== undefined && record.kind !== "void_summary") {
    if (!options.episodes.has(record.episode_id)) {
      throw new LedgerError([{
        code: "unknown_episode",
        file: path,
        line,
        field: "episode_id",
        message: `episode "${record.episode_id}" is not in the ledger`,
      }]);
    }
  }
  const needsNewline = existing !== null && existing.length > 0 &&
    existing[existing.length - 1] !== 10;
  const text = `${needsNewline ? "\n" : ""}${erratumLine(record)}\n`;
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { append: true, create: true });
  } catch (error) {
    throw ioError(path, error);
  }
  try {
    const bytes = encoder.encode(text);
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.sync();
  } finally {
    file.close();
  }
  return { line, erratum: record };
}
