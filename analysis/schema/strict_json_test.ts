import { deepEqual, equal } from "node:assert/strict";
import { parseJsonObject } from "./strict_json.ts";
import { findJsonFault, MAX_JSON_DEPTH } from "./json_scan.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const problem = (input: Uint8Array | string) => {
  const result = parseJsonObject(typeof input === "string" ? encode(input) : input, "a line");
  return result.ok ? null : result.problem;
};

Deno.test("parseJsonObject() refuses a repeated key at any depth, naming its path", () => {
  deepEqual(problem('{"resolved":false,"resolved":true}'), {
    code: "duplicate_key",
    line: 1,
    field: "resolved",
    message: 'duplicate key "resolved"',
  });
  deepEqual(problem('{"a":[{"b":1},{"b":2,"b":3}]}')?.field, "a.1.b");
  // The same key in two objects, and keys that hold escaped quotes and colons, are no repeat.
  equal(problem('{"a":{"k":1},"b":{"k":2}}'), null);
  equal(problem('{"a":"x\\":y","k\\"":1,"s":"\\\\"}'), null);
});

Deno.test("parseJsonObject() refuses numbers beyond the double range, naming the field", () => {
  deepEqual(problem('{"wall_ms":1e999}'), {
    code: "number_out_of_range",
    line: 0,
    field: "wall_ms",
    message: "number out of range: it reads as a non-finite value (beyond ±1.8e308)",
  });
  equal(problem('{"a":[0,{"b":-1e400}]}')?.field, "a.1.b");
  // The largest finite double is fine.
  equal(problem('{"a":1.7976931348623157e308}'), null);
});

Deno.test("parseJsonObject() tells encodings apart: UTF-8 BOM, UTF-16, a bad byte", () => {
  equal(problem(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))?.code, "bad_encoding");
  equal(
    problem(new Uint8Array([0xff, 0xfe, 0x7b, 0, 0x7d, 0]))?.message,
    "is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8",
  );
  // "é" cut short: the lead byte 0xC3 (byte 6) followed by "(".
  deepEqual(problem(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])), {
    code: "bad_encoding",
    line: 1,
    field: "",
    message: "not valid UTF-8 at byte 7 (0xC3 0x28)",
  });
  // A genuine U+FFFD is text, not an error.
  equal(problem('{"a":"\uFFFD"}'), null);
});

Deno.test("parseJsonObject() words syntax errors with line and column, and wants one object", () => {
  deepEqual(problem('{"a":1,\n"b":}'), {
    code: "malformed_json",
    line: 2,
    field: "",
    message: 'not valid JSON: unexpected "}" (expected a value) at column 5',
  });
  equal(problem("[1]")?.message, "a line must hold one JSON object");
  equal(
    problem('{"a":1,}')?.message,
    'not valid JSON: unexpected "}" (expected a key in double quotes) at column 8',
  );
});

Deno.test("findJsonFault() agrees with JSON.parse on well-formed and malformed texts", () => {
  const texts = [
    '{"a":[1,2,{"b":null}],"c":"\\u00e9\\n"}',
    "  {} ",
    '"x"',
    "-0.5e+3",
    '{"a":01}',
    '{"a":"\u0001"}',
    '{"a":"\\x"}',
    "[1,]",
    "{",
    "tru",
    '{"a":1} 2',
  ];
  for (const text of texts) {
    let parses = true;
    try {
      JSON.parse(text);
    } catch {
      parses = false;
    }
    equal(findJsonFault(text) === null, parses, text);
  }
  // 200,000 unclosed brackets: the depth limit comes first, at the 257th (column 257).
  deepEqual(findJsonFault("[".repeat(200_000)), {
    message: "nested too deeply: more than 256 levels of objects and arrays",
    line: 1,
    column: 257,
    path: "0.0.0.0.0.0.…",
    kind: "too_deep",
  });
});

const nonFinite = (text: string) =>
  parseJsonObject(encode(text), "the file", undefined, { nonFinite: true });

Deno.test("parseJsonObject() with nonFinite reads bare NaN, Infinity and -Infinity as numbers", () => {
  const result = nonFinite('{"a":NaN,"b":[Infinity,-Infinity],"c":"NaN Infinity","d":{"e":NaN}}');
  if (!result.ok) throw new Error(result.problem.message);
  deepEqual(result.value, {
    a: NaN,
    b: [Infinity, -Infinity],
    c: "NaN Infinity",
    d: { e: NaN },
  });
  // A text JSON.parse accepts takes the fast path unchanged.
  deepEqual(nonFinite('{"a":1}'), { ok: true, value: { a: 1 }, text: '{"a":1}' });
});

Deno.test("parseJsonObject() with nonFinite keeps every other check", () => {
  const problemOf = (text: string) => {
    const result = nonFinite(text);
    return result.ok ? null : result.problem;
  };
  // Without the option the bare value is a syntax error, as before.
  equal(problem('{"a":NaN}')?.code, "malformed_json");
  equal(problemOf('{"a":NaN,"a":1}')?.code, "duplicate_key");
  equal(problemOf('{"a":NaN,"b":1e999}')?.code, "number_out_of_range");
  deepEqual(problemOf('{"a":NaN,\n"b":Nan}'), {
    code: "malformed_json",
    line: 2,
    field: "",
    message: 'not valid JSON: unexpected "N" (expected a value) at column 5',
  });
  // A string that would read as the sentinel is refused rather than turned into a number.
  equal(problemOf('{"a":NaN,"b":"\\u0000NaN"}')?.code, "malformed_json");
  // Other strings with U+0000 stay strings.
  const kept = nonFinite('{"a":NaN,"b":"\\u0000x"}');
  deepEqual(kept.ok && kept.value.b, "\u0000x");
});

Deno.test("findJsonFault() with nonFinite accepts the bare values and nothing more", () => {
  equal(findJsonFault('{"a":[NaN,Infinity,-Infinity]}', { nonFinite: true }), null);
  equal(findJsonFault('{"a":NaN}')?.message, 'unexpected "N" (expected a value)');
  equal(
    findJsonFault('{"a":-NaN}', { nonFinite: true })?.message,
    'unexpected "-" (expected a value)',
  );
});

Deno.test("parseJsonObject() refuses nesting deeper than MAX_JSON_DEPTH, naming line and member", () => {
  const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
  // The top object is level 1: 255 arrays inside it make 256 levels, the most allowed.
  equal(MAX_JSON_DEPTH, 256);
  equal(problem(`{"a":${nested(255)}}`), null);
  equal(problem(`{"a":{"b":${nested(254)}}}`), null);
  // One more level: the 257th bracket, at column 5 + 256 = 261 (after `{"a":` and 255 `[`).
  deepEqual(problem(`{"a":${nested(256)}}`), {
    code: "malformed_json",
    line: 1,
    field: "a.0.0.0.0.0.…",
    message: "nested too deeply: more than 256 levels of objects and arrays (at column 261)",
  });
  // The 100,000 levels, on line 2 of a text, inside a short path: named, no overflow.
  // Line 2 is `"notes":{"k":[[[...`: the first "[" (level 3) at column 14, level 257 at 268.
  deepEqual(problem(`{"x":1,\n"notes":{"k":${nested(100_000)}}}`), {
    code: "malformed_json",
    line: 2,
    field: "notes.k.0.0.0.0.…",
    message: "nested too deeply: more than 256 levels of objects and arrays (at column 268)",
  });
  // Objects count as arrays do; a text JSON.parse refuses is held to the limit first.
  equal(problem(`{"a":${'{"b":'.repeat(300)}1${"}".repeat(300)}}`)?.field, "a.b.b.b.b.b.…");
  equal(problem(`{"a":${"[".repeat(100_000)}`)?.message.startsWith("nested too deeply"), true);
  // A path of at most six steps is named whole.
  equal(problem(`{"a":${nested(300)}}`)?.field, "a.0.0.0.0.0.…");
});
