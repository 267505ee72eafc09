/**
 * One row per message part of the episodes' transcripts (Inspect's
 * `messages_df`, for a ledger).
 *
 * @module
 */
import type * as dfd from "danfojs";
import { episodeMessages } from "../viewer/episode_messages.ts";
import { frameOf } from "./frame_of.ts";
import type { OpenedLedger } from "./open_ledger.ts";

/** One part of one message as a flat record, keys in this order. */
export interface MessageRecord {
  episode_id: string;
  agent_id: string;
  task_id: string;
  /** 1-based position of the part in the episode's transcript. */
  position: number;
  /** The message's role as the API names it (`user`, `assistant`, `tool`, `system`, …). */
  role: string;
  /** `text`, `tool_call` (the model asks for a tool) or `tool_result` (the tool's answer). */
  kind: "text" | "tool_call" | "tool_result";
  /** The text, a tool call's arguments or a tool result's text; untrusted. */
  text: string;
  /** A tool call's tool name; null for other parts. */
  tool: string | null;
  /** The id pairing a tool call with its result; null when the API gave none. */
  tool_call_id: string | null;
}

const COLUMNS: readonly (keyof MessageRecord)[] = [
  "episode_id",
  "agent_id",
  "task_id",
  "position",
  "role",
  "kind",
  "text",
  "tool",
  "tool_call_id",
];

/**
 * The transcripts of the episodes formal scores count, one row per message
 * part, as `view` shows them (`episodeMessages`): for a row the runner wrote,
 * the model-call bodies the relay kept (each call's new turns, then its
 * reply, in the shape of its API); for an imported row, the messages its
 * source kept (an Inspect sample's, a Harbor trial's trajectory). Text stays
 * as the agent and the model wrote it: untrusted, to be escaped wherever it
 * is shown. A row whose log is not kept has no message here. O(bytes of the
 * kept logs).
 *
 * @param run an opened ledger
 * @returns the frame, columns as {@link MessageRecord}
 * @throws {Error} when the store lacks a log a row names, or its bytes changed
 * @example
 * ```ts
 * import { messagesFrame, openLedger } from "../mod.ts";
 * const run = await openLedger(new URL("../ledgers/demo/ledger.jsonl", import.meta.url).pathname);
 * if ((await messagesFrame(run)).columns[4] !== "role") throw new Error();
 * ```
 */
export async function messagesFrame(
  run: Pick<OpenedLedger, "rows" | "episodeLog">,
): Promise<dfd.DataFrame> {
  const records: MessageRecord[] = [];
  for (const row of run.rows) {
    const log = await run.episodeLog(row);
    if (log === null) continue;
    let position = 0;
    for (const message of episodeMessages(log)) {
      for (const part of message.parts) {
        records.push({
          episode_id: row.episode_id,
          agent_id: row.agent_id,
          task_id: row.task_id,
          position: ++position,
          role: message.role,
          kind: part.kind,
          text: part.kind === "tool_call" ? part.arguments : part.text,
          tool: part.kind === "tool_call" ? part.name : null,
          tool_call_id: part.kind === "text" ? null : part.id,
        });
      }
    }
  }
  return frameOf(records, COLUMNS);
}
