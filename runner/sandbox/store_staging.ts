/**
 * The staging names of the artifact store (`artifact_store.ts`,
 * `episode_log_store.ts`), which tell whose they are (after 20
 * random `kill -9` and resume, one `.staging-*` directory was left in the
 * store). A write is staged at
 * `.staging-<pid>-<start>-<16 hex>-<host>[<suffix>]` and renamed into
 * place; a runner killed in between leaves it. The first write of each
 * process into a store removes the staging left there by runners that are
 * gone (this host's, their pid no longer running with the start time in the
 * name: runner_identity.ts), never a live runner's, also one of another
 * ledger or another host sharing the store. A staging name without an owner
 * (made before owners were named) is left alone.
 *
 * @module
 */
import { currentRunner, runnerAlive } from "../runner_identity.ts";
import { removeTree } from "./remove_tree.ts";

const NAME = /^\.staging-(\d+)-(\d+)-[0-9a-f]{16}-(.+?)(\.manifest\.tmp|\.episode-log\.json)?$/;

/** Stores swept by this process: each once. */
const swept = new Map<string, Promise<string[]>>();

/**
 * A fresh staging path in `dir`, named after this runner.
 *
 * @param dir the directory the staged entry is renamed within
 * @param suffix appended to the name (`.episode-log.json` for a log)
 * @returns `<dir>/.staging-<pid>-<start>-<16 hex>-<host><suffix>`
 */
export function stagingPath(dir: string, suffix = ""): string {
  const self = currentRunner();
  const random = crypto.getRandomValues(new Uint8Array(8));
  const hex = [...random].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${dir}/.staging-${self.pid}-${self.start}-${hex}-${self.host}${suffix}`;
}

/**
 * Removes, once per process and store, the staging entries of runners that
 * are gone from the store's root and from `<root>/sha256` (rules in the
 * module doc). A failure to list or remove never fails the write that
 * asked: what is left is removed by a later runner.
 *
 * @param root the store's root
 * @returns the entries removed, sorted
 */
export function removeDeadStaging(root: string): Promise<string[]> {
  let sweep = swept.get(root);
  if (sweep === undefined) {
    sweep = sweepStore(root);
    swept.set(root, sweep);
  }
  return sweep;
}

async function sweepStore(root: string): Promise<string[]> {
  const host = Deno.hostname();
  const removed: string[] = [];
  for (const dir of [root, `${root}/sha256`]) {
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    } catch {
      continue; // not made yet
    }
    for (const name of names) {
      const match = NAME.exec(name);
      if (match === null || match[3] !== host) continue;
      if (runnerAlive({ host, pid: Number(match[1]), start: Number(match[2]) })) continue;
      try {
        await removeTree(`${dir}/${name}`);
        removed.push(`${dir}/${name}`);
      } catch {
        // left for a later runner
      }
    }
  }
  return removed.sort();
}
