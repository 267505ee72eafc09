/**
 * Private to the relay: splits a `text/event-stream` body into whole events
 * (WHATWG HTML, "Server-sent events", §9.2.6 "Interpreting an event stream"),
 * keeping each event's raw text so that it can be passed on unchanged.
 *
 * @module
 */

/** One event: its raw text, terminating blank line included, and its `data` field. */
export interface SseEvent {
  /** The event's lines exactly as received, with their line terminators. */
  raw: string;
  /** The `data` lines' values joined with `\n`; null when the event has no `data` line. */
  data: string | null;
}

/**
 * Incremental splitter: feed decoded text with {@linkcode SseSplitter.push}
 * as it arrives and get back the events it completes.
 *
 * Rule: lines end with CRLF, LF or CR; an empty line ends an event; a
 * `data` line's value is what follows `data:` without one leading space.
 * Other fields (`event`, `id`, `retry`) and comments (`:`) stay in `raw`
 * only. A CR at the end of the text pushed so far is held back until the
 * next push shows whether an LF follows. Cost: O(length of the text pushed).
 */
export class SseSplitter {
  #buffer = "";
  #raw = "";
  #data: string[] | null = null;

  /**
   * Adds text and returns the events it completes, in order.
   *
   * @param text The next piece of the decoded body.
   * @returns Completed events, possibly none.
   */
  push(text: string): SseEvent[] {
    this.#buffer += text;
    return this.#split(false);
  }

  /**
   * Ends the body: returns the events completed by `text`, then, when the
   * body stopped inside an event, that unfinished event as the last one.
   *
   * @param text The last piece of the decoded body, if any.
   * @returns The remaining events.
   */
  end(text = ""): SseEvent[] {
    this.#buffer += text;
    const events = this.#split(true);
    if (this.#buffer !== "") {
      this.#line(this.#buffer);
      this.#raw += this.#buffer;
      this.#buffer = "";
    }
    if (this.#raw !== "") events.push(this.#take());
    return events;
  }

  #split(final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    const terminator = /\r\n|\r|\n/g;
    let start = 0;
    for (;;) {
      terminator.lastIndex = start;
      const match = terminator.exec(this.#buffer);
      if (match === null) break;
      const end = match.index + match[0].length;
      if (match[0] === "\r" && end === this.#buffer.length && !final) break;
      const line = this.#buffer.slice(start, match.index);
      this.#raw += this.#buffer.slice(start, end);
      start = end;
      if (line === "") events.push(this.#take());
      else this.#line(line);
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  #line(line: string): void {
    if (line !== "data" && !line.startsWith("data:")) return;
    let value = line.slice("data:".length);
    if (value.startsWith(" ")) value = value.slice(1);
    (this.#data ??= []).push(value);
  }

  #take(): SseEvent {
    const event = { raw: this.#raw, data: this.#data === null ? null : this.#data.join("\n") };
    this.#raw = "";
    this.#data = null;
    return event;
  }
}
