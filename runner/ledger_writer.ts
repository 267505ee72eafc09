/**
 * The ledger as it is written (issue 3, "The ledger as it is written"):
 * append-only, one canonical single-line JSON row (`canonicalJsonLine`) per
 * attempt (invalid ones included), written then fsynced row by row,
 * hash-chained (`prev_sha256` is `lineSha256` of the previous line's bytes;
 * null on the first row).
 *
 * Resuming reads the existing ledger strictly (analysis/read_ledger.ts). A
 * torn final line (a write cut short: the file does not end with `\n`) is
 * never dropped silently: it is moved, bytes and all, into the sidecar file
 * `<ledger>.torn.jsonl` (one canonical record per repair: where it was, its
 * length, SHA-256 and text), the ledger is cut back to its last complete
 * line, a loud warning names both files, and the caller learns the torn
 * episode's id (when readable) so that the row written for its re-run can say
 * so in `notes`.
 *
 * @module
 */
import { canonicalJsonLine } from "../analysis/canonical_json.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { lineSha256, scanLedger } from "../analysis/read_ledger.ts";
import { Episode, EpisodeInput } from "../analysis/schema.ts";
import type { z } from "zod";

/** A row as the runner hands it to the writer: everything but the chain link. */
export type EpisodeDraft = Omit<z.input<typeof EpisodeInput>, "prev_sha256">;

/** What was found and moved when a ledger ended in a torn line. */
export interface TornTail {
  /** Byte offset of the torn line in the ledger (the ledger's new length). */
  offset: number;
  /** Bytes moved. */
  length: number;
  /** Hex SHA-256 of the moved bytes. */
  sha256: string;
  /** The sidecar file the bytes were appended to. */
  sidecar: string;
  /** The torn row's `episode_id`, when its text still shows it; else null. */
  episode_id: string | null;
}

/** Options of {@link LedgerWriter.open}. */
export interface OpenLedgerOptions {
  /**
   * Continue an existing ledger. Without it, a non-empty ledger is refused
   * (a new run never appends to an old one).
   */
  resume?: boolean;
  /** Clock for the sidecar record; defaults to the system clock. */
  now?: () => Date;
  /** Where warnings go; defaults to stderr. */
  warn?: (message: string) => void;
}

/** An opened ledger: the writer, the rows already there, and any torn tail. */
export interface OpenedLedger {
  writer: LedgerWriter;
  rows: Episode[];
  torn: TornTail | null;
}

const NEWLINE = 10;
const encoder = new TextEncoder();

/** Appends rows to one ledger file; one instance per file and process. */
export class LedgerWriter {
  readonly path: string;
  #file: Deno.FsFile;
  #previous: string | null;
  #ids: Set<string>;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(path: string, file: Deno.FsFile, previous: string | null, ids: Set<string>) {
    this.path = path;
    this.#file = file;
    this.#previous = previous;
    this.#ids = ids;
  }

  /**
   * Opens `path` for appending, creating it when absent.
   *
   * With `resume`, an existing ledger is read strictly (schema, duplicate
   * ids, hash chain) after moving a torn final line to the sidecar; without
   * it, an existing non-empty ledger is refused. O(ledger size).
   *
   * @param path the ledger file
   * @param options resume, clock and warning sink
   * @returns the writer, the existing rows and the torn tail (if any)
   * @throws {Error} when the ledger exists without `resume`, or holds rows but
   *   no hash chain (not written by this runner)
   * @throws {LedgerError} when an existing line fails the strict read
   */
  static async open(path: string, options: OpenLedgerOptions = {}): Promise<OpenedLedger> {
    const warn = options.warn ?? ((message: string) => console.error(message));
    let bytes: Uint8Array = new Uint8Array(0);
    try {
      bytes = await Deno.readFile(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    if (bytes.length > 0 && !options.resume) {
      throw new Error(
        `Cannot start a run in ledger "${path}": it already holds rows; pass --resume to continue that run, or choose a new ledger path`,
      );
    }
    let torn: TornTail | null = null;
    if (bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE) {
      const offset = bytes.lastIndexOf(NEWLINE) + 1;
      torn = await moveTornTail(path, bytes, offset, options.now ?? (() => new Date()));
      bytes = bytes.subarray(0, offset);
      warn(
        `warning: ledger "${path}" ended in a torn line (${torn.length} bytes at offset ${torn.offset}, ` +
          `episode ${torn.episode_id === null ? "unknown" : `"${torn.episode_id}"`}); ` +
          `the bytes were moved to "${torn.sidecar}" and the ledger cut back to its last complete row`,
      );
    }
    const rows: Episode[] = [];
    let previous: string | null = null;
    const scan = await scanLedger({ chunks: once(bytes), file: path }, (row) => rows.push(row));
    if (rows.length > 0) {
      if (!scan.chained) {
        throw new Error(
          `Cannot resume ledger "${path}": its rows carry no hash chain ("prev_sha256"), so it was not written by the runner`,
        );
      }
      const end = bytes.length - 1;
      const start = bytes.lastIndexOf(NEWLINE, end - 1) + 1;
      previous = lineSha256(bytes.subarray(start, end));
    }
    const file = await Deno.open(path, { append: true, create: true });
    const ids = new Set(rows.map((row) => row.episode_id));
    return { writer: new LedgerWriter(path, file, previous, ids), rows, torn };
  }

  /** Number of distinct episodes in the ledger, existing and appended. */
  get size(): number {
    return this.#ids.size;
  }

  /**
   * Appends one row: links it to the previous line, checks it against the
   * Episode schema, writes the line and its newline, then fsyncs
   * (`Deno.FsFile.syncData`) before resolving. Calls are serialised, so
   * concurrent episodes append in completion order without interleaving.
   *
   * @param draft the row without `prev_sha256`
   * @returns the row exactly as written
   * @throws {Error} when the row fails the schema or repeats an `episode_id`
   *   (nothing is written then)
   */
  append(draft: EpisodeDraft): Promise<Episode> {
    const next = this.#queue.then(() => this.#write(draft));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #write(draft: EpisodeDraft): Promise<Episode> {
    if (this.#closed) {
      throw new Error(`Cannot append to ledger "${this.path}": the writer is closed`);
    }
    const parsed = Episode.safeParse({ ...draft, prev_sha256: this.#previous });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `Cannot append to ledger "${this.path}": field "${issue.path.join(".")}": ${issue.message}`,
      );
    }
    const row = parsed.data;
    if (this.#ids.has(row.episode_id)) {
      throw new Error(
        `Cannot append to ledger "${this.path}": duplicate episode "${row.episode_id}"`,
      );
    }
    const line = encoder.encode(canonicalJsonLine(row));
    const bytes = new Uint8Array(line.length + 1);
    bytes.set(line);
    bytes[line.length] = NEWLINE;
    await writeAll(this.#file, bytes);
    await this.#file.syncData();
    this.#previous = lineSha256(line);
    this.#ids.add(row.episode_id);
    return row;
  }

  /** Waits for pending appends, then closes the file. */
  async close(): Promise<void> {
    await this.#queue;
    if (!this.#closed) {
      this.#closed = true;
      this.#file.close();
    }
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  if (bytes.length > 0) yield bytes;
}

async function moveTornTail(
  path: string,
  bytes: Uint8Array,
  offset: number,
  now: () => Date,
): Promise<TornTail> {
  const tail = bytes.subarray(offset);
  const text = new TextDecoder().decode(tail);
  const sha256 = sha256Hex(tail);
  const id = /"episode_id":"((?:[^"\\]|\\.)*)"/.exec(text);
  const sidecar = `${path}.torn.jsonl`;
  const record = {
    detected_at: now().toISOString(),
    ledger: path,
    offset,
    length: tail.length,
    sha256,
    text,
    episode_id: id === null ? null : JSON.parse(`"${id[1]}"`) as string,
  };
  const side = await Deno.open(sidecar, { append: true, create: true });
  try {
    await writeAll(side, encoder.encode(canonicalJsonLine(record) + "\n"));
    await side.syncData();
  } finally {
    side.close();
  }
  const ledger = await Deno.open(path, { write: true });
  try {
    await ledger.truncate(offset);
    await ledger.syncData();
  } finally {
    ledger.close();
  }
  return { offset, length: tail.length, sha256, sidecar, episode_id: record.episode_id };
}
