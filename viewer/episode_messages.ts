/**
 * An episode's conversation as one list of messages, whatever kept it: the
 * relay's stored model-call bodies (a row the runner wrote, read by
 * `transcript`) or the messages an imported source kept (an Inspect
 * sample's `messages`, a Harbor trial's ATIF trajectory; `ledgerbench
 * import`). One message model
 * (`TranscriptMessage`) for both, so the page, `export inspect` and a
 * messages table read them alike. Pure: every string stays untrusted.
 *
 * @module
 */
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";
import { importedRecord } from "../inputs/import/imported_record.ts";
import { transcript, type TranscriptMessage, type TranscriptPart } from "./transcript.ts";

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The episode's messages in conversation order.
 *
 * Rule: an imported log's kept messages (an Inspect sample's `messages`; a
 * Harbor trajectory's steps, `atifMessages`); else each
 * stored model call's new request messages then its reply, in call order,
 * as `transcript` reads them (turns an earlier call already showed are not
 * repeated; a call whose bodies could not be read adds what could be).
 * O(size of the log).
 *
 * Load a row's log with `openEpisodeLog(artifacts, row.episode_log_digest)`
 * (`runner/episode_log_store.ts`; `artifacts` is `artifacts/` beside the
 * ledger unless the run stored it elsewhere).
 *
 * @param log the episode's stored log
 * @returns the messages, each with its role and parts (text, tool call, tool result)
 * @example
 * ```ts
 * import { episodeMessages } from "./episode_messages.ts";
 * const record = JSON.stringify({
 *   messages: [
 *     { role: "user", content: "2+2?" },
 *     { role: "assistant", content: "4" },
 *   ],
 * });
 * const messages = episodeMessages({
 *   format: "ledgerbench-episode-log/1", episode_id: "r/a/t/1", stdout_tail: null,
 *   stderr_tail: null, calls: [], calls_omitted: 0, bodies: [], bodies_omitted: 0,
 *   imported: { format: "inspect", record },
 * });
 * if (messages[1].role !== "assistant" || messages[1].parts[0].kind !== "text") throw new Error();
 * ```
 */
export function episodeMessages(log: EpisodeLog): TranscriptMessage[] {
  if (log.imported?.format === "atif") return atifMessages(importedRecord(log.imported));
  if (log.imported !== undefined) {
    const kept = importedRecord(log.imported);
    const attachments = isObj(kept.attachments) ? kept.attachments : {};
    return Array.isArray(kept.messages)
      ? kept.messages.map((message) => inspectMessage(message, attachments))
      : [];
  }
  return transcript(log.bodies).flatMap((call) => [
    ...call.sent,
    ...(call.reply === null ? [] : [call.reply]),
  ]);
}

/**
 * One Inspect `ChatMessage` (`model/_chat_message.py`: `role`, `content` a
 * string or a list of `Content`, an assistant's `tool_calls` of `id`,
 * `function`, `arguments`, a tool message's `tool_call_id` and `error`),
 * its `attachment://` references resolved from the sample's attachments.
 */
function inspectMessage(message: unknown, attachments: Obj): TranscriptMessage {
  const resolve = (text: unknown): string => {
    const value = typeof text === "string" ? text : text === undefined ? "" : JSON.stringify(text);
    const match = /^attachment:\/\/(.+)$/.exec(value);
    const found = match === null ? undefined : attachments[match[1]];
    return typeof found === "string" ? found : value;
  };
  if (!isObj(message)) {
    return { role: "unknown", parts: [{ kind: "text", text: resolve(message) }] };
  }
  const role = typeof message.role === "string" ? message.role : "unknown";
  const texts = typeof message.content === "string"
    ? [resolve(message.content)]
    : Array.isArray(message.content)
    ? message.content.map((content) => contentText(content, resolve))
    : [];
  const parts: TranscriptPart[] = [];
  if (role === "tool") {
    const error = isObj(message.error)
      ? [`[tool error: ${resolve(message.error.type)}: ${resolve(message.error.message)}]`]
      : [];
    parts.push({
      kind: "tool_result",
      id: typeof message.tool_call_id === "string" ? message.tool_call_id : null,
      text: [...texts.filter((text) => text !== ""), ...error].join("\n"),
    });
  } else {
    for (const text of texts) if (text !== "") parts.push({ kind: "text", text });
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isObj(call)) continue;
      parts.push({
        kind: "tool_call",
        name: resolve(call.function),
        id: typeof call.id === "string" ? call.id : null,
        arguments: JSON.stringify(call.arguments ?? {}),
      });
    }
  }
  return { role, parts };
}

/** One `Content` item as text: its text, reasoning or refusal, else its type in brackets. */
function contentText(content: unknown, resolve: (text: unknown) => string): string {
  if (!isObj(content)) return resolve(content);
  switch (content.type) {
    case "text":
      return resolve(content.text);
    case "reasoning":
      return content.redacted === true
        ? `[reasoning, redacted]${content.summary ? ` ${resolve(content.summary)}` : ""}`
        : `[reasoning] ${resolve(content.reasoning)}`;
    case "tool_use":
      return `[${resolve(content.tool_type)} ${resolve(content.name)}] ${
        resolve(content.arguments)
      }\n${resolve(content.result)}`;
    default:
      return `[${resolve(content.type)}]`;
  }
}

/**
 * A Harbor agent trajectory's steps (ATIF, `models/trajectories/step.py` at
 * commit 7d91dbf: `source` system, user or agent; `message` a string or
 * content parts; `reasoning_content`; `tool_calls` of `tool_call_id`,
 * `function_name`, `arguments`; `observation.results` of `source_call_id`
 * and `content`) as messages: each step one message of its source (`agent`
 * as `assistant`), its reasoning, text and tool calls in that order, then
 * its observation's results as one `tool` message. Subagent trajectories
 * are not read.
 */
function atifMessages(trajectory: Obj): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [];
  for (const step of Array.isArray(trajectory.steps) ? trajectory.steps : []) {
    if (!isObj(step)) continue;
    const parts: TranscriptPart[] = [];
    if (typeof step.reasoning_content === "string" && step.reasoning_content !== "") {
      parts.push({ kind: "text", text: `[reasoning] ${step.reasoning_content}` });
    }
    const text = atifText(step.message);
    if (text !== "") parts.push({ kind: "text", text });
    for (const call of Array.isArray(step.tool_calls) ? step.tool_calls : []) {
      if (!isObj(call)) continue;
      parts.push({
        kind: "tool_call",
        name: typeof call.function_name === "string" ? call.function_name : "",
        id: typeof call.tool_call_id === "string" ? call.tool_call_id : null,
        arguments: JSON.stringify(call.arguments ?? {}),
      });
    }
    const source = typeof step.source === "string" ? step.source : "unknown";
    messages.push({ role: source === "agent" ? "assistant" : source, parts });
    const observation = isObj(step.observation) ? step.observation.results : undefined;
    const results = Array.isArray(observation) ? observation.filter(isObj) : [];
    if (results.length > 0) {
      messages.push({
        role: "tool",
        parts: results.map((result) => ({
          kind: "tool_result" as const,
          id: typeof result.source_call_id === "string" ? result.source_call_id : null,
          text: atifText(result.content),
        })),
      });
    }
  }
  return messages;
}

/** An ATIF message or result content (a string, or text and image parts) as text. */
function atifText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) =>
    isObj(part) && typeof part.text === "string"
      ? part.text
      : `[${isObj(part) ? part.type : "part"}]`
  ).join("\n");
}
