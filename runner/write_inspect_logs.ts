/**
 * Writing Inspect AI `.eval` logs (`ledgerbench export inspect`): each log's
 * entries, built by `cli/_inspect_export.ts`, as one ZIP file.
 *
 * @module
 */
import { zipSync } from "fflate";
import { pythonJson } from "../analysis/python_json.ts";
import { nameFullDisk } from "./name_full_disk.ts";

/** One log to write: its file name and its entries (name, JSON value) in order. */
export interface EvalLogEntries {
  name: string;
  entries: readonly [string, unknown][];
}

/**
 * How entries are compressed: deflate (ZIP method 8) at level 5, as Inspect's
 * recorder wrote them before 0.3.206. Since then it writes zstd (method 93;
 * `zipfile_compress_kwargs` in `src/inspect_ai/_util/zipfile.py` at commit
 * 499e615), but its reader (Python's `zipfile`) still reads deflate, and no
 * zstd compressor is among our packages (`fzstd` only decompresses).
 */
const EVAL_DEFLATE_LEVEL = 5;

/**
 * The time every entry carries: 1980-01-01 00:00, the first a ZIP's MS-DOS
 * date can hold (APPNOTE 4.4.6), given in local time because fflate writes
 * the local fields: same entries, same bytes, in any time zone.
 */
const ENTRY_TIME = new Date(1980, 0, 1, 0, 0, 0);

/**
 * The bytes of one `.eval` log: a ZIP of its entries in order, each the
 * JSON text of its value as Inspect writes it (`pythonJson`: the value's
 * key order, bare `NaN`/`Infinity`), deflated ({@link EVAL_DEFLATE_LEVEL}),
 * every entry dated {@link ENTRY_TIME}. Deterministic: same entries, same bytes.
 *
 * @param log the entries
 * @returns the ZIP's bytes
 * @example
 * ```ts
 * import { evalLogBytes } from "./write_inspect_logs.ts";
 * const a = evalLogBytes({ name: "a.eval", entries: [["header.json", { version: 2 }]] });
 * const b = evalLogBytes({ name: "a.eval", entries: [["header.json", { version: 2 }]] });
 * if (a[0] !== 0x50 || a.join() !== b.join()) throw new Error();
 * ```
 */
export function evalLogBytes(log: EvalLogEntries): Uint8Array {
  const encoder = new TextEncoder();
  const files: Record<string, [Uint8Array, { level: 5; mtime: Date }]> = {};
  for (const [name, value] of log.entries) {
    files[name] = [encoder.encode(pythonJson(value)), {
      level: EVAL_DEFLATE_LEVEL,
      mtime: ENTRY_TIME,
    }];
  }
  return zipSync(files);
}

/**
 * Writes each log into `dir` (created when missing; a file of the same name
 * is replaced), through a staging file and a rename, so that no half-written
 * log is ever left under its name.
 *
 * @param dir the folder
 * @param logs the logs
 * @returns the paths written, in order
 * @throws {DiskFullError} when the file system is full, naming the folder
 * @throws {Deno.errors.PermissionDenied} and other I/O errors of writing
 */
export async function writeInspectLogs(
  dir: string,
  logs: readonly EvalLogEntries[],
): Promise<string[]> {
  const written: string[] = [];
  await Deno.mkdir(dir, { recursive: true });
  for (const log of logs) {
    const path = `${dir}/${log.name}`;
    const staging = `${dir}/.${log.name}.${Deno.pid}.tmp`;
    try {
      await Deno.writeFile(staging, evalLogBytes(log));
      await Deno.rename(staging, path);
    } catch (error) {
      throw nameFullDisk(error, [{ place: "export folder", path: dir }]);
    } finally {
      await Deno.remove(staging).catch(() => {});
    }
    written.push(path);
  }
  return written;
}
