import assert from "node:assert/strict";
import { readBody } from "./_read_body.ts";

/** A body of `chunks` chunks of `size` bytes, counting how many were pulled. */
function counted(chunks: number, size: number) {
  const seen = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled === chunks) return controller.close();
      seen.pulled += 1;
      controller.enqueue(new Uint8Array(size));
    },
  }, { highWaterMark: 0 });
  return { stream, seen };
}

Deno.test("readBody() reads a body within the limit whole", async () => {
  const request = new Request("http://relay/", { method: "POST", body: "0123456789" });
  const read = await readBody(request, { maxBytes: 10, deadlineMs: 60_000 });
  assert.equal(read.kind, "body");
  assert.equal(new TextDecoder().decode((read as { bytes: Uint8Array }).bytes), "0123456789");
});

Deno.test("readBody() stops at the first chunk past the limit and never pulls the rest", async () => {
  // 1024 chunks of 64 KiB (64 MiB) against a 1 MiB limit: 17 chunks read (17 x 65536 > 1048576).
  const { stream, seen } = counted(1024, 65_536);
  const request = new Request("http://relay/", { method: "POST", body: stream });
  const read = await readBody(request, { maxBytes: 1_048_576, deadlineMs: 60_000 });
  assert.deepEqual(read, { kind: "too_large", bytesRead: 17 * 65_536 });
  assert.equal(seen.pulled, 17);
});

Deno.test("readBody() refuses a declared Content-Length over the limit before reading", async () => {
  const { stream, seen } = counted(4, 16);
  const request = new Request("http://relay/", {
    method: "POST",
    body: stream,
    headers: { "content-length": "64" },
  });
  assert.deepEqual(await readBody(request, { maxBytes: 63, deadlineMs: 60_000 }), {
    kind: "too_large",
    bytesRead: 0,
  });
  assert.equal(seen.pulled, 0);
});

Deno.test("readBody() gives up on a body that stops arriving", async () => {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(5)); // then nothing more, never closed
    },
  });
  const request = new Request("http://relay/", { method: "POST", body: stream });
  assert.deepEqual(await readBody(request, { maxBytes: 100, deadlineMs: 1 }), {
    kind: "timed_out",
    bytesRead: 5,
  });
});
