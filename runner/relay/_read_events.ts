/**
 * Private to the relay: the one reader of an upstream `text/event-stream`
 * body, shared by the stream passed back to the agent (`_stream_back.ts`) and
 * the stream reassembled into a whole answer (`reassemble_stream.ts`), so
 * that the two cannot drift apart in how they decode, split, stop and fail.
 *
 * @module
 */
import { type SseEvent, SseSplitter } from "./_sse_splitter.ts";

/** How reading an upstream event stream ended. */
export interface EventsRead {
  /** Why reading the upstream failed (timeout, abort, reset); null when it ended normally. */
  error: unknown;
  /**
   * True when the stream ended with the API's last event (e.g. `data: [DONE]`),
   * or, for an API whose streams end with the body, ended whole.
   */
  done: boolean;
  /** `performance.now()` when the first body bytes arrived; null when none did. */
  firstByteAt: number | null;
  /** Events seen, through the last one. */
  events: number;
}

/**
 * Reads an event stream until the event `onEvent` says is the last, the
 * body's end, or a failure. Bytes are decoded as UTF-8 and split with
 * {@linkcode SseSplitter}; each complete event is handed to `onEvent` in
 * order, none after the last. After the last event the rest of the body is
 * cancelled. A failure of reading, or a throw of `onEvent`, is returned as
 * `error`, never thrown.
 *
 * @param upstream the upstream's event-stream response
 * @param onEvent sees each complete event; returns true for the stream's last
 * @param onBytes called whenever body bytes arrive (the upstream is answering)
 * @param wholeAtEnd asked when the body ended without error, for an API whose streams end with
 *   the body (`StreamReader.wholeAtEnd`): whether the stream is whole; absent: it is not
 * @returns how the stream ended
 */
export async function readEvents(
  upstream: Response,
  onEvent: (event: SseEvent) => boolean,
  onBytes?: () => void,
  wholeAtEnd?: () => boolean,
): Promise<EventsRead> {
  const decoder = new TextDecoder();
  const splitter = new SseSplitter();
  const reader = upstream.body?.getReader();
  let error: unknown = null;
  let done = false;
  let firstByteAt: number | null = null;
  let events = 0;
  const take = (complete: SseEvent[]) => {
    for (const event of complete) {
      if (done) return;
      events += 1;
      if (onEvent(event)) done = true;
    }
  };
  try {
    while (reader !== undefined && !done) {
      const { value, done: ended } = await reader.read();
      if (ended) {
        take(splitter.end(decoder.decode()));
        if (!done && wholeAtEnd?.() === true) return { error, done: true, firstByteAt, events };
        break;
      }
      firstByteAt ??= performance.now();
      onBytes?.();
      take(splitter.push(decoder.decode(value, { stream: true })));
    }
  } catch (caught) {
    error = caught;
  }
  if (done) await reader?.cancel().catch(() => {});
  return { error, done, firstByteAt, events };
}
