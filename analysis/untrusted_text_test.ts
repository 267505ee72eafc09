import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import {
  displayId,
  distinctShortIds,
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

Deno.test("displayId() shortens a longer id to 48 characters keeping its head and its real tail (issue 25)", () => {
  const id = `scaleai__swe-bench-pro__${"x".repeat(40)}__instance-9f3a2c1`;
  // 16 characters of the head, the ellipsis, the last 31 characters: searchable by its end.
  equal(displayId(id), `scaleai__swe-ben…${id.slice(-31)}`);
  equal(displayId(id).length, ID_DISPLAY_LENGTH);
  ok(displayId(id).endsWith("__instance-9f3a2c1"));
  // A tail of escaped characters is cut between escapes, never inside one.
  const escaped = displayId(`${"a".repeat(60)}${"\u202e".repeat(10)}`);
  ok(escaped.endsWith("\\u202e") && escaped.length <= ID_DISPLAY_LENGTH, escaped);
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
  // The head keeps 16 characters: "\u202e" (6) would pass them, so the head stops before it.
  const escaped = displayId(`${"a".repeat(12)}\u202e${"b".repeat(60)}`);
  ok(escaped.startsWith(`${"a".repeat(12)}…`), escaped);
  const emoji = displayId(`${"a".repeat(15)}😀${"b".repeat(60)}`);
  ok(emoji.startsWith(`${"a".repeat(15)}…`), emoji); // the pair (2) would pass 16
  // The tail likewise: the budget left for it (31) ends before a whole escape fits.
  const tail = displayId(`${"b".repeat(60)}\u202e${"c".repeat(27)}`);
  ok(tail.endsWith(`…${"c".repeat(27)}`), tail);
  equal(hasUnsafeCharacter(displayId(`x\n${"y".repeat(100)}`)), false);
});

Deno.test("distinctShortIds() tells apart the real SWE-Bench Pro ids a shortening would merge", () => {
  // Three instance ids of the public SWE-Bench Pro results (scaleapi/SWE-bench_Pro-os,
  // traj/claude-sonnet-4-paper/eval_results.json): one repository, one environment hash.
  const env = "-v0f01c69f1e2528b935359cfe578530722bca2c59";
  const ids = [
    `instance_ansible__ansible-3b823d908e8a5d17674f8c26d337d3114b7493b1${env}`,
    `instance_ansible__ansible-3889ddeb4b780ab4bac9ca2e75f8c1991bcabe83${env}`,
    "instance_flipt-io__flipt-cf06f4ebfab7fa21eed3e5838592e8e44566957f",
  ];
  equal(displayId(ids[0]), displayId(ids[1]));
  equal(displayId(ids[0]), "instance_ansible…e2528b935359cfe578530722bca2c59");
  // One character past the prefix the two share ("instance_ansible__ansible-3"), then the
  // rest of 48 of the real tail (48 - 28 - 1 = 19 characters).
  deepEqual(distinctShortIds(ids), [
    "instance_ansible__ansible-3b…cfe578530722bca2c59",
    "instance_ansible__ansible-38…cfe578530722bca2c59",
    displayId(ids[2]),
  ]);
  deepEqual(distinctShortIds([ids[0], ids[0]]), [displayId(ids[0]), displayId(ids[0])]);
  // Narrower: the tail keeps 8 characters at the least, past the width.
  deepEqual(distinctShortIds(ids.slice(0, 2), 20), [
    "instance_ansible__ansible-3b…2bca2c59",
    "instance_ansible__ansible-38…2bca2c59",
  ]);
  // Ids that mimic another's shortened form are shown whole.
  const mimic = distinctShortIds([
    ids[0],
    ids[1],
    "instance_ansible__ansible-3b…8b935359cfe578530722bca2c59",
  ]);
  equal(new Set(mimic).size, 3);
});
