/**
 * Per-call bodies for an episode's evidence (issue 8, "See what happened in
 * an episode"): what the agent sent on each model call and what it got
 * back, bounded, with the upstream key redacted, for the runner to store
 * content-addressed beside the workspace artifact.
 *
 * @module
 */

/** The head of one body, as kept. */
export interface BodyExcerpt {
  /**
   * The body's first bytes as UTF-8 text, whole characters only, the
   * upstream key replaced by `[redacted]` (before cutting, so no part of
   * the key survives a cut).
   */
  text: string;
  /** The whole body's length in bytes, kept or not (a response's after redaction). */
  bytes: number;
  /** True when `text` is less than the whole body. */
  truncated: boolean;
}

/** One model-call request and its answer, as the agent saw them. */
export interface CallBodies {
  /** The call's `index` in the relay's records. */
  index: number;
  /** The path called, e.g. `/v1/responses`. */
  endpoint: string;
  /** The request body as the agent sent it (not as forwarded). */
  request: BodyExcerpt;
  /**
   * The response body as the agent received it: the upstream's (redacted),
   * the relay's own refusal, or for a stream the events passed back,
   * concatenated in order (events withheld from the agent are not in it).
   */
  response: BodyExcerpt;
}

/** Bounds of a {@linkcode CallBodyLog}. */
export interface CallBodyLimits {
  /** Bytes kept of each body (default 65536, 64 KiB). */
  maxBodyBytes: number;
  /** Bytes kept over all bodies of the episode (default 8388608, 8 MiB). */
  maxTotalBytes: number;
  /** Calls whose bodies are kept; later calls are not logged at all (default 2048). */
  maxCalls: number;
}

const DEFAULT_LIMITS: CallBodyLimits = {
  maxBodyBytes: 64 * 1024,
  maxTotalBytes: 8 * 1024 * 1024,
  maxCalls: 2048,
};

/** A body being logged, with the bytes of `text` kept so far. */
interface Kept extends BodyExcerpt {
  keptBytes: number;
}

interface Entry {
  index: number;
  endpoint: string;
  request: Kept;
  response: Kept;
}

const encoder = new TextEncoder();

/**
 * The bounded log of one episode's call bodies.
 *
 * Rule: each body keeps its first `maxBodyBytes` bytes (whole UTF-8
 * characters), and all bodies together at most `maxTotalBytes`: once that
 * is spent, later bodies keep nothing but their length. Only the first
 * `maxCalls` calls are logged. Memory: O(min(maxTotalBytes, calls ×
 * 2 × maxBodyBytes) + maxCalls) per episode, whatever the agent sends.
 *
 * @example
 * ```ts
 * import { CallBodyLog } from "./call_bodies.ts";
 * const log = new CallBodyLog("sk-1", { maxBodyBytes: 8 });
 * log.open(1, "/v1/messages", '{"a":"sk-1 and more"}', 21);
 * log.append(1, "data: 1\n\n");
 * const [call] = log.list();
 * if (call.request.text !== '{"a":"[r' || !call.request.truncated) throw new Error(call.request.text);
 * if (call.response.bytes !== 9) throw new Error("the whole length is counted");
 * ```
 */
export class CallBodyLog {
  readonly #key: string;
  readonly #limits: CallBodyLimits;
  readonly #entries = new Map<number, Entry>();
  #kept = 0;

  /**
   * @param key the upstream key, redacted wherever it occurs
   * @param limits bounds; defaults in {@linkcode CallBodyLimits}
   */
  constructor(key: string, limits: Partial<CallBodyLimits> = {}) {
    this.#key = key;
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /**
   * Logs a call's request body (a call not yet logged; past `maxCalls`,
   * nothing is logged for it).
   *
   * @param index the call's index
   * @param endpoint the path called
   * @param text the body as text (possibly only its head, when it was not read whole)
   * @param bytes the body's whole length in bytes as received (`text` may be less)
   */
  open(index: number, endpoint: string, text: string, bytes: number): void {
    if (this.#entries.size >= this.#limits.maxCalls || this.#entries.has(index)) return;
    const request = empty();
    this.#keep(request, this.#redact(text));
    request.bytes = bytes;
    request.truncated ||= request.keptBytes < bytes;
    this.#entries.set(index, { index, endpoint, request, response: empty() });
  }

  /**
   * Adds the next piece of a logged call's response as the agent received it.
   *
   * @param index the call's index
   * @param text the piece (a whole body, an event, a refusal)
   */
  append(index: number, text: string): void {
    const entry = this.#entries.get(index);
    if (entry === undefined) return;
    const redacted = this.#redact(text);
    const { read, written } = this.#keep(entry.response, redacted);
    // A piece kept whole was encoded whole: its length is known without encoding it again.
    entry.response.bytes += read === redacted.length ? written : encoder.encode(redacted).length;
  }

  /**
   * The logged calls, in index order, as copies.
   *
   * @returns one entry per logged call
   */
  list(): CallBodies[] {
    return [...this.#entries.values()].sort((a, b) => a.index - b.index).map((entry) => ({
      index: entry.index,
      endpoint: entry.endpoint,
      request: excerpt(entry.request),
      response: excerpt(entry.response),
    }));
  }

  #redact(text: string): string {
    return this.#key === "" ? text : text.replaceAll(this.#key, "[redacted]");
  }

  /**
   * Appends the head of `text` (already redacted) that fits to `body.text`;
   * `bytes` is the caller's to count. Returns the UTF-16 units kept and
   * their length in UTF-8 bytes.
   */
  #keep(body: Kept, text: string): { read: number; written: number } {
    const room = Math.max(
      0,
      Math.min(
        this.#limits.maxBodyBytes - body.keptBytes,
        this.#limits.maxTotalBytes - this.#kept,
      ),
    );
    // `room` UTF-16 units encode to at least `room` bytes unless the text is shorter;
    // encodeInto writes whole characters only, up to the room. A unit encodes to at most
    // 3 bytes (a surrogate pair: 4 bytes for 2 units; WHATWG Encoding, UTF-8 encoder), so
    // a buffer of 3 bytes a unit holds the whole head: no larger one is allocated per piece.
    const head = text.slice(0, room);
    const { read, written } = encoder.encodeInto(
      head,
      new Uint8Array(Math.min(room, 3 * head.length)),
    );
    this.#kept += written;
    body.keptBytes += written;
    body.text += text.slice(0, read);
    body.truncated ||= read < text.length;
    return { read, written };
  }
}

function empty(): Kept {
  return { text: "", bytes: 0, truncated: false, keptBytes: 0 };
}

function excerpt(body: Kept): BodyExcerpt {
  return { text: body.text, bytes: body.bytes, truncated: body.truncated };
}
