/**
 * Private to the relay: passes an upstream `text/event-stream` body back to
 * the agent event by event, as the events arrive, with the upstream key
 * redacted, while the relay inspects every event for its evidence.
 *
 * @module
 */
import { type SseEvent, SseSplitter } from "./_sse_splitter.ts";
import { type EventsRead, readEvents } from "./_read_events.ts";
import type { EventVerdict } from "./api/model_api.ts";

/** How the upstream stream ended, handed to {@linkcode StreamBackOptions.onEnd}. */
export interface StreamEnd extends EventsRead {
  /**
   * Events passed back before the agent closed the stream (the rest were
   * read and inspected but not sent); null while the agent is still reading.
   */
  agentClosedAfter: number | null;
}

/** Options of {@linkcode streamBack}. */
export interface StreamBackOptions {
  /** Headers of the response to the agent. */
  headers: Headers;
  /** Replaced by `[redacted]` wherever it occurs in an event. */
  key: string;
  /**
   * Sees every complete event, in order, and says whether to pass it to the
   * agent and whether it is the stream's last.
   */
  onEvent(event: SseEvent): EventVerdict;
  /** Sees the text of every event passed to the agent (redacted), in order. */
  onSent(text: string): void;
  /** Called whenever upstream bytes arrive (the upstream is answering). */
  onBytes?(): void;
  /** `StreamReader.wholeAtEnd` of the stream's reader, for an API whose streams end with the body. */
  wholeAtEnd?(): boolean;
  /**
   * How the events reach the agent in another framing than the upstream's
   * (Gemini's JSON array): the text sent for each event passed back, the
   * `index`th (its raw text when absent), and the text closing the body.
   */
  framing?: {
    event(event: SseEvent, index: number): string;
    close(sent: number): string;
  };
  /** Called once if the agent closes the stream before its end, with the events passed back. */
  onAgentClosed?(passed: number): void;
  /**
   * Called once when the upstream stream ended, failed or was cut off; may
   * return the raw text of an error event to send the agent as the stream's
   * last.
   */
  onEnd(end: StreamEnd): string | null;
}

/**
 * Relays an upstream event stream to the agent.
 *
 * The upstream is read to its end whatever the agent does: an agent that
 * closes the stream early stops receiving events, but the relay keeps
 * reading (bounded by the upstream request's own timeout and abort signal)
 * so that the call's usage, sent last, is still seen. Reading stops after
 * the event `onEvent` says is the last. Events are read with `readEvents`
 * (decoded as UTF-8, split by `SseSplitter`) and re-encoded; no event is
 * held back once it is complete. Memory: the events the agent has not read
 * yet.
 *
 * @param upstream The upstream's 2xx event-stream response.
 * @param options Headers, key and the inspection callbacks.
 * @returns The response for the agent and a promise settled after `onEnd` ran.
 */
export function streamBack(
  upstream: Response,
  options: StreamBackOptions,
): { response: Response; finished: Promise<void> } {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let agentOpen = true;
  let passed = 0;
  let agentClosedAfter: number | null = null;
  const agentGone = () => {
    if (!agentOpen) return;
    agentOpen = false;
    agentClosedAfter = passed;
    options.onAgentClosed?.(passed);
  };
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: agentGone,
  });
  let sent = 0;
  const pass = (event: SseEvent): void => {
    const text = options.framing === undefined ? event.raw : options.framing.event(event, sent);
    if (text === "") return;
    send(text);
    sent += 1;
  };
  const send = (text: string): void => {
    if (!agentOpen) return;
    const redacted = text.replaceAll(options.key, "[redacted]");
    try {
      controller.enqueue(encoder.encode(redacted));
      passed += 1;
      options.onSent(redacted);
    } catch {
      agentGone();
    }
  };

  const finished = (async () => {
    const read = await readEvents(
      upstream,
      (event) => {
        const verdict = options.onEvent(event);
        if (verdict.pass) pass(event);
        return verdict.end;
      },
      () => options.onBytes?.(),
      options.wholeAtEnd,
    );
    let last: string | null = null;
    try {
      last = options.onEnd({ ...read, agentClosedAfter });
    } finally {
      if (last !== null) new SseSplitter().end(last).forEach(pass);
      if (options.framing !== undefined) send(options.framing.close(sent));
      if (agentOpen) {
        // From here on the call is recorded: a late cancel changes nothing.
        agentOpen = false;
        try {
          controller.close();
        } catch {
          // The agent left just now; the stream is cancelled already.
        }
      }
    }
  })();
  return {
    response: new Response(body, { status: upstream.status, headers: options.headers }),
    finished,
  };
}
