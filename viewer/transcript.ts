/**
 * An episode's transcript from the model-call bodies the relay stored
 * (issue 25): each call's request and response read in the shape of its
 * API, as the relay keeps them (`runner/relay/call_bodies.ts`: the request
 * as the agent sent it, the response as the agent received it, a stream as
 * its events concatenated). Pure: text in, messages out; nothing is
 * executed or fetched, and every string stays untrusted (the page escapes).
 *
 * The four APIs the relay meters:
 * - Chat Completions (`/v1/chat/completions`): `messages` (`content` a
 *   string or parts, `tool_calls`, `role: "tool"` results); the reply's
 *   `choices[0].message`, or a stream's `delta`s joined;
 * - Completions (`/v1/completions`): `prompt`; `choices[0].text`;
 * - Responses (`/v1/responses`): `instructions` and `input` (a string or
 *   items: messages, `function_call`, `function_call_output`, `reasoning`);
 *   the reply's `output` items, from a stream's `response.completed` event;
 * - Messages (`/v1/messages`): `system` and `messages` (content blocks
 *   `text`, `tool_use`, `tool_result`, `thinking`); the reply's `content`,
 *   or a stream's `content_block_*` events joined.
 *
 * A body the relay cut (`truncated`) or that does not parse is shown as its
 * kept text with a note, never guessed at.
 *
 * @module
 */
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";

/** One part of a message. */
export type TranscriptPart =
  | { kind: "text"; text: string }
  | { kind: "tool_call"; name: string; id: string | null; arguments: string }
  | { kind: "tool_result"; id: string | null; text: string };

/** One message of the conversation. */
export interface TranscriptMessage {
  role: string;
  parts: TranscriptPart[];
}

/** One model call, as the transcript shows it. */
export interface TranscriptCall {
  index: number;
  endpoint: string;
  /** The request's messages not already shown by an earlier call (the conversation's new turns). */
  sent: TranscriptMessage[];
  /** How many of the request's messages were left out as already shown. */
  already_shown: number;
  /** The reply, or null when it could not be read (see `notes`). */
  reply: TranscriptMessage | null;
  /** What could not be read, in sentences (a cut body, a shape not known). */
  notes: string[];
  /** The request's text as kept, when it could not be read; null otherwise. */
  raw_request: string | null;
  /** The response's text as kept, when it could not be read; null otherwise. */
  raw_response: string | null;
}

type Json = unknown;
type Obj = Record<string, Json>;

const isObj = (value: Json): value is Obj =>
  value !== null && typeof value === "object" && !Array.isArray(value);
const str = (value: Json): string =>
  typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);

/**
 * The transcript of an episode's calls, in index order: for each call the
 * request's new messages (those past the previous request's, less the
 * assistant turns that echo the previous reply) and the reply. A request
 * shorter than the one before starts a new conversation and is shown whole.
 *
 * Cost: O(total size of the bodies).
 *
 * @param bodies the episode log's `bodies`
 * @returns one entry per stored call
 * @example
 * ```ts
 * import { transcript } from "./transcript.ts";
 * const [call] = transcript([{
 *   index: 1,
 *   endpoint: "/v1/chat/completions",
 *   request: { text: '{"messages":[{"role":"user","content":"hi"}]}', bytes: 45, truncated: false },
 *   response: {
 *     text: '{"choices":[{"message":{"role":"assistant","content":"hello"}}]}',
 *     bytes: 64,
 *     truncated: false,
 *   },
 * }]);
 * if (call.sent[0].parts[0].kind !== "text" || call.reply?.role !== "assistant") throw new Error();
 * ```
 */
export function transcript(bodies: EpisodeLog["bodies"]): TranscriptCall[] {
  const calls: TranscriptCall[] = [];
  let previous = -1;
  for (const body of [...bodies].sort((a, b) => a.index - b.index)) {
    const notes: string[] = [];
    const request = parseJson(body.request.text);
    let messages: TranscriptMessage[] | null = null;
    if (body.request.truncated) {
      notes.push(
        `The request was cut by the relay (first part of ${body.request.bytes} bytes kept)`,
      );
    } else if (request === undefined) notes.push("The request is not JSON");
    else {
      messages = requestMessages(body.endpoint, request);
      if (messages === null) notes.push(`The request's shape for ${body.endpoint} is not known`);
    }
    let sent: TranscriptMessage[] = [];
    let alreadyShown = 0;
    if (messages !== null) {
      if (previous >= 0 && messages.length > previous) {
        alreadyShown = previous;
        sent = messages.slice(previous);
        while (sent.length > 0 && sent[0].role === "assistant" && calls.at(-1)?.reply != null) {
          sent.shift();
          alreadyShown++;
        }
      } else sent = messages;
      previous = messages.length;
    } else previous = -1;
    let reply: TranscriptMessage | null = null;
    const response = body.response.text;
    if (body.response.truncated) {
      notes.push(
        `The response was cut by the relay (first part of ${body.response.bytes} bytes kept)`,
      );
    } else {
      reply = replyMessage(body.endpoint, response);
      if (reply === null && response !== "") {
        notes.push(`The response's shape for ${body.endpoint} is not known`);
      }
    }
    calls.push({
      index: body.index,
      endpoint: body.endpoint,
      sent,
      already_shown: alreadyShown,
      reply,
      notes,
      raw_request: messages === null ? body.request.text : null,
      raw_response: reply === null ? response : null,
    });
  }
  return calls;
}

/**
 * Every tool call of the transcript's replies, in order, with the call's index.
 *
 * @param calls the transcript
 * @returns the tool calls the model asked for
 */
export function toolCalls(
  calls: readonly TranscriptCall[],
): { call: number; name: string; id: string | null; arguments: string }[] {
  return calls.flatMap((call) =>
    (call.reply?.parts ?? []).flatMap((part) =>
      part.kind === "tool_call"
        ? [{ call: call.index, name: part.name, id: part.id, arguments: part.arguments }]
        : []
    )
  );
}

function parseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function apiOf(endpoint: string): "chat" | "completions" | "responses" | "messages" | null {
  if (endpoint.endsWith("/chat/completions")) return "chat";
  if (endpoint.endsWith("/completions")) return "completions";
  if (endpoint.endsWith("/responses")) return "responses";
  if (endpoint.endsWith("/messages")) return "messages";
  return null;
}

/** The request's conversation, or null for a shape not known. */
function requestMessages(endpoint: string, request: Json): TranscriptMessage[] | null {
  if (!isObj(request)) return null;
  switch (apiOf(endpoint)) {
    case "chat":
      return Array.isArray(request.messages) ? request.messages.map(chatMessage) : null;
    case "completions":
      return [{ role: "user", parts: [{ kind: "text", text: str(request.prompt) }] }];
    case "responses": {
      const out: TranscriptMessage[] = [];
      if (typeof request.instructions === "string") {
        out.push({ role: "system", parts: [{ kind: "text", text: request.instructions }] });
      }
      if (typeof request.input === "string") {
        out.push({ role: "user", parts: [{ kind: "text", text: request.input }] });
      } else if (Array.isArray(request.input)) out.push(...responseItems(request.input));
      else return null;
      return out;
    }
    case "messages": {
      if (!Array.isArray(request.messages)) return null;
      const out: TranscriptMessage[] = [];
      if (request.system !== undefined) {
        out.push({ role: "system", parts: anthropicBlocks(request.system) });
      }
      for (const message of request.messages) {
        if (!isObj(message)) continue;
        out.push({ role: str(message.role), parts: anthropicBlocks(message.content) });
      }
      return out;
    }
    default:
      return null;
  }
}

function chatMessage(message: Json): TranscriptMessage {
  if (!isObj(message)) return { role: "unknown", parts: [{ kind: "text", text: str(message) }] };
  const role = str(message.role);
  const parts: TranscriptPart[] = [];
  const content = message.content;
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part) => isObj(part) && typeof part.text === "string" ? part.text : str(part))
      .join("\n")
    : "";
  if (role === "tool") {
    parts.push({
      kind: "tool_result",
      id: typeof message.tool_call_id === "string" ? message.tool_call_id : null,
      text,
    });
  } else if (text !== "") parts.push({ kind: "text", text });
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isObj(call)) continue;
      const fn = isObj(call.function) ? call.function : {};
      parts.push({
        kind: "tool_call",
        name: str(fn.name),
        id: typeof call.id === "string" ? call.id : null,
        arguments: str(fn.arguments),
      });
    }
  }
  return { role, parts };
}

/** Responses API items (request `input` or reply `output`), consecutive parts of one role merged. */
function responseItems(items: readonly Json[]): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  const add = (role: string, part: TranscriptPart) => {
    const last = out.at(-1);
    if (last !== undefined && last.role === role) last.parts.push(part);
    else out.push({ role, parts: [part] });
  };
  for (const item of items) {
    if (!isObj(item)) continue;
    const type = item.type ?? "message";
    if (type === "message") {
      const content = item.content;
      const text = typeof content === "string"
        ? content
        : Array.isArray(content)
        ? content.map((c) => isObj(c) ? str(c.text ?? c.refusal ?? "") : str(c)).join("\n")
        : "";
      add(str(item.role), { kind: "text", text });
    } else if (type === "function_call" || type === "custom_tool_call") {
      add("assistant", {
        kind: "tool_call",
        name: str(item.name),
        id: typeof item.call_id === "string" ? item.call_id : null,
        arguments: str(item.arguments ?? item.input),
      });
    } else if (type === "local_shell_call") {
      add("assistant", {
        kind: "tool_call",
        name: "local_shell",
        id: typeof item.call_id === "string" ? item.call_id : null,
        arguments: str(item.action),
      });
    } else if (String(type).endsWith("_call_output")) {
      add("tool", {
        kind: "tool_result",
        id: typeof item.call_id === "string" ? item.call_id : null,
        text: str(item.output),
      });
    } else if (type === "reasoning") {
      const summary = Array.isArray(item.summary)
        ? item.summary.map((s) => isObj(s) ? str(s.text) : str(s)).join("\n")
        : "";
      if (summary !== "") add("assistant (reasoning)", { kind: "text", text: summary });
    } else add(str(item.role ?? "item"), { kind: "text", text: `[${str(type)}]` });
  }
  return out;
}

function anthropicBlocks(content: Json): TranscriptPart[] {
  if (typeof content === "string") return [{ kind: "text", text: content }];
  if (!Array.isArray(content)) return [];
  const parts: TranscriptPart[] = [];
  for (const block of content) {
    if (!isObj(block)) continue;
    if (block.type === "text") parts.push({ kind: "text", text: str(block.text) });
    else if (block.type === "thinking") {
      parts.push({ kind: "text", text: `[thinking] ${str(block.thinking)}` });
    } else if (block.type === "tool_use" || block.type === "server_tool_use") {
      parts.push({
        kind: "tool_call",
        name: str(block.name),
        id: typeof block.id === "string" ? block.id : null,
        arguments: str(block.input),
      });
    } else if (block.type === "tool_result") {
      const inner = typeof block.content === "string"
        ? block.content
        : anthropicBlocks(block.content).map((p) => p.kind === "text" ? p.text : "").join("\n");
      parts.push({
        kind: "tool_result",
        id: typeof block.tool_use_id === "string" ? block.tool_use_id : null,
        text: inner,
      });
    } else parts.push({ kind: "text", text: `[${str(block.type)}]` });
  }
  return parts;
}

/** The reply, whole or streamed; null for a shape not known. */
function replyMessage(endpoint: string, text: string): TranscriptMessage | null {
  const whole = parseJson(text);
  const events = whole === undefined ? sseEvents(text) : null;
  switch (apiOf(endpoint)) {
    case "chat":
      return events === null ? chatReply(whole) : chatStream(events);
    case "completions": {
      if (events !== null) {
        const joined = events.map((e) => isObj(e) && Array.isArray(e.choices) ? e.choices : [])
          .flat().map((c) => isObj(c) ? str(c.text) : "").join("");
        return { role: "assistant", parts: [{ kind: "text", text: joined }] };
      }
      const choice = isObj(whole) && Array.isArray(whole.choices) ? whole.choices[0] : undefined;
      return isObj(choice)
        ? { role: "assistant", parts: [{ kind: "text", text: str(choice.text) }] }
        : errorReply(whole);
    }
    case "responses": {
      let response: Json = whole;
      if (events !== null) {
        const done = events.find((e) => isObj(e) && e.type === "response.completed");
        response = isObj(done) ? done.response : undefined;
        if (response === undefined) {
          const joined = events.filter((e) => isObj(e) && e.type === "response.output_text.delta")
            .map((e) => str((e as Obj).delta)).join("");
          return { role: "assistant", parts: [{ kind: "text", text: joined }] };
        }
      }
      if (isObj(response) && Array.isArray(response.output)) {
        const items = responseItems(response.output);
        return { role: "assistant", parts: items.flatMap((m) => m.parts) };
      }
      return errorReply(response);
    }
    case "messages": {
      if (events !== null) return messagesStream(events);
      if (isObj(whole) && Array.isArray(whole.content)) {
        return { role: "assistant", parts: anthropicBlocks(whole.content) };
      }
      return errorReply(whole);
    }
    default:
      return null;
  }
}

/** An error body (`{"error": ...}`) as a one-part reply; null otherwise. */
function errorReply(body: Json): TranscriptMessage | null {
  if (isObj(body) && body.error !== undefined) {
    const error = body.error;
    const message = isObj(error) && typeof error.message === "string" ? error.message : str(error);
    return { role: "error", parts: [{ kind: "text", text: message }] };
  }
  return null;
}

/** The JSON `data:` payloads of a server-sent event stream; null when there are none. */
function sseEvents(text: string): Json[] | null {
  const events: Json[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]") continue;
    const parsed = parseJson(data);
    if (parsed !== undefined) events.push(parsed);
  }
  return events.length === 0 ? null : events;
}

function chatReply(whole: Json): TranscriptMessage | null {
  const choice = isObj(whole) && Array.isArray(whole.choices) ? whole.choices[0] : undefined;
  if (isObj(choice) && isObj(choice.message)) {
    const message = chatMessage(choice.message);
    return { ...message, role: message.role === "" ? "assistant" : message.role };
  }
  return errorReply(whole);
}

function chatStream(events: readonly Json[]): TranscriptMessage {
  let text = "";
  const calls: { name: string; id: string | null; arguments: string }[] = [];
  for (const event of events) {
    const choice = isObj(event) && Array.isArray(event.choices) ? event.choices[0] : undefined;
    const delta = isObj(choice) && isObj(choice.delta) ? choice.delta : undefined;
    if (delta === undefined) continue;
    if (typeof delta.content === "string") text += delta.content;
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) {
        if (!isObj(call)) continue;
        const at = typeof call.index === "number" ? call.index : calls.length;
        calls[at] ??= { name: "", id: null, arguments: "" };
        const fn = isObj(call.function) ? call.function : {};
        if (typeof call.id === "string") calls[at].id = call.id;
        if (typeof fn.name === "string") calls[at].name += fn.name;
        if (typeof fn.arguments === "string") calls[at].arguments += fn.arguments;
      }
    }
  }
  const parts: TranscriptPart[] = text === "" ? [] : [{ kind: "text", text }];
  for (const call of calls.filter((c) => c !== undefined)) {
    parts.push({ kind: "tool_call", ...call });
  }
  return { role: "assistant", parts };
}

function messagesStream(events: readonly Json[]): TranscriptMessage {
  const blocks: { type: string; text: string; name: string; id: string | null }[] = [];
  for (const event of events) {
    if (!isObj(event)) continue;
    const at = typeof event.index === "number" ? event.index : blocks.length - 1;
    if (event.type === "content_block_start" && isObj(event.content_block)) {
      const block = event.content_block;
      blocks[at] = {
        type: str(block.type),
        text: typeof block.text === "string" ? block.text : "",
        name: str(block.name),
        id: typeof block.id === "string" ? block.id : null,
      };
    } else if (event.type === "content_block_delta" && isObj(event.delta) && blocks[at]) {
      const delta = event.delta;
      blocks[at].text += str(delta.text ?? delta.partial_json ?? delta.thinking ?? "");
    }
  }
  const parts: TranscriptPart[] = blocks.filter((b) => b !== undefined).map((block) =>
    block.type === "tool_use"
      ? { kind: "tool_call", name: block.name, id: block.id, arguments: block.text }
      : { kind: "text", text: block.type === "text" ? block.text : `[${block.type}] ${block.text}` }
  );
  return { role: "assistant", parts };
}
