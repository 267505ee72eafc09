/**
 * Reading a ledger's rows and their stored episode logs, for the commands
 * that show episodes (`show`, `view`; issue 25): one reader, so the two say
 * the same about a missing store, a missing log or an altered one.
 *
 * @module
 */
import { ioError } from "../analysis/ledger_error.ts";
import type { Episode } from "../analysis/schema/records.ts";
import { openInput } from "../inputs/input_file.ts";
import { scanLedger } from "../inputs/ledger.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";
import { openEpisodeLog } from "../runner/episode_log_store.ts";
import { InputError } from "./_command.ts";

/** A row and the ledger line it was read from (1-based). */
export interface LedgerLine {
  row: Episode;
  line: number;
}

/**
 * Where a ledger's artifact store is: `--artifacts DIR` when given, else
 * `artifacts/` beside the ledger (where `run` stores it).
 *
 * @param ledger the ledger's path
 * @param option the `--artifacts` value, if given
 * @returns the store's directory
 * @example
 * ```ts
 * import { artifactsDir } from "./_episode_evidence.ts";
 * if (artifactsDir("runs/r1/ledger.jsonl") !== "runs/r1/artifacts") throw new Error();
 * if (artifactsDir("ledger.jsonl", "/srv/a") !== "/srv/a") throw new Error();
 * ```
 */
export function artifactsDir(ledger: string, option?: string): string {
  const dir = ledger.includes("/") ? ledger.slice(0, ledger.lastIndexOf("/")) : ".";
  return option ?? `${dir}/artifacts`;
}

/**
 * Reads a ledger strictly (a bad line is a `LedgerError`, exit 2), calling
 * `visit` with each row and its line.
 *
 * @param ledger the ledger's path
 * @param visit called once per row, in file order
 * @returns the ledger's SHA-256
 * @throws {LedgerError} when the file cannot be read or a line is bad
 */
export async function scanLedgerRows(
  ledger: string,
  visit: (row: Episode, line: number) => void,
): Promise<string> {
  let chunks: AsyncIterable<Uint8Array>;
  try {
    chunks = await openInput(ledger);
  } catch (error) {
    throw ioError(ledger, error);
  }
  const scan = await scanLedger({ chunks, file: ledger }, visit);
  return scan.sha256;
}

/** Whether `path` is a directory (false when it does not exist). */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/** Where a row's log is looked for. */
export interface LogPlace {
  ledger: string;
  artifacts: string;
  /** True when the store was named by `--artifacts` (else the default beside the ledger). */
  named: boolean;
}

/**
 * The stored episode log a row names by `episode_log_digest`, its bytes
 * checked against the digest; null for a row without one.
 *
 * @param found the row and its line
 * @param place the ledger, the store and whether it was named
 * @returns the log, or null when the row names none
 * @throws {InputError} naming the ledger's line and field when the store is
 *   missing or the log is missing, altered or not a log
 */
export async function openRowLog(found: LedgerLine, place: LogPlace): Promise<EpisodeLog | null> {
  const digest = found.row.episode_log_digest;
  if (digest === undefined) return null;
  const where = `${place.ledger}:${found.line}: field "episode_log_digest"`;
  if (!(await isDirectory(place.artifacts))) {
    const hint = place.named
      ? ""
      : " (the default, artifacts/ beside the ledger): name the run's store with --artifacts DIR";
    throw new InputError(`${where}: No artifact store at "${place.artifacts}"${hint}`);
  }
  try {
    return await openEpisodeLog(place.artifacts, digest);
  } catch (error) {
    throw new InputError(`${where}: ${(error as Error).message}`);
  }
}
