import assert from "node:assert/strict";
import { tailText } from "./tail_text.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("tailText() keeps short output whole", () => {
  assert.equal(tailText(bytes("hello\n"), 64), "hello\n");
  assert.equal(tailText(bytes(""), 0), "");
});

Deno.test("tailText() keeps the last bytes and says how many were dropped", () => {
  // "0123456789" is 10 bytes; keeping 4 drops 6.
  assert.equal(tailText(bytes("0123456789"), 4), "[… 6 earlier bytes omitted]\n6789");
  assert.equal(tailText(bytes("0123456789"), 0), "[… 10 earlier bytes omitted]\n");
});

Deno.test("tailText() replaces a multi-byte character split by the cut", () => {
  // "é" is 2 bytes (c3 a9): keeping 2 bytes of "aéb" (4 bytes) cuts after c3.
  assert.equal(tailText(bytes("aéb"), 2), "[… 2 earlier bytes omitted]\n\uFFFDb");
});
