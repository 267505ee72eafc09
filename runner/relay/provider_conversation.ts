/**
 * What the scripted provider reads of a model call's conversation, the same
 * way for each of the four APIs it speaks: the turn index, the kind of the
 * last message, the last user message, the last turn's tool results and the
 * prompt text usage is derived from. Everything comes from the request body
 * alone, so it is the same however episodes interleave (issue 8: "script a
 * multi-turn, tool-using conversation deterministically at any
 * `--parallel`").
 *
 * @module
 */
import { contentText, messageText } from "../../analysis/schema/provider_script.ts";

/** The model APIs the scripted provider serves. */
export type ProviderApi = "chat" | "completions" | "responses" | "messages" | "gemini";

/** The kind of one message (or Responses input item) of a conversation. */
export type MessageKind = "user" | "assistant" | "tool_result" | "system";

/** A conversation as {@linkcode readConversation} reads it. */
export interface Conversation {
  /** The number of assistant turns already in the conversation. */
  turn: number;
  /** The kind of the last message; null for an empty conversation. */
  last: MessageKind | null;
  /** The text of the last user message; "" when there is none. */
  userText: string;
  /** The texts of the tool results after the last assistant turn, joined by "\n"; "" when the last message is no tool result. */
  toolResultText: string;
  /** Every text of the prompt, concatenated (what derived usage counts). */
  promptText: string;
}

interface Item {
  kind: MessageKind;
  text: string;
}

/**
 * Reads the conversation of a model call's JSON body.
 *
 * Rules:
 * - Messages: chat `messages` by `role` (`user`; `assistant`; `tool` or
 *   `function`: a tool result; `system`, `developer`); legacy completions:
 *   the `prompt` (a string, or strings joined) is one user message;
 *   Responses: `input` (a string is one user message) items by `role` when
 *   they have one (`user`, `assistant`, `system`, `developer`), else by
 *   `type`: `reasoning` and any `*_call` (`function_call`,
 *   `local_shell_call`, `custom_tool_call`...) are the assistant's, any
 *   `*_call_output` a tool result, other items are skipped; Messages API:
 *   `messages` by `role`, a `user` message with a `tool_result` block being
 *   a tool result (its text: the blocks' `content`); Gemini: `contents` by
 *   `role` (`model` is the assistant's; a content with `functionResponse`
 *   parts, or of the role `function`, a tool result, its text each
 *   response's `output` when a string, else the response as JSON; any other
 *   role the user's, its text the parts' `text`).
 * - `turn`: the number of runs of consecutive assistant messages that are
 *   followed by some other message (a trailing assistant message, a Messages
 *   prefill, is the turn being answered). A Responses `previous_response_id`
 *   is not followed: only what the request carries counts.
 * - `promptText`: chat, every message's text (as {@linkcode messageText});
 *   completions, the prompt; Responses, `instructions` then each item's text;
 *   Messages, `system` then each message's text and tool results; Gemini,
 *   `systemInstruction`'s text then each content's text and tool results.
 *
 * O(size of the body).
 *
 * @param api Which API the body was sent to.
 * @param body The parsed JSON body (anything that is not an object reads as empty).
 * @returns The conversation.
 * @example
 * ```ts
 * import { readConversation } from "./provider_conversation.ts";
 * const c = readConversation("responses", {
 *   input: [
 *     { role: "user", content: "list files" },
 *     { type: "function_call", call_id: "c1", name: "shell", arguments: "{}" },
 *     { type: "function_call_output", call_id: "c1", output: "a.txt" },
 *   ],
 * });
 * if (c.turn !== 1 || c.last !== "tool_result" || c.toolResultText !== "a.txt") throw new Error();
 * ```
 */
export function readConversation(api: ProviderApi, body: unknown): Conversation {
  const request = body !== null && typeof body === "object" ? body as Record<string, unknown> : {};
  const [preamble, items] = conversationItems(api, request);
  let turn = 0;
  for (let i = 0; i + 1 < items.length; i++) {
    if (items[i].kind === "assistant" && items[i + 1].kind !== "assistant") turn += 1;
  }
  const last = items.at(-1)?.kind ?? null;
  const userText = items.findLast((item) => item.kind === "user")?.text ?? "";
  const results: string[] = [];
  for (let i = items.length - 1; i >= 0 && items[i].kind === "tool_result"; i--) {
    results.unshift(items[i].text);
  }
  return {
    turn,
    last,
    userText,
    toolResultText: results.join("\n"),
    promptText: preamble + items.map((item) => item.text).join(""),
  };
}

function conversationItems(api: ProviderApi, request: Record<string, unknown>): [string, Item[]] {
  switch (api) {
    case "chat":
      return ["", arrayOf(request.messages).map(chatItem)];
    case "completions": {
      const prompt = request.prompt;
      const text = Array.isArray(prompt)
        ? prompt.filter((p) => typeof p === "string").join("")
        : typeof prompt === "string"
        ? prompt
        : "";
      return ["", [{ kind: "user", text }]];
    }
    case "responses": {
      const instructions = typeof request.instructions === "string" ? request.instructions : "";
      const input = request.input;
      const items = typeof input === "string"
        ? [{ kind: "user" as const, text: input }]
        : arrayOf(input).flatMap(responsesItem);
      return [instructions, items];
    }
    case "messages":
      return [contentText(request.system), arrayOf(request.messages).map(messagesItem)];
    case "gemini": {
      const system = request.systemInstruction;
      const preamble = typeof system === "string"
        ? system
        : contentText((system as { parts?: unknown } | null)?.parts);
      return [preamble, arrayOf(request.contents).map(geminiItem)];
    }
  }
}

function geminiItem(content: unknown): Item {
  const role = roleOf(content);
  const parts = arrayOf((content as { parts?: unknown } | null)?.parts);
  if (role === "model") return { kind: "assistant", text: contentText(parts) };
  const responses = parts.flatMap((part) => {
    const response = (part as { functionResponse?: { response?: unknown } } | null)
      ?.functionResponse;
    return response === undefined || response === null ? [] : [response.response];
  });
  if (role === "function" || responses.length > 0) {
    return {
      kind: "tool_result",
      text: responses.map((response) => {
        const output = (response as { output?: unknown } | null)?.output;
        return typeof output === "string" ? output : JSON.stringify(response ?? null);
      }).join("\n"),
    };
  }
  return { kind: "user", text: contentText(parts) };
}

function chatItem(message: unknown): Item {
  const role = roleOf(message);
  const kind: MessageKind = role === "tool" || role === "function"
    ? "tool_result"
    : role === "assistant" || role === "user"
    ? role
    : "system";
  return { kind, text: messageText(message) };
}

function responsesItem(item: unknown): Item[] {
  if (item === null || typeof item !== "object") return [];
  const record = item as Record<string, unknown>;
  const role = record.role;
  if (typeof role === "string") {
    const kind: MessageKind = role === "user" || role === "assistant" ? role : "system";
    return [{ kind, text: contentText(record.content) }];
  }
  const type = typeof record.type === "string" ? record.type : "";
  if (type.endsWith("_call_output")) {
    return [{ kind: "tool_result", text: contentText(record.output) }];
  }
  if (type === "reasoning" || type.endsWith("_call")) return [{ kind: "assistant", text: "" }];
  return [];
}

function messagesItem(message: unknown): Item {
  const role = roleOf(message);
  const content = (message as { content?: unknown }).content;
  if (role === "assistant") return { kind: "assistant", text: contentText(content) };
  const blocks = arrayOf(content).filter((block): block is Record<string, unknown> =>
    block !== null && typeof block === "object"
  );
  const results = blocks.filter((block) => block.type === "tool_result");
  if (role === "user" && results.length > 0) {
    return {
      kind: "tool_result",
      text: results.map((block) => contentText(block.content)).join("\n"),
    };
  }
  return { kind: role === "user" ? "user" : "system", text: contentText(content) };
}

function roleOf(message: unknown): unknown {
  return message !== null && typeof message === "object"
    ? (message as { role?: unknown }).role
    : undefined;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
