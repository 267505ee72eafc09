/**
 * Which reply of a {@linkcode ProviderScript} answers a model call.
 *
 * @module
 */
import type { Conversation } from "./provider_conversation.ts";
import type {
  ProviderReply,
  ProviderRule,
  ProviderScript,
} from "../../analysis/schema/provider_script.ts";

/** The reply chosen for a call, and which part of the script gave it. */
export interface PickedReply {
  /** `call`, `rule <i>` (0-based) or `default`. */
  matched: string;
  reply: ProviderReply;
}

/**
 * Picks the reply to a model call.
 *
 * Rule (the order {@linkcode ProviderScript} documents): the `calls` entry
 * whose `call` is `call`, else the first rule whose every condition holds
 * (`turn` equals the conversation's turn index, `last` its last message's
 * kind, and `contains`/`equals`/`matches` its text: the last turn's tool
 * results when `last` is `"tool_result"`, else the last user message), else
 * `default`. O(rules × text length).
 *
 * @param script The parsed script.
 * @param call The call's 1-based number among the provider's model calls.
 * @param conversation What the request carries (see {@linkcode readConversation}).
 * @returns The reply and what matched.
 * @example
 * ```ts
 * import { pickReply } from "./pick_provider_reply.ts";
 * import { parseProviderScript } from "../../analysis/schema/provider_script.ts";
 * import { readConversation } from "./provider_conversation.ts";
 * const script = parseProviderScript({ rules: [{ turn: 1, reply: { content: "done" } }] });
 * const conversation = readConversation("chat", {
 *   messages: [{ role: "user", content: "go" }, { role: "assistant", content: "ok" }, { role: "user", content: "and?" }],
 * });
 * if (pickReply(script, 9, conversation).matched !== "rule 0") throw new Error();
 * ```
 */
export function pickReply(
  script: ProviderScript,
  call: number,
  conversation: Conversation,
): PickedReply {
  const override = script.calls.find((entry) => entry.call === call);
  if (override !== undefined) return { matched: "call", reply: override.reply };
  for (const [i, rule] of script.rules.entries()) {
    if (ruleHolds(rule, conversation)) return { matched: `rule ${i}`, reply: rule.reply };
  }
  return { matched: "default", reply: script.default };
}

function ruleHolds(rule: ProviderRule, conversation: Conversation): boolean {
  if (rule.turn !== undefined && rule.turn !== conversation.turn) return false;
  if (rule.last !== undefined && rule.last !== conversation.last) return false;
  const text = rule.last === "tool_result" ? conversation.toolResultText : conversation.userText;
  if (rule.contains !== undefined) return text.includes(rule.contains);
  if (rule.equals !== undefined) return text === rule.equals;
  if (rule.matches !== undefined) return new RegExp(rule.matches).test(text);
  return true;
}
