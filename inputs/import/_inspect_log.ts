/**
 * The container of an Inspect AI eval log: a `.json` log (one EvalLog
 * document, its `samples` inline) or a `.eval` log (a ZIP of
 * `header.json`, `summaries.json`, `reductions.json` and one
 * `samples/{id}_epoch_{epoch}.json` per sample; a crashed or unfinished
 * log has `_journal/start.json` and `_journal/summaries/{n}.json` instead
 * of the header and summaries), read into one header and a list of sample
 * records, whatever the storage. What a record means is `inspect.ts`'s.
 *
 * Read from Inspect AI's `log/_recorders/eval.py` (the ZIP layout,
 * `_read_log`, `_read_header`) and `log/_log.py` (`sort_samples`) at
 * commit 499e615 (0.3.260). ZIP faults are `bad_archive` problems naming
 * the file or the entry (`log.eval:samples/1_epoch_1.json`).
 *
 * @module
 */
import { LedgerError } from "../../analysis/ledger_error.ts";
import { parseJsonObject } from "../../analysis/schema/strict_json.ts";
import { isZip, readZipDirectory, readZipEntry, type ZipEntry, ZipError } from "./_zip.ts";
import { type Json, object, type Place, problem } from "./_inspect_fields.ts";

/** One sample record (a full sample, or a summary of one) and where it sits. */
export interface SampleRecord {
  value: Json;
  place: Place;
  summary: boolean;
}

/** What an Inspect log holds, whatever its storage. */
export interface InspectLog {
  header: Json;
  headerPlace: Place;
  samples: SampleRecord[];
}

/**
 * The header and sample records of an Inspect log, from a `.eval` ZIP or a
 * `.json` text.
 *
 * Rule: told apart by content, whatever the extension: a ZIP's signature
 * (`PK`) is a `.eval` log, a JSON object (after white space) a `.json` log
 * whose `samples` (a list, or null) are the records in file order; a
 * `.eval` log is read as `readEvalZip` says (header, samples, summaries).
 *
 * @param bytes the log's content
 * @param path the log, named in problems
 * @returns the header, where it sits, and the sample records
 * @throws {LedgerError} `bad_encoding` (neither a ZIP nor a JSON object),
 *   `bad_archive` (a ZIP that cannot be read), `malformed_json`,
 *   `duplicate_key`, `schema_violation` (`samples` not a list, a ZIP
 *   without a header)
 */
export function readInspectLog(bytes: Uint8Array, path: string): InspectLog {
  if (isZip(bytes)) return readEvalZip(bytes, path);
  let first = 0;
  while (first < bytes.length && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[first])) first++;
  if (bytes[first] !== 0x7b) {
    throw problem(
      "bad_encoding",
      path,
      "",
      "is neither an Inspect .eval log (a ZIP file) nor a .json log (a JSON object)",
    );
  }
  const header = parseEntry(bytes, path);
  const place = { file: path, prefix: "", position: "" };
  const samples = header.samples ?? null;
  if (samples !== null && !Array.isArray(samples)) {
    throw problem("schema_violation", path, "samples", "must be a list or null");
  }
  return {
    header,
    headerPlace: place,
    samples: (samples ?? []).map((value: unknown, index: number) => {
      const where = { file: path, prefix: `samples.${index}.`, position: `samples[${index}]` };
      return { value: object(value, place, `samples.${index}`), place: where, summary: false };
    }),
  };
}

/** Parses one JSON object strictly, bare non-finite values allowed. */
function parseEntry(bytes: Uint8Array, file: string): Json {
  const parsed = parseJsonObject(bytes, "the file", undefined, { nonFinite: true });
  if (!parsed.ok) throw new LedgerError([{ file, ...parsed.problem }]);
  return parsed.value;
}

/**
 * A sample entry: any name under `samples/` ending in `.json`, as Inspect's
 * `_read_log` selects them; a sample id holding a `/` (Inspect writes
 * `samples/{id}_epoch_{epoch}.json` whatever the id) makes a deeper name.
 */
const SAMPLE_ENTRY = /^samples\/.+\.json$/;
const JOURNAL_SUMMARY = /^_journal\/summaries\/(\d+)\.json$/;

/**
 * A `.eval` log: the header from `header.json`, else `_journal/start.json`
 * (a crashed or unfinished log, status `started`, as Inspect's
 * `_read_header` reads it); the samples from `samples/*.json` in Inspect's
 * order (`sort_samples`: epoch, then id), then the summaries of samples
 * without an entry.
 */
function readEvalZip(bytes: Uint8Array, path: string): InspectLog {
  const entries = zipStep(path, () => readZipDirectory(bytes));
  const read = (entry: ZipEntry) => {
    const file = `${path}:${entry.name}`;
    return parseEntry(zipStep(path, () => readZipEntry(bytes, entry)), file);
  };
  const headerEntry = entries.get("header.json") ?? entries.get("_journal/start.json");
  if (headerEntry === undefined) {
    throw problem(
      "schema_violation",
      path,
      "",
      "is a ZIP file without header.json or _journal/start.json: not an Inspect .eval log",
    );
  }
  const header = read(headerEntry);
  if (headerEntry.name !== "header.json") header.status = "started";
  const samples: SampleRecord[] = [];
  for (const entry of entries.values()) {
    if (!SAMPLE_ENTRY.test(entry.name)) continue;
    const place = { file: `${path}:${entry.name}`, prefix: "", position: entry.name };
    samples.push({ value: read(entry), place, summary: false });
  }
  // one push per record: a spread passes one argument each and overflows the stack past ~120,000
  for (const record of summaryRecords(bytes, entries, path, samples)) samples.push(record);
  samples.sort(inspectOrder);
  return {
    header,
    headerPlace: { file: `${path}:${headerEntry.name}`, prefix: "", position: headerEntry.name },
    samples,
  };
}

/**
 * The summaries of samples that have no `samples/` entry: from
 * `summaries.json` when present, else from the journal's numbered
 * summaries in order (a later one replaces an earlier one of the same id
 * and epoch, as Inspect's recorder does). A summary marked
 * `completed: false` describes no finished sample and is skipped.
 */
function summaryRecords(
  bytes: Uint8Array,
  entries: Map<string, ZipEntry>,
  path: string,
  samples: SampleRecord[],
): SampleRecord[] {
  const journal = [...entries.values()]
    .filter((entry) => JOURNAL_SUMMARY.test(entry.name))
    .sort((a, b) => summaryNumber(a) - summaryNumber(b));
  const summaryEntry = entries.get("summaries.json");
  const sources = summaryEntry === undefined ? journal : [summaryEntry];
  const present = new Set(samples.map((record) => sampleKey(record.value)));
  const found = new Map<string, SampleRecord>();
  for (const entry of sources) {
    const file = `${path}:${entry.name}`;
    const list = parseList(zipStep(path, () => readZipEntry(bytes, entry)), file);
    list.forEach((value, index) => {
      const place = { file, prefix: `${index}.`, position: `${entry.name}[${index}]` };
      const summary = object(value, { file, prefix: "", position: "" }, String(index));
      if (summary.completed === false) return;
      const key = sampleKey(summary);
      if (!present.has(key)) found.set(key, { value: summary, place, summary: true });
    });
  }
  return [...found.values()];
}

function summaryNumber(entry: ZipEntry): number {
  return Number(JOURNAL_SUMMARY.exec(entry.name)![1]);
}

const LIST_OPEN = new TextEncoder().encode('{"list":');

/**
 * A summaries entry, a JSON list, parsed strictly as the one member of an
 * object around it (the strict parser reads objects); problems name the
 * list's own fields.
 */
function parseList(bytes: Uint8Array, file: string): unknown[] {
  const wrapped = new Uint8Array(LIST_OPEN.length + bytes.length + 1);
  wrapped.set(LIST_OPEN);
  wrapped.set(bytes, LIST_OPEN.length);
  wrapped[wrapped.length - 1] = 0x7d;
  const parsed = parseJsonObject(wrapped, "the file", undefined, { nonFinite: true });
  if (!parsed.ok) {
    const fieldName = parsed.problem.field.replace(/^list\.?/, "");
    throw new LedgerError([{ file, ...parsed.problem, field: fieldName }]);
  }
  if (!Array.isArray(parsed.value.list)) {
    throw problem("schema_violation", file, "", "must hold a JSON list of sample summaries");
  }
  return parsed.value.list;
}

function sampleKey(value: Json): string {
  return `${typeof value.id}:${String(value.id)}:${String(value.epoch)}`;
}

/** Inspect's `sort_samples`: by epoch, then by id (a number zero-padded to 20 digits). */
function inspectOrder(a: SampleRecord, b: SampleRecord): number {
  const epoch = Number(a.value.epoch) - Number(b.value.epoch);
  if (epoch !== 0) return epoch;
  const idA = sortableId(a.value.id);
  const idB = sortableId(b.value.id);
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}

function sortableId(id: unknown): string {
  return typeof id === "string" ? id : String(id).padStart(20, "0");
}

/** Runs a ZIP step, turning its `ZipError` into a `bad_archive` problem naming the file or the entry. */
function zipStep<T>(path: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof ZipError)) throw error;
    const file = error.entry === null ? path : `${path}:${error.entry}`;
    throw problem("bad_archive", file, "", error.message);
  }
}
