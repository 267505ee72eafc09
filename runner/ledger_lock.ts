/**
 * One runner per ledger (issue 9, item 4: two `run`s started 0.3 s apart
 * both ran every episode, 21 duplicated ids and 23 chain breaks): a run
 * holds an exclusive lock on `<ledger>.lock` (`flock(2)` through
 * `Deno.FsFile.tryLock(true)`) from before it removes orphans or opens the
 * ledger until it ends. The kernel drops the lock when the holder dies,
 * whatever kills it, so a lock is never stale: a lock file a killed holder
 * left is locked again by the next runner. The file holds its holder's
 * record (host, pid, process start, start time, command) for the refusal
 * message, and is removed on release, while still locked. Removing a lock
 * file lets a third runner create and lock a new file while a second holds
 * the old one, so a runner that got the lock checks that the path still
 * names the file it locked (same device and inode) and starts again
 * otherwise: the usual protocol of `flock(2)` lock files that are removed
 * (as in Python's `filelock` and `flock(1)` wrappers).
 *
 * @module
 */
import { currentRunner } from "./runner_identity.ts";

/** Who holds a ledger's lock, as written into the lock file. */
export interface LockHolder {
  host: string;
  pid: number;
  /** Process start in clock ticks since boot (see runner_identity.ts). */
  process_start: number;
  /** ISO time the lock was taken. */
  started_at: string;
  command: string[];
}

/** A run was refused because another runner holds the ledger's lock. */
export class LedgerLockedError extends Error {
  /** The holder's record, or null when it could not be read. */
  readonly holder: LockHolder | null;
  constructor(message: string, holder: LockHolder | null) {
    super(message);
    this.name = "LedgerLockedError";
    this.holder = holder;
  }
}

/** A held ledger lock; `await using` releases it. */
export interface LedgerLock extends AsyncDisposable {
  /** The lock file, `<ledger>.lock`. */
  path: string;
  /** Removes, unlocks and closes the lock file (idempotent). */
  release(): void;
}

/** Options of {@link acquireLedgerLock}. */
export interface LedgerLockOptions {
  /** The holder's command line; default `ledgerbench` and `Deno.args`. */
  command?: string[];
  /** Clock for `started_at`; default the system clock. */
  now?: () => Date;
}

const encoder = new TextEncoder();

/**
 * Takes the exclusive lock of `ledger` without waiting, and records this
 * process as its holder.
 *
 * @param ledger the ledger file (its directory must exist)
 * @param options the command line and clock recorded
 * @returns the held lock
 * @throws {LedgerLockedError} when another runner holds it (the message
 *   names the holder)
 * @throws {Error} when the ledger's directory does not exist or the lock
 *   file cannot be opened
 * @example
 * ```ts ignore
 * await using lock = await acquireLedgerLock("runs/r1/ledger.jsonl");
 * ```
 */
export async function acquireLedgerLock(
  ledger: string,
  options: LedgerLockOptions = {},
): Promise<LedgerLock> {
  const path = `${ledger}.lock`;
  let file: Deno.FsFile;
  for (;;) {
    try {
      file = await Deno.open(path, { read: true, write: true, create: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        const dir = ledger.includes("/") ? ledger.slice(0, ledger.lastIndexOf("/")) || "/" : ".";
        throw new Error(`Cannot open ledger "${ledger}": its directory "${dir}" does not exist`);
      }
      throw new Error(`Cannot open ledger lock "${path}": ${(error as Error).message}`);
    }
    if (!(await file.tryLock(true))) {
      file.close();
      const holder = await readHolder(path);
      throw new LedgerLockedError(
        `Cannot run on ledger "${ledger}": another runner holds its lock "${path}" (${
          describeHolder(holder)
        })`,
        holder,
      );
    }
    if (await stillNamed(file, path)) break;
    file.close(); // its holder removed it on release: lock the file the path names now
  }
  const self = currentRunner();
  const holder: LockHolder = {
    host: self.host,
    pid: self.pid,
    process_start: self.start,
    started_at: (options.now ?? (() => new Date()))().toISOString(),
    command: options.command ?? ["ledgerbench", ...Deno.args],
  };
  await file.truncate(0);
  await file.seek(0, Deno.SeekMode.Start);
  const bytes = encoder.encode(JSON.stringify(holder) + "\n");
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
  await file.syncData();
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    try {
      Deno.removeSync(path); // still locked: a runner waiting on this file sees it is gone
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        console.error(`warning: cannot remove ledger lock "${path}": ${(error as Error).message}`);
      }
    }
    file.close(); // closing the descriptor drops the flock
  };
  return { path, release, [Symbol.asyncDispose]: () => Promise.resolve(release()) };
}

/** Whether `path` still names the open `file` (same device and inode): not removed, not replaced. */
async function stillNamed(file: Deno.FsFile, path: string): Promise<boolean> {
  const [held, named] = await Promise.all([file.stat(), Deno.stat(path).catch(() => null)]);
  return named !== null && named.dev === held.dev && named.ino === held.ino;
}

/** The holder recorded in a lock file, or null when it is empty or unreadable. */
async function readHolder(path: string): Promise<LockHolder | null> {
  try {
    const value = JSON.parse(await Deno.readTextFile(path));
    return typeof value?.pid === "number" ? value as LockHolder : null;
  } catch {
    return null;
  }
}

/**
 * A holder in a few words: `pid 123 on host "h", since <time>: <command>`.
 *
 * @param holder the holder, or null when unknown
 * @returns the description
 */
export function describeHolder(holder: LockHolder | null): string {
  if (holder === null) return "holder not recorded yet";
  return `pid ${holder.pid} on host "${holder.host}", since ${holder.started_at}: ${
    holder.command.join(" ")
  }`;
}
