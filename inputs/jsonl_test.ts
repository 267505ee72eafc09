import { deepEqual, equal, ok } from "node:assert/strict";
import { createHash } from "node:crypto";
import { scanJsonl } from "./jsonl.ts";
import { openInput, READ_CHUNK_BYTES } from "./input_file.ts";

/** A file of `lines` JSON lines of varying length, larger than two read chunks. */
async function writeLines(lines: number): Promise<{ path: string; bytes: Uint8Array }> {
  const text = Array.from(
    { length: lines },
    (_, i) => JSON.stringify({ i, pad: "x".repeat((i * 7919) % 300) }),
  ).join("\n") + "\n";
  const bytes = new TextEncoder().encode(text);
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  await Deno.writeFile(path, bytes);
  return { path, bytes };
}

Deno.test("openInput() yields the file's bytes in chunks of at most READ_CHUNK_BYTES", async () => {
  const { path, bytes } = await writeLines(15_000);
  try {
    ok(bytes.length > 2 * READ_CHUNK_BYTES, "the file spans more than two chunks");
    const chunks: Uint8Array[] = [];
    for await (const chunk of await openInput(path)) chunks.push(chunk);
    equal(chunks.length, Math.ceil(bytes.length / READ_CHUNK_BYTES));
    ok(chunks.every((chunk) => chunk.length <= READ_CHUNK_BYTES));
    const joined = new Uint8Array(bytes.length);
    let at = 0;
    for (const chunk of chunks) {
      joined.set(chunk, at);
      at += chunk.length;
    }
    equal(at, bytes.length);
    deepEqual(joined, bytes);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("scanJsonl() over openInput() visits every line, also across chunk borders", async () => {
  const { path, bytes } = await writeLines(15_000);
  try {
    const seen: number[] = [];
    const summary = await scanJsonl(await openInput(path), (line, number) => {
      const row = JSON.parse(new TextDecoder().decode(line));
      equal(row.i, number - 1);
      seen.push(number);
    });
    equal(summary.lines, 15_000);
    equal(seen.length, 15_000);
    equal(summary.sha256, createHash("sha256").update(bytes).digest("hex"));
  } finally {
    await Deno.remove(path);
  }
});

/** Descriptors of this process open on `path` (Linux: /proc/self/fd). */
function descriptorsOn(path: string): number {
  let count = 0;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    try {
      if (Deno.readLinkSync(`/proc/self/fd/${entry.name}`) === path) count++;
    } catch {
      // the descriptor closed while listing (the listing's own, for one)
    }
  }
  return count;
}

Deno.test("openInput() closes the file at the end and when its consumer stops early", async () => {
  const { path } = await writeLines(15_000);
  try {
    for await (const _ of await openInput(path)) break;
    equal(descriptorsOn(path), 0, "stopped early");
    for await (const _ of await openInput(path)) { /* read to the end */ }
    equal(descriptorsOn(path), 0, "read to the end");
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("scanJsonl() hands over the text of lines in ASCII chunks, and no text elsewhere", async () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  async function* chunks() {
    yield encode('{"a":1}\n{"b":2}\n{"c":'); // ASCII: two whole lines and the start of a third
    yield encode('3}\n{"d":"é"}\n'); // the carried line, then a line with a two-byte character
    yield Uint8Array.from([...encode('{"e":"'), 0x80, ...encode('"}\n')]); // an invalid byte
    yield encode('{"f":"\\uFFFD"}\n'); // an escaped U+FFFD is plain ASCII
  }
  const seen: [number, string, string | undefined][] = [];
  const summary = await scanJsonl(chunks(), (bytes, line, text) => {
    seen.push([line, new TextDecoder().decode(bytes), text]);
  });
  equal(summary.lines, 6);
  deepEqual(seen, [
    [1, '{"a":1}', '{"a":1}'],
    [2, '{"b":2}', '{"b":2}'],
    [3, '{"c":3}', undefined], // spans two chunks: decoded by the caller
    [4, '{"d":"é"}', undefined], // its chunk is not ASCII
    [5, '{"e":"\uFFFD"}', undefined], // its chunk holds an invalid byte
    [6, '{"f":"\\uFFFD"}', '{"f":"\\uFFFD"}'],
  ]);
});
