/**
 * Test helper: one scripted reply rendered by the scripted provider's wire
 * of an API both whole and streamed (`scripted_*_wire.ts`, both from
 * `scripted_reply_parts.ts`), the stream split into events as the relay
 * splits it, so that a test can check that reassembling the stream gives
 * the whole body.
 *
 * @module
 */
import {
  parseProviderScript,
  type ProviderReplyInput,
} from "../../../analysis/schema/provider_script.ts";
import { replyParts } from "../scripted_reply_parts.ts";
import { chatWire } from "../scripted_chat_wire.ts";
import { completionsWire } from "../scripted_completions_wire.ts";
import { responsesWire } from "../scripted_responses_wire.ts";
import { messagesWire } from "../scripted_messages_wire.ts";
import { geminiWire } from "../scripted_gemini_wire.ts";
import type { ScriptedWire } from "../scripted_wire.ts";
import { type SseEvent, SseSplitter } from "../_sse_splitter.ts";

const WIRES: Record<string, ScriptedWire> = {
  "/v1/chat/completions": chatWire,
  "/v1/completions": completionsWire,
  "/v1/responses": responsesWire,
  "/v1/messages": messagesWire,
  "/v1beta/models/gemini-2.5-flash:generateContent": geminiWire,
};

/** The replies every API's reassembly is checked on. */
export const REPLIES: Record<string, ProviderReplyInput> = {
  "text": { content: "The mean of 3 numbers is 24, so their sum is 72." },
  "text and two tool calls": {
    content: "Running both.",
    tool_calls: [
      { name: "shell", arguments: '{"command":["ls","-la"]}' },
      { name: "read", arguments: '{"path":"a b.txt"}' },
    ],
  },
  "a tool call alone": { tool_calls: [{ name: "shell", arguments: '{"command":["pwd"]}' }] },
  "empty content": { content: "" },
  "no usage, no model": { content: "bare", usage: null, model: null },
  "detailed usage": {
    content: "cached",
    usage: {
      prompt_tokens: 120,
      completion_tokens: 30,
      cached_tokens: 100,
      cache_creation_tokens: 8,
      reasoning_tokens: 12,
    },
  },
};

/**
 * A reply as the wire of `path` renders it whole and streamed.
 *
 * @param path the API's path
 * @param reply the scripted reply
 * @param request the streamed request (the whole one is the same without `stream`)
 * @returns the whole body and the stream's events
 */
export function renderings(
  path: string,
  reply: ProviderReplyInput,
  request: Record<string, unknown> = {},
): { whole: unknown; events: SseEvent[] } {
  const script = parseProviderScript({ default: reply });
  const wire = WIRES[path];
  const parts = replyParts(script, 7, script.default, {
    promptText: "What is the sum?",
    credential: null,
    withoutToolCalls: path === "/v1/completions",
  });
  const whole = wire.body(parts, request);
  const events = eventsOf(wire.events(parts, { ...request, stream: true }).join(""));
  return { whole, events };
}

/**
 * Splits an event-stream text into events, as the relay does.
 *
 * @param text the stream
 * @returns its events
 */
export function eventsOf(text: string): SseEvent[] {
  const splitter = new SseSplitter();
  return [...splitter.push(text), ...splitter.end()];
}
