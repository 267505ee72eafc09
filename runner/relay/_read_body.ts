/**
 * Private: the relay reads a request body incrementally, up to a limit and
 * before a deadline (issue 7, item 5: a 1 GiB body was buffered whole before
 * the 413).
 *
 * @module
 */

/** What {@linkcode readBody} got. */
export type BodyRead =
  | { kind: "body"; bytes: Uint8Array<ArrayBuffer> }
  | { kind: "too_large"; bytesRead: number }
  | { kind: "timed_out"; bytesRead: number };

/**
 * Reads a request's body chunk by chunk.
 *
 * Rule: a `Content-Length` over `maxBytes` is `too_large` before any byte is
 * read; otherwise chunks are read and kept until their total passes
 * `maxBytes` (`too_large`: the stream is cancelled at once, so at most
 * `maxBytes` plus one chunk is ever held) or `deadlineMs` passes first
 * (`timed_out`, also cancelled). No body reads as zero bytes. Memory:
 * O(min(body, maxBytes + one chunk)).
 *
 * @param request the incoming request
 * @param limits `maxBytes` and `deadlineMs`
 * @returns the body, or why it was not read whole, with the bytes read by then
 */
export async function readBody(
  request: Request,
  limits: { maxBytes: number; deadlineMs: number },
): Promise<BodyRead> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    await request.body?.cancel().catch(() => {});
    return { kind: "too_large", bytesRead: 0 };
  }
  if (request.body === null) return { kind: "body", bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timed_out">((resolve) => {
    timer = setTimeout(() => resolve("timed_out"), limits.deadlineMs);
  });
  try {
    while (true) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "timed_out") {
        await reader.cancel().catch(() => {});
        return { kind: "timed_out", bytesRead: total };
      }
      if (next.done) break;
      total += next.value.length;
      if (total > limits.maxBytes) {
        await reader.cancel().catch(() => {});
        return { kind: "too_large", bytesRead: total };
      }
      chunks.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { kind: "body", bytes };
}
