/**
 * The ledger as it is written (issue 3, "The ledger as it is written"):
 * append-only, one canonical single-line JSON row (`canonicalJsonLine`) per
 * attempt (invalid ones included), written then fsynced row by row,
 * hash-chained (`prev_sha256` is `lineSha256` of the previous line's bytes;
 * null on the first row).
 *
 * Resuming reads the existing ledger strictly (inputs/ledger.ts). A
 * torn final line (a write cut short: the file does not end with `\n`) is
 * never dropped silently: it is moved, bytes and all, into the sidecar file
 * `<ledger>.torn.jsonl` (one canonical record per repair: where it was, its
 * length, SHA-256 and text), the ledger is cut back to its last complete
 * line, a loud warning names both files, and the caller learns the torn
 * episode's id (when readable) so that the row written for its re-run can say
 * so in `notes`.
 *
 * A write that fails (issue 9, item 5: a short-lived full disk left a
 * 393-byte partial row with the next full row appended right after it)
 * never leaves a partial line for the next row to follow: the ledger is cut
 * back to its last complete line before the append rejects. When even that
 * fails, the writer refuses every later append, and the torn tail is moved
 * aside on resume as above.
 *
 * @module
 */
import { canonicalJsonLine } from "../analysis/canonical_json.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { openInput } from "../inputs/input_file.ts";
import { lineSha256, scanLedger } from "../inputs/ledger.ts";
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
  /**
   * Called with each row already in the ledger (resume), in file order, as
   * the strict read reaches it; the rows are not kept.
   */
  replay?: (row: Episode, line: number) => void;
}

/** An opened ledger: the writer, how many rows were already there, and any torn tail. */
export interface OpenedLedger {
  writer: LedgerWriter;
  /** Rows already in the ledger (each passed to `replay`). */
  existing: number;
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
  /** Bytes of complete lines in the file. */
  #size: number;
  /** Why appending is no longer possible (a failed write could not be undone), or null. */
  #broken: string | null = null;

  private constructor(
    path: string,
    file: Deno.FsFile,
    previous: string | null,
    ids: Set<string>,
    size: number,
  ) {
    this.path = path;
    this.#file = file;
    this.#previous = previous;
    this.#ids = ids;
    this.#size = size;
  }

  /**
   * Opens `path` for appending, creating it when absent.
   *
   * With `resume`, an existing ledger is streamed through the strict reader
   * (schema, duplicate ids, hash chain) after moving a torn final line to
   * the sidecar, each row handed to `options.replay` and then dropped;
   * without it, an existing non-empty ledger is refused. O(ledger size)
   * time; memory O(episode ids) plus the longest line.
   *
   * @param path the ledger file
   * @param options resume, replay, clock and warning sink
   * @returns the writer, the number of existing rows and the torn tail (if any)
   * @throws {Error} when the ledger exists without `resume`, or holds rows but
   *   no hash chain (not written by this runner)
   * @throws {LedgerError} when an existing line fails the strict read
   * @throws whatever `options.replay` throws (the read stops there)
   */
  static async open(path: string, options: OpenLedgerOptions = {}): Promise<OpenedLedger> {
    const warn = options.warn ?? ((message: string) => console.error(message));
    let size = 0;
    try {
      size = (await Deno.stat(path)).size;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    if (size > 0 && !options.resume) {
      throw new Error(
        `Cannot start a run in ledger "${path}": it already holds rows; pass --resume to continue that run, or choose a new ledger path`,
      );
    }
    let torn: TornTail | null = null;
    let previous: string | null = null;
    const ids = new Set<string>();
    let existing = 0;
    if (size > 0) {
      const tail = await lineEndingAt(path, size);
      if (tail.bytes.length > 0) {
        torn = await moveTornTail(path, tail, options.now ?? (() => new Date()));
        size = tail.start;
        warn(
          `warning: ledger "${path}" ended in a torn line (${torn.length} bytes at offset ${torn.offset}, ` +
            `episode ${torn.episode_id === null ? "unknown" : `"${torn.episode_id}"`}); ` +
            `the bytes were moved to "${torn.sidecar}" and the ledger cut back to its last complete row`,
        );
      }
      await scanLedger({ chunks: await openInput(path), file: path }, (row, line) => {
        // the first row decides whether the ledger is chained (inputs/ledger.ts): refuse before any replay
        if (line === 1 && row.prev_sha256 === undefined) {
          throw new Error(
            `Cannot resume ledger "${path}": its rows carry no hash chain ("prev_sha256"), so it was not written by the runner`,
          );
        }
        ids.add(row.episode_id);
        existing++;
        options.replay?.(row, line);
      });
      if (existing > 0) previous = lineSha256((await lineEndingAt(path, size - 1)).bytes);
    }
    const file = await Deno.open(path, { append: true, create: true });
    return { writer: new LedgerWriter(path, file, previous, ids, size), existing, torn };
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
   *   (nothing is written then); when the write or fsync fails (the ledger is
   *   cut back to its last complete line, or, if that fails too, the writer
   *   refuses every later append)
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
    if (this.#broken !== null) {
      throw new Error(`Cannot append to ledger "${this.path}": ${this.#broken}`);
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
    try {
      await writeAll(this.#file, bytes);
      await this.#file.syncData();
    } catch (error) {
      throw await this.#cutBack(error);
    }
    this.#size += bytes.length;
    this.#previous = lineSha256(line);
    this.#ids.add(row.episode_id);
    return row;
  }

  /**
   * After a failed write: truncates the file back to its last complete line
   * and fsyncs, so that no later row follows a partial one.
   *
   * @returns the error the append rejects with
   */
  async #cutBack(error: unknown): Promise<Error> {
    const cause = error instanceof Error ? error.message : String(error);
    try {
      await this.#file.truncate(this.#size);
      await this.#file.syncData();
    } catch (second) {
      this.#broken = `a write failed (${cause}) and the ledger could not be cut back to its last ` +
        `complete row (${(second as Error).message}); resume with --resume`;
      return new Error(`Cannot append to ledger "${this.path}": ${this.#broken}`, { cause: error });
    }
    return new Error(
      `Cannot append to ledger "${this.path}": ${cause}; ` +
        `the ledger was cut back to its last complete row at byte ${this.#size}`,
      { cause: error },
    );
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

/** The bytes of one line of a file and where they lie: `[start, end)`, without the `\n`. */
interface LineAt {
  start: number;
  end: number;
  bytes: Uint8Array;
}

/** Bytes read per step when {@link lineEndingAt} walks back through a file. */
const BACKWARD_BLOCK_BYTES = 1 << 16;

/**
 * The line of `path` that ends at offset `end`: the bytes from just after the
 * last `\n` before `end` (or from the file's start) up to `end`. At the file
 * size this is the torn tail (empty when the file ends in `\n`); at the
 * offset of the final `\n`, the last complete line. Reads backwards in
 * 64 KiB blocks: O(line length) time and memory.
 */
async function lineEndingAt(path: string, end: number): Promise<LineAt> {
  const file = await Deno.open(path, { read: true });
  try {
    const blocks: Uint8Array[] = [];
    let start = end;
    while (start > 0) {
      const from = Math.max(0, start - BACKWARD_BLOCK_BYTES);
      const block = await readAt(file, from, start - from, path);
      const newline = block.lastIndexOf(NEWLINE);
      blocks.unshift(newline === -1 ? block : block.subarray(newline + 1));
      if (newline !== -1) {
        start = from + newline + 1;
        break;
      }
      start = from;
    }
    const bytes = new Uint8Array(end - start);
    let at = 0;
    for (const block of blocks) {
      bytes.set(block, at);
      at += block.length;
    }
    return { start, end, bytes };
  } finally {
    file.close();
  }
}

/** `length` bytes of `file` from `offset`. */
async function readAt(
  file: Deno.FsFile,
  offset: number,
  length: number,
  path: string,
): Promise<Uint8Array> {
  const block = new Uint8Array(length);
  await file.seek(offset, Deno.SeekMode.Start);
  let filled = 0;
  while (filled < length) {
    const read = await file.read(block.subarray(filled));
    if (read === null) throw new Error(`Cannot read ledger "${path}": it shrank while being read`);
    filled += read;
  }
  return block;
}

/**
 * Moves a torn final line (`tail`, the bytes after the ledger's last `\n`)
 * into the sidecar and cuts the ledger back to `tail.start`.
 */
async function moveTornTail(path: string, tail: LineAt, now: () => Date): Promise<TornTail> {
  const offset = tail.start;
  const text = new TextDecoder().decode(tail.bytes);
  const sha256 = sha256Hex(tail.bytes);
  const id = /"episode_id":"((?:[^"\\]|\\.)*)"/.exec(text);
  const sidecar = `${path}.torn.jsonl`;
  const record = {
    detected_at: now().toISOString(),
    ledger: path,
    offset,
    length: tail.bytes.length,
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
  return { offset, length: tail.bytes.length, sha256, sidecar, episode_id: record.episode_id };
}
