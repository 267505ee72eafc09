/**
 * A full disk, said as such (issue 24: a full disk was recorded as
 * `harness_error`, but neither the row nor the console named `ENOSPC` or
 * the path that filled). An error whose code (or whose cause's) is
 * `ENOSPC` or `EDQUOT` (errno(3): "No space left on device", "Disk quota
 * exceeded") becomes a {@link DiskFullError} naming the errno and the
 * place that filled (the artifact store, the runner's temporary directory)
 * first, then the system's message, so that the console's cut of a
 * harness error's cause (300 characters) keeps both.
 *
 * @module
 */
import { resolve } from "node:path";

/** The errnos of a full file system, with their strerror(3) text. */
const FULL = { ENOSPC: "No space left on device", EDQUOT: "Disk quota exceeded" } as const;

/** A place the runner writes to, as a full disk's message names it. */
export interface DiskPlace {
  /** What it is, in words: `artifact store`, `runner's temporary directory`. */
  place: string;
  path: string;
}

/** A write failed because its file system is full. */
export class DiskFullError extends Error {
  /** `ENOSPC` or `EDQUOT`. */
  readonly code: keyof typeof FULL;
  /** The place that filled, or null when the error names none of those given. */
  readonly where: DiskPlace | null;
  constructor(code: keyof typeof FULL, where: DiskPlace | null, detail: string, cause: unknown) {
    const place = where === null ? "" : ` in the ${where.place} "${where.path}"`;
    super(`${FULL[code]} (${code})${place}${detail === "" ? "" : `: ${detail}`}`, { cause });
    this.name = "DiskFullError";
    this.code = code;
    this.where = where;
  }
}

/**
 * Names a full disk: `error` as a {@link DiskFullError} when it (or an
 * error in its `cause` chain) has code `ENOSPC` or `EDQUOT`, else `error`
 * itself (a `DiskFullError` too). The place is the one of `places` that
 * holds the last path quoted in the messages (Deno quotes a copy's
 * destination last); else, when one place is given (a store that writes
 * nowhere else; a write to an open file quotes no path), that one.
 *
 * @param error what a write threw
 * @param places where the caller writes
 * @returns the error to throw or record
 * @example
 * ```ts
 * import { nameFullDisk } from "./name_full_disk.ts";
 * const full = Object.assign(
 *   new Error("No space left on device (os error 28): writefile '/srv/store/sha256/x'"),
 *   { code: "ENOSPC" },
 * );
 * const named = nameFullDisk(full, [{ place: "artifact store", path: "/srv/store" }]) as Error;
 * if (!named.message.startsWith('No space left on device (ENOSPC) in the artifact store "/srv/store": writefile')) {
 *   throw new Error(named.message);
 * }
 * ```
 */
export function nameFullDisk(error: unknown, places: readonly DiskPlace[]): unknown {
  if (error instanceof DiskFullError) return error;
  const chain: Error[] = [];
  for (let at: unknown = error; at instanceof Error && chain.length < 8; at = at.cause) {
    chain.push(at);
  }
  const code = chain.map((link) => (link as { code?: unknown }).code)
    .find((value): value is keyof typeof FULL => value === "ENOSPC" || value === "EDQUOT");
  if (code === undefined) return error;
  const quoted = chain.flatMap((link) => [...link.message.matchAll(/'([^']+)'/g)])
    .map((match) => resolve(match[1]));
  const last = quoted.at(-1);
  const holds = ({ path }: DiskPlace) =>
    last !== undefined && (last === resolve(path) || last.startsWith(`${resolve(path)}/`));
  const where = places.find(holds) ?? (places.length === 1 ? places[0] : null);
  // Deno's message starts with the strerror text and "(os error N)": said once, in front.
  const detail = chain[0].message.replace(/^[^:]*\(os error \d+\)(: )?/, "");
  return new DiskFullError(code, where, detail, error);
}
