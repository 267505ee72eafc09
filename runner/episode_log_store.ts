/**
 * The content-addressed store of episode logs (issue 8, "See what happened in
 * an episode"): what a row's numbers cannot say about an attempt, kept as
 * evidence beside its workspace artifact. One log per episode holds the
 * candidate's bounded stdout and stderr tails, the relay's call records
 * (model, usage, status, latency, refusal, fault of each call) and each
 * call's request and response bodies as the relay kept them (bounded, the
 * key redacted: `Relay.callBodies()`), for a judged task the judge's
 * relay's records and bodies beside them (issue 14), and the verifier's own
 * output tails with the mode it ran in (issue 22), and the workspace diff
 * against the task's start (`workspaceDiff`, bounded). An
 * imported row's log (`ledgerbench import`) holds no tails, calls or
 * bodies, only the conversation its source kept (`imported`).
 *
 * Layout, under the artifact store's root (`runner/sandbox/artifact_store.ts`):
 * `<root>/sha256/<hex>.episode-log.json`, the log as canonical JSON
 * (`canonicalJson`), read-only, whose SHA-256 is `<hex>`; the row names it as
 * `episode_log_digest: "sha256:<hex>"`.
 *
 * @module
 */
import { canonicalJson } from "../analysis/canonical_json.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import type { CallBodies } from "./relay/call_bodies.ts";
import { tailText } from "./sandbox/tail_text.ts";
import type { FsChange, SessionProcess } from "./sandbox/sandbox_session.ts";
import type { WorkspaceDiff } from "./sandbox/workspace_diff.ts";
import { removeDeadStaging, stagingPath } from "./sandbox/store_staging.ts";
import { nameFullDisk } from "./name_full_disk.ts";
import { readRegularFile } from "../inputs/read_regular_file.ts";
import type { ImportedTranscript } from "../inputs/import/imported_attempt.ts";
import { EPISODE_LOG_FORMAT, EpisodeLog } from "../analysis/schema/episode_log.ts";
import type { VerifierMode } from "../analysis/schema/records.ts";
import type { RelayCallRecord, RelayDeniedRequest } from "../analysis/schema/relay_call_record.ts";
import type { EgressRequest } from "../analysis/schema/egress_request.ts";

/** What replaces a redacted value (the relay's own marker). */
const REDACTED = "[redacted]";

/**
 * Compile-time check that the relay's bodies (`CallBodies`) and an
 * import's transcript (`ImportedTranscript`) are exactly what the stored
 * log holds, so that the writers and the schema cannot drift.
 */
type _StoredFormsMatch = [
  Same<CallBodies, EpisodeLog["bodies"][number]>,
  Same<ImportedTranscript, NonNullable<EpisodeLog["imported"]>>,
];
/** `true` when `A` and `B` are assignable both ways; a type error otherwise. */
type Same<A extends B, B extends C, C = A> = true;

/** What {@linkcode storeEpisodeLog} stores of one episode. */
export interface EpisodeLogInput {
  episode_id: string;
  /** The candidate's stdout tail (null: not captured). */
  stdoutTail: string | null;
  /** The candidate's stderr tail (null: not captured). */
  stderrTail: string | null;
  /** The relay's call records (null or empty: no relay ran, or no call). */
  records: readonly RelayCallRecord[] | null;
  /** The judge's relay's records and bodies (absent: no judge was asked). */
  judge?: { records: readonly RelayCallRecord[]; bodies: readonly CallBodies[] };
  /** The relay's call bodies (`Relay.callBodies()`, already bounded; null: no relay ran). */
  bodies: readonly CallBodies[] | null;
  /** The relay's denied requests (`Relay.denied()`; absent or empty: none). */
  denied?: readonly RelayDeniedRequest[];
  /**
   * The verifier's mode and output tails, and in Harbor's modes what it
   * saw of the environment (absent: the verifier did not run or kept none).
   */
  verifier?: {
    mode: VerifierMode;
    stdoutTail: string;
    stderrTail: string;
    changes?: readonly FsChange[];
    processes?: readonly SessionProcess[];
    egress?: readonly EgressRequest[];
  };
  /** The workspace diff against the task's start (`workspaceDiff`; absent: not made). */
  workspaceDiff?: WorkspaceDiff;
  /** The agent's requests through its egress proxy (absent: it had no network). */
  agentEgress?: readonly EgressRequest[];
  /** An imported row's conversation as its source wrote it (absent: none). */
  imported?: ImportedTranscript;
}

/**
 * How much of a verifier's view of its environment a log keeps: the first
 * entries of the diff, of the process list and of the egress requests; the
 * rest is counted (`*_omitted`). A process's command is cut to its first
 * `commandChars` characters.
 */
export const VERIFIER_EVIDENCE_LIMITS = {
  changes: 1000,
  processes: 256,
  egress: 256,
  commandChars: 512,
} as const;

/** The log's verifier section: the tails bounded, the lists cut at their limits and counted. */
function verifierSection(
  verifier: NonNullable<EpisodeLogInput["verifier"]>,
  tail: (text: string) => string | null,
): NonNullable<EpisodeLog["verifier"]> {
  const limits = VERIFIER_EVIDENCE_LIMITS;
  const cut = <T>(name: string, list: readonly T[] | undefined, max: number) =>
    list === undefined
      ? {}
      : { [name]: list.slice(0, max), [`${name}_omitted`]: Math.max(0, list.length - max) };
  return {
    mode: verifier.mode,
    stdout_tail: tail(verifier.stdoutTail)!,
    stderr_tail: tail(verifier.stderrTail)!,
    ...cut("changes", verifier.changes, limits.changes),
    ...cut(
      "processes",
      verifier.processes?.map((p) => ({ ...p, command: p.command.slice(0, limits.commandChars) })),
      limits.processes,
    ),
    ...cut("egress", verifier.egress, limits.egress),
  };
}

/** Options of {@linkcode storeEpisodeLog}. */
export interface StoreEpisodeLogOptions {
  /** Bytes kept of each tail (its end); default 65536, the sandbox's own tail. */
  maxTailBytes?: number;
  /** Call records kept, and call bodies kept (the first ones of each); default 1000. */
  maxCalls?: number;
  /** Values replaced by `[redacted]` in every stored string (the upstream key). */
  redact?: readonly string[];
}

/** A stored log: its digest and file. */
export interface StoredEpisodeLog {
  /** `sha256:<hex>` of the file's bytes. */
  digest: string;
  path: string;
}

/**
 * Stores an episode's log: bounds it (each tail, the candidate's and the
 * verifier's, to its last `maxTailBytes` bytes, marked as `tailText` marks a cut; at most `maxCalls` records and
 * `maxCalls` bodies, the rest counted in `calls_omitted` and
 * `bodies_omitted`; each body comes bounded by the relay), replaces every `redact` value by
 * `[redacted]` in every string, writes it as canonical JSON to
 * `<root>/sha256/<hex>.episode-log.json` (read-only, through a staging file
 * named after this runner and a rename; the first store of a process removes
 * the staging of runners that are gone, `store_staging.ts`) and returns its
 * digest. The same log stored twice is one file (same bytes, same digest).
 *
 * Cost: linear in the log's size; one file written.
 *
 * @param root the artifact store's root (created when missing)
 * @param input the episode's id, tails and call records
 * @param options bounds and values to redact
 * @returns the digest (for the row's `episode_log_digest`) and the file
 * @throws {DiskFullError} when the store's file system is full (`ENOSPC`, `EDQUOT`), naming the store
 * @throws {Deno.errors.PermissionDenied} and other I/O errors when the file cannot be written
 * @example
 * ```ts
 * import { openEpisodeLog, storeEpisodeLog } from "./episode_log_store.ts";
 * const root = await Deno.makeTempDir();
 * const input = {
 *   episode_id: "r/a/t/1",
 *   stdoutTail: "",
 *   stderrTail: "boom\n",
 *   records: [],
 *   bodies: [],
 * };
 * const stored = await storeEpisodeLog(root, input);
 * const log = await openEpisodeLog(root, stored.digest);
 * if (log.stderr_tail !== "boom\n") throw new Error("round trip failed");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function storeEpisodeLog(
  root: string,
  input: EpisodeLogInput,
  options: StoreEpisodeLogOptions = {},
): Promise<StoredEpisodeLog> {
  const maxTailBytes = options.maxTailBytes ?? 65536;
  const maxCalls = options.maxCalls ?? 1000;
  const records = input.records ?? [];
  const bodies = input.bodies ?? [];
  const encoder = new TextEncoder();
  const tail = (text: string | null) =>
    text === null ? null : tailText(encoder.encode(text), maxTailBytes);
  const log: EpisodeLog = {
    format: EPISODE_LOG_FORMAT,
    episode_id: input.episode_id,
    stdout_tail: tail(input.stdoutTail),
    stderr_tail: tail(input.stderrTail),
    calls: records.slice(0, maxCalls),
    calls_omitted: Math.max(0, records.length - maxCalls),
    bodies: bodies.slice(0, maxCalls),
    bodies_omitted: Math.max(0, bodies.length - maxCalls),
    ...(input.denied === undefined || input.denied.length === 0
      ? {}
      : { denied_requests: [...input.denied] }),
    ...(input.judge === undefined ? {} : {
      judge: {
        calls: input.judge.records.slice(0, maxCalls),
        bodies: input.judge.bodies.slice(0, maxCalls),
      },
    }),
    ...(input.verifier === undefined ? {} : { verifier: verifierSection(input.verifier, tail) }),
    ...(input.workspaceDiff === undefined ? {} : {
      workspace_diff: {
        text: input.workspaceDiff.text,
        truncated: input.workspaceDiff.truncated,
        files: input.workspaceDiff.files,
        files_omitted: input.workspaceDiff.files_omitted,
      },
    }),
    ...(input.agentEgress === undefined ? {} : {
      agent_egress: input.agentEgress.slice(0, VERIFIER_EVIDENCE_LIMITS.egress),
      agent_egress_omitted: Math.max(0, input.agentEgress.length - VERIFIER_EVIDENCE_LIMITS.egress),
    }),
    ...(input.imported === undefined ? {} : { imported: { ...input.imported } }),
  };
  const secrets = (options.redact ?? []).filter((value) => value.length > 0);
  const text = canonicalJson(redactStrings(log, secrets));
  const hex = sha256Hex(text);
  const shelf = `${root}/sha256`;
  const path = `${shelf}/${hex}.episode-log.json`;
  const staging = stagingPath(shelf, ".episode-log.json");
  try {
    await Deno.mkdir(shelf, { recursive: true });
    await removeDeadStaging(root);
    await Deno.writeTextFile(staging, text, { mode: 0o444 });
    await Deno.rename(staging, path);
  } catch (error) {
    throw nameFullDisk(error, [{ place: "artifact store", path: root }]);
  } finally {
    await Deno.remove(staging).catch(() => {});
  }
  return { digest: `sha256:${hex}`, path };
}

/**
 * The largest episode log read back (a store is someone else's directory:
 * only a regular file is read, never a fifo or a link, and never more than
 * this): far above any log the runner writes, whose call bodies and output
 * tails are each bounded.
 */
export const EPISODE_LOG_READ_BYTES = 512 * 1024 ** 2;

/**
 * Opens a stored log by the digest its row records, checking the file's
 * bytes against the digest before reading them.
 *
 * @param root the artifact store's root
 * @param digest `sha256:<hex>`, the row's `episode_log_digest`
 * @returns the log
 * @throws {Error} when the digest is malformed, the log is not in `root`, its
 *   bytes no longer match the digest, or it is not an episode log
 */
export async function openEpisodeLog(root: string, digest: string): Promise<EpisodeLog> {
  const match = /^sha256:([0-9a-f]{64})$/.exec(digest);
  if (!match) {
    throw new Error(`Cannot open episode log: digest "${digest}" is not "sha256:<64 hex>"`);
  }
  const path = `${root}/sha256/${match[1]}.episode-log.json`;
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(path, EPISODE_LOG_READ_BYTES);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(`Cannot open episode log "${digest}": not in "${root}"`);
    }
    throw new Error(`Cannot open episode log "${digest}": ${(error as Error).message}`);
  }
  const found = `sha256:${sha256Hex(bytes)}`;
  if (found !== digest) {
    throw new Error(`Cannot open episode log "${digest}": "${path}" has digest "${found}"`);
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new Error(`Cannot open episode log "${digest}": "${path}" is not JSON`);
  }
  const parsed = EpisodeLog.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `Cannot open episode log "${digest}": field "${issue.path.join(".")}": ${issue.message}`,
    );
  }
  return parsed.data;
}

/** A copy of `value` with every occurrence of each secret in its strings replaced. */
function redactStrings<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") {
      return secrets.reduce((text, secret) => text.replaceAll(secret, REDACTED), item);
    }
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === "object") {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
    }
    return item;
  };
  return walk(value) as T;
}
