/**
 * One row per model call the relay recorded (Inspect's `events_df` of model
 * events, for a ledger).
 *
 * @module
 */
import type * as dfd from "danfojs";
import type { RelayFault, RelayRefusal } from "../analysis/schema/relay_call_record.ts";
import { frameOf } from "./frame_of.ts";
import type { OpenedLedger } from "./open_ledger.ts";

/** One model call as a flat record, keys in this order. */
export interface CallRecord {
  episode_id: string;
  agent_id: string;
  task_id: string;
  /** 1-based arrival order among the episode's model-call requests. */
  index: number;
  /** The API path the agent called (`/v1/chat/completions`, `/v1/messages`, …). */
  endpoint: string;
  /** True when the call reached the provider (a model call of the episode). */
  forwarded: boolean;
  /** The HTTP status the agent saw. */
  status: number;
  /** Why the relay refused the call; null when it forwarded it. */
  refusal: RelayRefusal | null;
  /** What went wrong upstream; null when nothing did. */
  fault: RelayFault | null;
  /** The provider's usage; null when it reported none (never 0 in its place). */
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** The upstream round trip, to the end of a stream; 0 for a refused call. */
  latency_ms: number;
  /** Tool calls the reply asked the agent to run. */
  tool_calls: number;
  /** The model the provider said answered; null when it said none. */
  server_model_id: string | null;
}

const COLUMNS: readonly (keyof CallRecord)[] = [
  "episode_id",
  "agent_id",
  "task_id",
  "index",
  "endpoint",
  "forwarded",
  "status",
  "refusal",
  "fault",
  "prompt_tokens",
  "completion_tokens",
  "latency_ms",
  "tool_calls",
  "server_model_id",
];

/**
 * The model calls of the episodes formal scores count, read from the episode
 * logs in the artifact store (the relay's record of each call, seed 000's
 * evidence that the agent's spend was witnessed), in ledger order and then
 * call order. A row whose log is not kept (an imported row, a ledger copied
 * without its `artifacts/`) has no call here: compare `episodes` with the
 * episodes frame to see which. O(calls); each log is read once.
 *
 * @param run an opened ledger
 * @returns the frame, columns as {@link CallRecord}
 * @throws {Error} when the store lacks a log a row names, or its bytes changed
 * @example
 * ```ts
 * import { callsFrame, openLedger } from "../mod.ts";
 * // The committed demo ledger has no artifact store beside it: no call is read.
 * const run = await openLedger(new URL("../ledgers/demo/ledger.jsonl", import.meta.url).pathname);
 * if ((await callsFrame(run)).shape[0] !== 0) throw new Error();
 * ```
 */
export async function callsFrame(
  run: Pick<OpenedLedger, "rows" | "episodeLog">,
): Promise<dfd.DataFrame> {
  const records: CallRecord[] = [];
  for (const row of run.rows) {
    const log = await run.episodeLog(row);
    for (const call of log?.calls ?? []) {
      records.push({
        episode_id: row.episode_id,
        agent_id: row.agent_id,
        task_id: row.task_id,
        index: call.index,
        endpoint: call.endpoint,
        forwarded: call.forwarded,
        status: call.status,
        refusal: call.refusal,
        fault: call.fault,
        prompt_tokens: call.usage?.prompt_tokens ?? null,
        completion_tokens: call.usage?.completion_tokens ?? null,
        latency_ms: call.latency_ms,
        tool_calls: call.tool_calls,
        server_model_id: call.server_model_id,
      });
    }
  }
  return frameOf(records, COLUMNS);
}
