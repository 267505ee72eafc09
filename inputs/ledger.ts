/**
 * Streaming, strict reading of an episode ledger: every line must parse, fit
 * the schema, carry a fresh `episode_id`, and (in a hash-chained ledger) hold
 * the SHA-256 of the previous line's bytes. Nothing is skipped silently.
 *
 * @module
 */
import { Episode } from "../analysis/schema/records.ts";
import { type EpisodeRows, type EpisodeTable, episodeTable } from "../analysis/episode_table.ts";
import { RowLines } from "../analysis/row_lines.ts";
import type { LedgerScan, LedgerWithLines } from "../analysis/schema/ledger_file.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { LedgerError, type LedgerProblem } from "../analysis/ledger_error.ts";
import { parseLine, type ParseLineOptions, scanJsonl } from "./jsonl.ts";
import { openInput } from "./input_file.ts";
import { StringSet } from "./_string_set.ts";
import { type LineDigester, lineDigester } from "./_line_digester.ts";

/**
 * Lines from which a ledger is read through the fast path (`_fast_episode.ts`:
 * common rows skip zod, same result; zod decides the rest). Deriving it
 * costs about 5 ms, zod about 10 µs a row, so a smaller ledger (seed 001's
 * sample: 8 rows) is read by zod alone, and the command starts sooner.
 */
const FAST_PATH_MIN_LINES = 512;
/** A first chunk this large is followed by more: the fast path pays off. */
const FAST_PATH_MIN_BYTES = 1 << 16;

/**
 * `chunks`, unchanged, after loading the fast path into `options` when the
 * first chunk shows a ledger of at least {@link FAST_PATH_MIN_LINES} lines
 * (or of {@link FAST_PATH_MIN_BYTES} bytes and more to come), else setting
 * `jitless` (zod then compiles no parser for so few rows). Only the speed
 * depends on the choice, never a result or a message.
 */
async function* withFastPath(
  chunks: AsyncIterable<Uint8Array>,
  options: ParseLineOptions<Episode>,
): AsyncGenerator<Uint8Array> {
  let first = true;
  for await (const chunk of chunks) {
    if (first) {
      first = false;
      let lines = 0;
      for (let at = chunk.indexOf(10); at !== -1 && lines < FAST_PATH_MIN_LINES; lines++) {
        at = chunk.indexOf(10, at + 1);
      }
      if (lines >= FAST_PATH_MIN_LINES || chunk.length >= FAST_PATH_MIN_BYTES) {
        options.fast = (await import("../analysis/_fast_episode.ts")).fastEpisode;
      } else {
        options.jitless = true;
      }
    }
    yield chunk;
  }
}

/** Options for {@link scanLedger}. */
export interface ScanLedgerOptions {
  /**
   * Collect every problem instead of throwing at the first; rows with a
   * problem are then listed in `problems` and left out of `rows`.
   */
  lenient?: boolean;
  /**
   * The `episode_id` of the `index`-th row visited (0-based), read back from
   * where the caller keeps the rows: the duplicate check then keeps a hash
   * and an index per row (8 bytes) instead of every id (about 50 MiB at a
   * million rows), and reads an id back only when hashes match.
   */
  episodeIdAt?: (index: number) => string;
}

/** Options for {@link scanLedgerFile} and {@link loadLedger}. */
export interface LedgerFileOptions extends ScanLedgerOptions {
  /**
   * Accept a file of zero bytes (the runner's ledger before its first row);
   * by default an empty ledger is refused, since every command would
   * otherwise report on nothing and exit 0.
   */
  allowEmpty?: boolean;
}

/** What {@link scanLedger} reads: a byte stream and the file its problems name. */
export interface LedgerSource {
  /** The ledger's bytes, e.g. `await openInput(path)`. */
  chunks: AsyncIterable<Uint8Array>;
  /** The file named in problems and in the scan's `file`. */
  file: string;
}

/**
 * Hex SHA-256 of one line's bytes, as the next row's `prev_sha256` records it
 * (the line without its trailing `\n`). The reader itself digests through
 * `_line_digester.ts` (same digests, faster where FFI is allowed).
 */
export function lineSha256(bytes: Uint8Array): string {
  return sha256Hex(bytes);
}

/**
 * Reads a ledger stream one row at a time, calling `visit` for each valid row
 * in file order; memory stays O(number of episode ids).
 *
 * Checks per line: JSON syntax, the {@link Episode} schema (through the
 * fast path of `_fast_episode.ts` from {@link FAST_PATH_MIN_LINES} lines on,
 * the same result), duplicate
 * `episode_id`, and the hash chain (`prev_sha256` = SHA-256 of the previous
 * line's bytes; null on the first row; a ledger whose first row lacks the
 * field is unchained and no later row may carry it). The line digests come
 * from libcrypto through FFI where the process may use it, else from
 * `node:crypto` (same digests; see `_line_digester.ts`).
 *
 * @param source the ledger's byte stream (`chunks`) and the `file` its problems name
 * @param visit called with each valid row and its 1-based line number, in file order
 * @param options `lenient`
 * @returns the file's hash, line and row counts, whether it is chained, and the problems
 * @throws {LedgerError} on the first problem unless `options.lenient`
 */
export async function scanLedger(
  source: LedgerSource,
  visit: (row: Episode, line: number) => void,
  options: ScanLedgerOptions = {},
): Promise<LedgerScan> {
  const { chunks, file } = source;
  const problems: LedgerProblem[] = [];
  const seen = new StringSet({ textAt: options.episodeIdAt });
  let chained = false;
  let validRows = 0;
  const report = (problem: LedgerProblem) => {
    if (!options.lenient) throw new LedgerError([problem]);
    problems.push(problem);
  };
  /** Holds the SHA-256 of the line before the current one; made once line 1 says "chained". */
  let previous: LineDigester | null = null;
  const fast: ParseLineOptions<Episode> = {};
  const summary = await scanJsonl(withFastPath(chunks, fast), (bytes, line, text) => {
    const result = parseLine(Episode, { bytes, file, line, text }, fast);
    if (line === 1 && result.ok) {
      chained = "prev_sha256" in result.raw;
      if (chained) previous = lineDigester();
    }
    const chainProblem = result.ok
      ? checkChain(result.value.prev_sha256, { chained, line, previous })
      : null;
    if (chained) previous!.digest(bytes);
    if (!result.ok) return report(result.problem);
    const row = result.value;
    if (chainProblem !== null) {
      return report({
        code: "broken_hash_chain",
        file,
        line,
        field: "prev_sha256",
        message: chainProblem,
      });
    }
    if (!seen.add(row.episode_id)) {
      return report({
        code: "duplicate_episode_id",
        file,
        line,
        field: "episode_id",
        message: `duplicate episode "${row.episode_id}"`,
      });
    }
    validRows++;
    visit(row, line);
  });
  return {
    file,
    sha256: summary.sha256,
    lines: summary.lines,
    valid_rows: validRows,
    chained,
    problems,
  };
}

/** Where a row stands in the chain: whether the ledger is chained, its line, the digest before it. */
interface ChainPosition {
  chained: boolean;
  line: number;
  /** Holds the SHA-256 of line `line - 1` (nothing on line 1); null in an unchained ledger. */
  previous: LineDigester | null;
}

function checkChain(actual: string | null | undefined, at: ChainPosition): string | null {
  if (!at.chained) {
    return actual === undefined ? null : "the first row carries no hash chain, so no later row may";
  }
  if (actual === undefined) return "missing in a hash-chained ledger";
  if (at.line === 1) return actual === null ? null : "must be null on the first row";
  if (actual === null || !at.previous!.matches(actual)) {
    return `expected "${at.previous!.hex()}" (SHA-256 of line ${at.line - 1}), found ${
      JSON.stringify(actual)
    }`;
  }
  return null;
}

/**
 * Scans a ledger file (see {@link scanLedger} for the checks), refusing a
 * zero-byte file unless `options.allowEmpty`.
 *
 * @param path the ledger file, as given (problems and the scan name it so)
 * @param visit called with each valid row and its 1-based line number
 * @param options `lenient`, `allowEmpty`
 * @returns the scan
 * @throws {LedgerError} code `io_error` when the file cannot be read,
 *   `empty_file` for a zero-byte ledger (even when lenient), else on the
 *   first problem unless `lenient`
 */
export async function scanLedgerFile(
  path: string,
  visit: (row: Episode, line: number) => void,
  options: LedgerFileOptions = {},
): Promise<LedgerScan> {
  const scan = await scanLedger({ chunks: await openInput(path), file: path }, visit, options);
  if (scan.lines === 0 && !options.allowEmpty) {
    throw new LedgerError([{
      code: "empty_file",
      file: path,
      line: 0,
      field: "",
      message: "the ledger is empty (0 bytes): no episode was recorded",
    }]);
  }
  return scan;
}

/**
 * Reads a whole ledger file into memory, keeping each row's line for
 * findings that name it (the report's validation).
 *
 * @param path the ledger file
 * @param options `lenient`, `allowEmpty`
 * @returns the rows, their lines and the scan
 * @throws {LedgerError} as {@link scanLedgerFile}
 * @example
 * ```ts
 * import { loadLedger } from "./ledger.ts";
 * const ledger = await loadLedger(new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname);
 * // Seed 001's sample: 8 rows on lines 1..8.
 * if (ledger.rows.length !== 8 || ledger.row_lines.at(7) !== 8) throw new Error();
 * ```
 */
export function loadLedger(
  path: string,
  options: LedgerFileOptions = {},
): Promise<LedgerWithLines> {
  const rows: Episode[] = [];
  return loadInto(path, rows, (index) => rows[index].episode_id, options);
}

/**
 * Reads a whole ledger file as {@link loadLedger} does, holding its rows as
 * columns (`episodeTable`: about a tenth of the memory, each row rebuilt as
 * a pass reaches it): what the commands that aggregate a ledger hold.
 *
 * @param path the ledger file
 * @param options `lenient`, `allowEmpty`
 * @returns the rows as a table, their lines and the scan
 * @throws {LedgerError} as {@link scanLedgerFile}
 * @example
 * ```ts
 * import { loadLedgerTable } from "./ledger.ts";
 * const ledger = await loadLedgerTable(new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname);
 * // Seed 001's sample: 8 rows; the last is agent b's attempt at t4, its id derived.
 * if (ledger.rows.length !== 8 || ledger.rows.row(7).episode_id !== "r1/b/t4/1") throw new Error();
 * ```
 */
export function loadLedgerTable(
  path: string,
  options: LedgerFileOptions = {},
): Promise<LedgerWithLines<EpisodeTable>> {
  const rows = episodeTable();
  return loadInto(path, rows, (index) => rows.row(index).episode_id, options);
}

/**
 * Scans the file (see {@link scanLedgerFile}) into `rows`, keeping each
 * row's line; the duplicate check reads ids back from `rows` (`idAt`).
 */
async function loadInto<R extends EpisodeRows & { push(row: Episode): void }>(
  path: string,
  rows: R,
  idAt: (index: number) => string,
  options: LedgerFileOptions,
): Promise<LedgerWithLines<R>> {
  const rowLines = new RowLines();
  const scan = await scanLedgerFile(path, (row, line) => {
    rows.push(row);
    rowLines.push(line);
  }, { ...options, episodeIdAt: idAt });
  return { ...scan, rows, row_lines: rowLines };
}
