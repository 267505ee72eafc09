/**
 * The ledger as `ledgerbench view` holds it: an index of what the table
 * shows (`viewer/episode_index.ts`), built in the one strict read of the
 * file, and where each line starts, so that an episode's page re-reads its
 * one row from the ledger instead of every row being kept parsed. The rows
 * an errata file corrects are the only ones kept whole (they are few).
 *
 * @module
 */
import { ioError } from "../analysis/ledger_error.ts";
import { type AppliedErratum, applyErrata } from "../analysis/errata.ts";
import { Episode } from "../analysis/schema/records.ts";
import { openInput } from "../inputs/input_file.ts";
import { scanLedger } from "../inputs/ledger.ts";
import { loadErrata } from "../inputs/errata.ts";
import { EpisodeIndexBuilder } from "../viewer/episode_index.ts";
import type { LedgerView, ViewRow } from "../viewer/episode_table_page.ts";
import { InputError } from "./_command.ts";

/** A ledger's index, and its rows read back in full on demand. */
export interface ViewLedger extends LedgerView {
  /**
   * Rows `from` to `to - 1` in full (after errata), read back from the file.
   *
   * @throws {InputError} when a line no longer holds the row the index has
   *   (the file changed after it was read)
   */
  rows(from: number, to: number): Promise<ViewRow[]>;
}

const NEWLINE = 10;

/**
 * Reads a ledger strictly (a bad line is a `LedgerError`, exit 2) into a
 * {@link ViewLedger}, with the errata file applied when one is named.
 * Memory: the index's columns, one episode id string per row and one
 * offset per line; no parsed row outlives the read.
 *
 * @param path the ledger's path
 * @param errataPath the errata file, if any
 * @returns the ledger as the browser reads it
 * @throws {LedgerError} when the ledger or the errata cannot be read, a
 *   line is bad, or an erratum cannot apply
 */
export async function loadViewLedger(path: string, errataPath?: string): Promise<ViewLedger> {
  const errataFile = errataPath === undefined ? undefined : await loadErrata(errataPath);
  const named = new Set(
    (errataFile?.entries ?? []).flatMap(({ erratum }) =>
      erratum.kind === "void_summary" ? [] : [erratum.episode_id]
    ),
  );
  let chunks: AsyncIterable<Uint8Array>;
  try {
    chunks = await openInput(path);
  } catch (error) {
    throw ioError(path, error);
  }
  // starts[k]: the byte offset of line k + 1 (scanJsonl numbers lines by their `\n`s).
  let starts = new Float64Array(1 << 16);
  let lines = 0;
  let size = 0;
  async function* observed(): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) {
        if (++lines === starts.length) {
          const grown = new Float64Array(starts.length * 2);
          grown.set(starts);
          starts = grown;
        }
        starts[lines] = size + at + 1;
      }
      size += chunk.length;
      yield chunk;
    }
  }
  const builder = new EpisodeIndexBuilder();
  const kept: Episode[] = [];
  const keptAt: number[] = [];
  const scan = await scanLedger({ chunks: observed(), file: path }, (row, line) => {
    const at = builder.add(row, line);
    if (named.has(row.episode_id)) {
      kept.push(row);
      keptAt.push(at);
    }
  });
  const corrected = new Map<number, { row: Episode; corrections?: AppliedErratum[] }>();
  let errata: LedgerView["errata"];
  if (errataFile !== undefined) {
    const application = applyErrata(kept, errataFile);
    const changed = new Map<string, AppliedErratum[]>();
    for (const applied of application.applied) {
      const corrections = changed.get(applied.episode_id);
      if (corrections === undefined) changed.set(applied.episode_id, [applied]);
      else corrections.push(applied);
    }
    [...application.rows].forEach((row, k) => {
      const corrections = changed.get(row.episode_id);
      if (corrections === undefined) return;
      builder.correct(keptAt[k], row, corrections);
      corrected.set(keptAt[k], { row, corrections });
    });
    errata = { path: errataPath!, sha256: errataFile.sha256, applied: application.applied.length };
  }
  const index = builder.finish();
  const lineStart = starts.slice(0, lines + 1);
  starts = lineStart; // the reader's closure holds `starts`: not the grown buffer

  const lineEnd = (line: number) => line < lineStart.length ? lineStart[line] : size;
  return {
    path,
    sha256: scan.sha256,
    index,
    ...(errata === undefined ? {} : { errata }),
    async rows(from: number, to: number): Promise<ViewRow[]> {
      if (to <= from) return [];
      const first = lineStart[index.lineOf(from) - 1];
      const bytes = await readRange(path, first, lineEnd(index.lineOf(to - 1)) - first);
      const decoder = new TextDecoder();
      const rows: ViewRow[] = [];
      for (let at = from; at < to; at++) {
        const line = index.lineOf(at);
        const fix = corrected.get(at);
        let row: Episode;
        if (fix !== undefined) row = fix.row;
        else {
          const text = decoder.decode(
            bytes.subarray(lineStart[line - 1] - first, lineEnd(line) - first),
          );
          const parsed = Episode.safeParse(safeJson(text));
          if (!parsed.success || parsed.data.episode_id !== index.episodeId(at)) {
            throw new InputError(
              `${path}:${line}: the ledger changed after view read it: start view again`,
            );
          }
          row = parsed.data;
        }
        rows.push({
          row,
          index: at,
          line,
          ...(fix?.corrections === undefined ? {} : { corrections: fix.corrections }),
        });
      }
      return rows;
    },
  };
}

/** JSON.parse, undefined for text that is not JSON. */
function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `length` bytes of `path` from byte `start` (fewer when the file is shorter). */
async function readRange(path: string, start: number, length: number): Promise<Uint8Array> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    throw ioError(path, error);
  }
  try {
    await file.seek(start, Deno.SeekMode.Start);
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const read = await file.read(buffer.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } catch (error) {
    throw ioError(path, error);
  } finally {
    file.close();
  }
}
