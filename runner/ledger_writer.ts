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
 * A batch (`appendAll`, issue 23: `import` of 9,729 rows made 9,730
 * fdatasync calls) is written whole or not at all, and is never seen half
 * written: the ledger's complete lines and then the batch's rows are
 * written to the temporary file `<ledger>.batch` (rows checked as they are
 * written, in buffered writes of a few MiB), fsynced once, and renamed over
 * the ledger (`rename(2)` replaces the name atomically, POSIX.1-2017; its
 * directory fsynced after: the commit point). A bad row, a failed write or
 * a process killed before the rename leaves the ledger as it was; the
 * temporary file of a killed process is removed by the next `open`.
 * Versions before this wrote a batch in place, its start recorded in the
 * marker file `<ledger>.pending`; a marker such a process left when it
 * died mid-batch is still honoured: the next `open` moves every byte after
 * the recorded start into the sidecar (one record, `unfinished_batch`
 * true) and cuts the ledger back (re-importing would refuse its rows as
 * duplicates).
 *
 * The ledger file is created by the first row written, not by `open`, so
 * that a run or an import that fails before writing leaves no empty ledger.
 *
 * @module
 */
import { canonicalJsonLine } from "../analysis/canonical_json.ts";
import { fastEpisode } from "../analysis/_fast_episode.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { lineDigester } from "../inputs/_line_digester.ts";
import { openInput } from "../inputs/input_file.ts";
import { lineSha256, scanLedger } from "../inputs/ledger.ts";
import { Episode, type EpisodeInput } from "../analysis/schema/records.ts";
import type { z } from "zod";

/** A row as the runner hands it to the writer: everything but the chain link. */
export type EpisodeDraft = Omit<z.input<typeof EpisodeInput>, "prev_sha256">;

/** What was found and moved when a ledger ended in a torn line or an unfinished batch. */
export interface TornTail {
  /** Byte offset of the torn line in the ledger (the ledger's new length). */
  offset: number;
  /** Bytes moved. */
  length: number;
  /** Hex SHA-256 of the moved bytes. */
  sha256: string;
  /** The sidecar file the bytes were appended to. */
  sidecar: string;
  /** The torn row's `episode_id`, when its text still shows it; else null (and for a batch). */
  episode_id: string | null;
  /** True when the bytes were a batch whose write never completed (`<ledger>.pending` found). */
  unfinished_batch: boolean;
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

/** The marker of a batch written in place by an earlier version (see the module doc): `<ledger>.pending`. */
function pendingPath(path: string): string {
  return `${path}.pending`;
}

/** The temporary file a batch is written to before it replaces the ledger (see the module doc). */
function batchPath(path: string): string {
  return `${path}.batch`;
}

/** Bytes a batch buffers between writes (a multiple of the page size; grown for a longer row). */
const BATCH_BUFFER_BYTES = 4 << 20;

/** The directory holding `path`, for an fsync of its entries. */
function directoryOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "." : slash === 0 ? "/" : path.slice(0, slash);
}

/** Fsyncs a directory, so that a file created or removed in it stays so after a crash. */
async function syncDirectory(path: string): Promise<void> {
  const dir = await Deno.open(directoryOf(path), { read: true });
  try {
    await dir.sync();
  } finally {
    dir.close();
  }
}

/** Appends rows to one ledger file; one instance per file and process. */
export class LedgerWriter {
  readonly path: string;
  /** The ledger opened for appending; null until the first row (see the module doc) or after a batch. */
  #file: Deno.FsFile | null;
  #previous: string | null;
  /** The episode ids in the ledger (replaced by a first batch's own set). */
  #ids: Set<string>;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** Bytes of complete lines in the file. */
  #size: number;
  /** Why appending is no longer possible (a failed write could not be undone), or null. */
  #broken: string | null = null;

  private constructor(
    path: string,
    file: Deno.FsFile | null,
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
   * Opens `path` for appending (the caller holds its lock, `ledger_lock.ts`),
   * creating it at the first row written. A batch's temporary file left by
   * a killed process is removed, and a batch an earlier version left
   * unfinished in place (`<ledger>.pending` present: see the module doc) is
   * undone first, its bytes moved to the sidecar (`torn.unfinished_batch`).
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
    // a batch's temporary file outlives only a process killed mid-batch: it was never the ledger
    await Deno.remove(batchPath(path)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    let size = 0;
    try {
      size = (await Deno.stat(path)).size;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    let torn: TornTail | null = null;
    const unfinished = await unfinishedBatch(path, size);
    if (unfinished !== null && unfinished.bytes.length === 0) {
      await removeMarker(pendingPath(path));
    } else if (unfinished !== null) {
      torn = await moveTornTail(path, unfinished, options.now ?? (() => new Date()), true);
      size = unfinished.start;
      warn(
        `warning: ledger "${path}" holds a batch whose write never completed (${torn.length} ` +
          `bytes at offset ${torn.offset}); the bytes were moved to "${torn.sidecar}" and the ` +
          "ledger cut back to where the batch began",
      );
    }
    if (size > 0 && !options.resume) {
      throw new Error(
        `Cannot start a run in ledger "${path}": it already holds rows; pass --resume to continue that run, or choose a new ledger path`,
      );
    }
    let previous: string | null = null;
    const ids = new Set<string>();
    let existing = 0;
    if (size > 0 && torn === null) {
      const tail = await lineEndingAt(path, size);
      if (tail.bytes.length > 0) {
        torn = await moveTornTail(path, tail, options.now ?? (() => new Date()), false);
        size = tail.start;
        warn(
          `warning: ledger "${path}" ended in a torn line (${torn.length} bytes at offset ${torn.offset}, ` +
            `episode ${torn.episode_id === null ? "unknown" : `"${torn.episode_id}"`}); ` +
            `the bytes were moved to "${torn.sidecar}" and the ledger cut back to its last complete row`,
        );
      }
    }
    if (size > 0) {
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
    const file = size > 0 ? await Deno.open(path, { append: true }) : null;
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

  /**
   * Appends rows as one batch, whole or not at all (see the module doc):
   * writes the ledger's complete lines to `<ledger>.batch`, then links,
   * checks (schema, and `episode_id` new to the ledger and to the batch)
   * and writes each row, in buffered writes; fsyncs that file once and
   * renames it over the ledger (the commit point; its directory fsynced).
   * Serialised with {@link append}. Cost: O(ledger bytes + batch bytes)
   * time, memory O(batch episode ids) plus the buffer; two fsyncs whatever
   * the number of rows (the file, the directory).
   *
   * @param drafts the rows without `prev_sha256`, in ledger order (iterated once)
   * @returns the number of rows written
   * @throws {Error} when a row fails the schema or repeats an `episode_id`
   *   (nothing is written then, and the message names the row's place in
   *   the batch); when a write, fsync or the rename fails (nothing is
   *   written then either: the ledger is as it was)
   */
  appendAll(drafts: Iterable<EpisodeDraft>): Promise<number> {
    const next = this.#queue.then(() => this.#writeBatch(drafts));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Refuses an append to a closed or broken writer. */
  #checkOpen(): void {
    if (this.#closed) {
      throw new Error(`Cannot append to ledger "${this.path}": the writer is closed`);
    }
    if (this.#broken !== null) {
      throw new Error(`Cannot append to ledger "${this.path}": ${this.#broken}`);
    }
  }

  /**
   * The row a draft becomes after `previous` (the common row by the fast
   * path of `_fast_episode.ts`, the same value zod gives; zod words the
   * rest), refusing a schema violation and, when `ids` is given, an id in
   * it or in the ledger. `batchRow`: the draft's 0-based place in a batch,
   * named by the message (null: one row).
   */
  #row(
    draft: EpisodeDraft,
    previous: string | null,
    ids: ReadonlySet<string> | null,
    batchRow: number | null,
  ): Episode {
    const input = { ...draft, prev_sha256: previous };
    let row = fastEpisode(input);
    if (row === undefined) {
      const parsed = Episode.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new Error(
          `Cannot append to ledger "${this.path}"${placeInBatch(batchRow)}: field "${
            issue.path.join(".")
          }": ${issue.message}`,
        );
      }
      row = parsed.data;
    }
    if (ids !== null && (ids.has(row.episode_id) || this.#ids.has(row.episode_id))) {
      throw this.#duplicate(row.episode_id, batchRow);
    }
    return row;
  }

  /** The refusal of a row whose episode id is already in the ledger or the batch. */
  #duplicate(id: string, batchRow: number | null): Error {
    return new Error(
      `Cannot append to ledger "${this.path}"${placeInBatch(batchRow)}: duplicate episode "${id}"`,
    );
  }

  async #write(draft: EpisodeDraft): Promise<Episode> {
    this.#checkOpen();
    const row = this.#row(draft, this.#previous, this.#ids, null);
    const line = encoder.encode(canonicalJsonLine(row));
    const bytes = new Uint8Array(line.length + 1);
    bytes.set(line);
    bytes[line.length] = NEWLINE;
    try {
      this.#file ??= await Deno.open(this.path, { append: true, create: true });
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

  async #writeBatch(drafts: Iterable<EpisodeDraft>): Promise<number> {
    this.#checkOpen();
    const temp = batchPath(this.path);
    const ids = new Set<string>();
    const digest = lineDigester();
    let previous = this.#previous;
    let file: Deno.FsFile | null = null;
    let count = 0;
    try {
      if (this.#size > 0) {
        await Deno.copyFile(this.path, temp);
        file = await Deno.open(temp, { write: true });
        await file.truncate(this.#size); // the complete lines only, as `#size` counts them
        await file.seek(this.#size, Deno.SeekMode.Start);
      } else {
        file = await Deno.open(temp, { write: true, create: true, truncate: true });
      }
      let buffer = new Uint8Array(BATCH_BUFFER_BYTES);
      let at = 0;
      for (const draft of drafts) {
        const row = this.#row(draft, previous, null, count);
        // one hash operation per row: the id is new to the batch when the set grows
        const before = ids.size;
        ids.add(row.episode_id);
        if (ids.size === before || (this.#ids.size > 0 && this.#ids.has(row.episode_id))) {
          throw this.#duplicate(row.episode_id, count);
        }
        const line = canonicalJsonLine(row);
        // UTF-8 takes at most 3 bytes per UTF-16 code unit (WHATWG Encoding, encodeInto)
        const most = line.length * 3 + 1;
        if (buffer.length - at < most) {
          await writeAll(file, buffer.subarray(0, at));
          at = 0;
          if (buffer.length < most) buffer = new Uint8Array(most);
        }
        const { written } = encoder.encodeInto(line, buffer.subarray(at));
        digest.digest(buffer.subarray(at, at + written));
        buffer[at + written] = NEWLINE;
        at += written + 1;
        previous = digest.hex();
        count++;
      }
      if (count === 0) {
        file.close();
        file = null;
        await Deno.remove(temp);
        return 0;
      }
      await writeAll(file, buffer.subarray(0, at));
      await file.syncData();
      const size = (await file.stat()).size;
      file.close();
      file = null;
      await Deno.rename(temp, this.path);
      this.#file?.close(); // the replaced file: later appends go to the new one
      this.#file = null;
      this.#size = size;
    } catch (error) {
      file?.close();
      await Deno.remove(temp).catch(() => {});
      const message = (error as Error).message;
      throw message.startsWith(`Cannot append to ledger "${this.path}"`) ? error : new Error(
        `Cannot append to ledger "${this.path}": cannot write the batch through "${temp}": ` +
          `${message}; nothing was written`,
        { cause: error },
      );
    }
    this.#previous = previous;
    if (this.#ids.size === 0) this.#ids = ids;
    else for (const id of ids) this.#ids.add(id);
    // the batch is the ledger now; this makes the rename durable (a failure here is not "nothing written")
    await syncDirectory(this.path).catch((error) => {
      throw new Error(
        `Cannot append to ledger "${this.path}": the batch of ${count} rows replaced the ledger, ` +
          `but its directory could not be fsynced: ${(error as Error).message}`,
        { cause: error },
      );
    });
    return count;
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
      if (this.#file !== null) {
        await this.#file.truncate(this.#size);
        await this.#file.syncData();
      }
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
      this.#file?.close();
      this.#file = null;
    }
  }
}

/** Where a refused row was, for the message: its place in a batch (worded only then), or nothing. */
function placeInBatch(batchRow: number | null): string {
  return batchRow === null ? "" : ` (row ${batchRow + 1} of the batch, nothing written)`;
}

/** Removes the batch marker (the batch's commit point) and makes its removal durable. */
async function removeMarker(marker: string): Promise<void> {
  await Deno.remove(marker);
  await syncDirectory(marker);
}

/**
 * The bytes of a batch that never completed: when `<ledger>.pending` is
 * there, everything from the offset it records to the ledger's end (none
 * when nothing of the batch reached the file); null without a marker.
 *
 * @throws {Error} when the marker cannot be read or records an offset
 *   beyond the ledger's end (the ledger was changed by something else)
 */
async function unfinishedBatch(path: string, size: number): Promise<LineAt | null> {
  const marker = pendingPath(path);
  let text: string;
  try {
    text = await Deno.readTextFile(marker);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  let offset: unknown;
  try {
    offset = JSON.parse(text).offset;
  } catch {
    offset = undefined;
  }
  if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0 || offset > size) {
    throw new Error(
      `Cannot open ledger "${path}": "${marker}" records an unfinished batch at offset ` +
        `${JSON.stringify(offset)}, but the ledger holds ${size} bytes; check the ledger by hand`,
    );
  }
  const file = await Deno.open(path, { read: true });
  try {
    return { start: offset, end: size, bytes: await readAt(file, offset, size - offset, path) };
  } finally {
    file.close();
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
 * Moves a torn final line (`tail`, the bytes after the ledger's last `\n`),
 * or the bytes of an unfinished batch (`batch`), into the sidecar and cuts
 * the ledger back to `tail.start`; the marker of the batch is removed last.
 */
async function moveTornTail(
  path: string,
  tail: LineAt,
  now: () => Date,
  batch: boolean,
): Promise<TornTail> {
  const offset = tail.start;
  const text = new TextDecoder().decode(tail.bytes);
  const sha256 = sha256Hex(tail.bytes);
  const id = batch ? null : /"episode_id":"((?:[^"\\]|\\.)*)"/.exec(text);
  const sidecar = `${path}.torn.jsonl`;
  const record = {
    detected_at: now().toISOString(),
    ledger: path,
    offset,
    length: tail.bytes.length,
    sha256,
    text,
    episode_id: id === null ? null : JSON.parse(`"${id[1]}"`) as string,
    ...(batch ? { unfinished_batch: true } : {}),
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
  if (batch) await removeMarker(pendingPath(path));
  return {
    offset,
    length: tail.bytes.length,
    sha256,
    sidecar,
    episode_id: record.episode_id,
    unfinished_batch: batch,
  };
}
