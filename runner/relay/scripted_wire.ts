/**
 * The shape one model API gives a scripted reply: its whole body, its
 * streamed events and its error body. One implementation per API
 * (`scripted_chat_wire.ts`, `scripted_completions_wire.ts`,
 * `scripted_responses_wire.ts`, `scripted_messages_wire.ts`); the provider
 * is written once against this interface.
 *
 * @module
 */
import type { ReplyParts } from "./scripted_reply_parts.ts";

/**
 * Why the provider answers with an error: a refused credential, a request it
 * cannot read, or a scripted non-200 status.
 */
export type ErrorKind = "authentication" | "invalid_request" | "scripted";

/** One API's rendering of scripted replies. */
export interface ScriptedWire {
  /** The whole JSON body of a status-200 reply to `request`. */
  body(parts: ReplyParts, request: Record<string, unknown>): unknown;
  /** The streamed reply: each element one complete server-sent event. */
  events(parts: ReplyParts, request: Record<string, unknown>): string[];
  /** The JSON error body sent with `status`. */
  error(kind: ErrorKind, status: number, message: string): unknown;
}
