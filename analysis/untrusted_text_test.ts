import { equal, notEqual, ok } from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  displayId,
  hasUnsafeCharacter,
  ID_DISPLAY_LENGTH,
  lineText,
  terminalJson,
  terminalText,
} from "./untrusted_text.ts";

Deno.test("lineText() escapes C0, DEL and C1 controls, LF and tab included", () => {
  equal(lineText("a\x00b\x1b[2Jc\rd"), "a\\x00b\\x1b[2Jc\\x0dd");
  equal(lineText("one\ntwo\tthree"), "one\\ntwo\\tthree");
  equal(lineText("\x7f\x85\x9b"), "\\x7f\\x85\\x9b");
});

Deno.test("lineText() escapes every bidirectional formatting character of UAX #9 and U+2028/9", () => {
  const bidi = [
    0x061c,
    0x200e,
    0x200f,
    0x202a,
    0x202b,
    0x202c,
    0x202d,
    0x202e,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
    0x2028,
    0x2029,
  ];
  for (const code of bidi) {
    const char = String.fromCharCode(code);
    equal(lineText(`a${char}b`), `a\\u${code.toString(16).padStart(4, "0")}b`);
    ok(hasUnsafeCharacter(char), `U+${code.toString(16)}`);
  }
});

Deno.test("lineText() keeps printable text of every script as it is", () => {
  const text = "agent-α é 中文 😀 `x` <b> \\u202e";
  equal(lineText(text), text);
  equal(hasUnsafeCharacter(text), false);
});

Deno.test("terminalText() keeps LF and tab, escapes the rest", () => {
  equal(terminalText("a\tb\nc\u202ed\r"), "a\tb\nc\\u202ed\\x0d");
});

Deno.test("terminalJson() denotes the same JSON value and keeps the layout", () => {
  const value = { id: "a\u202eb\x7f\x85\u2028", n: 1 };
  const json = JSON.stringify(value, null, 2);
  const shown = terminalJson(json);
  equal(hasUnsafeCharacter(shown.replaceAll("\n", "")), false);
  equal(JSON.stringify(JSON.parse(shown), null, 2), json);
  equal(shown.split("\n").length, json.split("\n").length);
});

Deno.test("displayId() keeps an id of up to 48 characters whole", () => {
  const id = "a".repeat(ID_DISPLAY_LENGTH);
  equal(displayId(id), id);
  equal(displayId("agent-alpha"), "agent-alpha");
});

Deno.test("displayId() shortens a longer id to 48 characters ending with its hash", () => {
  const id = "a".repeat(ID_DISPLAY_LENGTH + 1);
  // printf 'a%.0s' $(seq 49) | sha256sum | cut -c1-8
  const hash = createHash("sha256").update(id).digest("hex").slice(0, 8);
  equal(displayId(id), `${"a".repeat(39)}…${hash}`);
  equal(displayId(id).length, ID_DISPLAY_LENGTH);
});

Deno.test("displayId() keeps two long ids that share a prefix distinct", () => {
  const prefix = "agent-".repeat(2000);
  const a = displayId(`${prefix}one`);
  const b = displayId(`${prefix}two`);
  notEqual(a, b);
  equal(a.slice(0, 39), b.slice(0, 39));
  ok(a.length <= ID_DISPLAY_LENGTH && b.length <= ID_DISPLAY_LENGTH);
});

Deno.test("displayId() never cuts an escape or a surrogate pair", () => {
  const escaped = displayId(`${"a".repeat(36)}\u202e${"b".repeat(20)}`);
  ok(escaped.startsWith(`${"a".repeat(36)}…`), escaped); // "\u202e" (6) would pass 39
  const emoji = displayId(`${"a".repeat(38)}😀${"b".repeat(20)}`);
  ok(emoji.startsWith(`${"a".repeat(38)}…`), emoji); // the pair (2) would pass 39
  equal(hasUnsafeCharacter(displayId(`x\n${"y".repeat(100)}`)), false);
});
