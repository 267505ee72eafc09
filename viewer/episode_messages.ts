/**
 * An episode's conversation as one list of messages, whatever kept it: the
 * relay's stored model-call bodies (a row the runner wrote, read by
 * `transcript`) or the messages an imported source kept (an Inspect
 * sample's `messages`, `ledgerbench import`). One message model
 * (`TranscriptMessage`) for both, so the page, `export inspect` and a
 * messages table read them alike. Pure: every string stays untrusted.
 *
 * @module
 */
import type { EpisodeLog } from "../runner/episode_log_store.ts";
import { importedRecord } from "../inputs/import/imported_record.ts";
import { transcript, type TranscriptMessage, type TranscriptPart } from "./transcript.ts";

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The episode's messages in conversation order.
 *
 * Rule: an imported log's kept messages (`importedMessages`); else each
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
