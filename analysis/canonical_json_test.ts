import { equal, throws } from "node:assert/strict";
import { canonicalJson, canonicalJsonLine } from "./canonical_json.ts";
import { randomIndex, seededRandom } from "./seeded_random.ts";

Deno.test("canonicalJson() sorts keys, rounds to 12 significant digits and indents by two", () => {
  // Hand-written: keys in code-unit order ("B" < "a"), 2/3 to 12 digits, undefined dropped.
  equal(
    canonicalJson({ b: [2 / 3, 10], a: { z: null, y: undefined }, B: true }),
    '{\n  "B": true,\n  "a": {\n    "z": null\n  },\n  "b": [\n    0.666666666667,\n    10\n  ]\n}\n',
  );
});

Deno.test("canonicalJsonLine() is canonicalJson() on one line, without the newline", () => {
  const value = { run_id: "r1", wall_ms: 1234.56789012345, notes: "a\nb", tags: [1 / 7] };
  // Hand-written: the same rule, no whitespace; the "\n" inside a string stays escaped.
  equal(
    canonicalJsonLine(value),
    '{"notes":"a\\nb","run_id":"r1","tags":[0.142857142857],"wall_ms":1234.56789012}',
  );
  equal(canonicalJsonLine(value), JSON.stringify(JSON.parse(canonicalJson(value))));
});

Deno.test("canonicalJsonLine() writes array-index keys first, in numeric order", () => {
  // Hand-written: "10" and "9" are array indices (JavaScript enumerates them first, numerically);
  // "01", "-1" and "4294967295" (2^32 - 1) are not, and sort by code unit after them.
  equal(
    canonicalJsonLine({ b: 1, "10": 2, "9": 3, "01": 4, "-1": 5, "4294967295": 6, "": 7 }),
    '{"9":3,"10":2,"":7,"-1":5,"01":4,"4294967295":6,"b":1}',
  );
});

Deno.test("canonicalJsonLine() refuses non-finite numbers, naming the path", () => {
  throws(() => canonicalJsonLine({ a: [1, NaN] }), /"\$\.a\[1\]" is NaN/);
  throws(() => canonicalJson({ b: Infinity }), /"\$\.b" is Infinity/);
  // the first in code-unit order of the keys, as before issue 23 ("10" < "9")
  throws(() => canonicalJsonLine({ "9": -Infinity, "10": NaN }), /"\$\.10" is NaN/);
  throws(() => canonicalJsonLine({ a: { b: 2n } }), /"\$\.a\.b" is the bigint 2/);
  throws(() => canonicalJsonLine(undefined), /"\$" is undefined/);
});

/**
 * The serialiser before issue 23, kept as the reference: a copy with keys
 * sorted and numbers rounded, written by `JSON.stringify`.
 */
function reference(value: unknown, indent?: number): string {
  return JSON.stringify(normalise(value), null, indent);
}

function normalise(value: unknown): unknown {
  if (typeof value === "number") {
    return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  }
  if (Array.isArray(value)) return value.map((item) => normalise(item));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = normalise(member);
    }
    return out;
  }
  return value;
}

/** Numbers at the edges of the formatting rule: -0, integers past 2^53, exponent forms. */
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1,
  -0.5,
  1 / 3,
  2 / 3,
  1e21,
  1e-7,
  1.5e-7,
  123456789012.5,
  0.9999999999999,
  99999999999.95,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  Number.MAX_SAFE_INTEGER,
];

/** Code units a string may need escaped: controls, quote, backslash, DEL, U+2028, surrogates. */
const UNITS = [
  "a",
  "Z",
  " ",
  "0",
  '"',
  "\\",
  "/",
  "\u007f",
  "\u0080",
  "é",
  "中",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "\ud83d\ude00",
  ...Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)),
];

/** Keys in both orders: array indices and the strings around them. */
const KEYS = [
  "",
  "a",
  "b",
  "B",
  "a b",
  "0",
  "1",
  "2",
  "9",
  "10",
  "01",
  "-1",
  "1.5",
  "1e3",
  "4294967294",
  "4294967295",
  "9007199254740993",
  "__proto__x",
  "episode_id",
];

function randomNumber(random: () => number): number {
  switch (randomIndex(random, 4)) {
    case 0:
      return NUMBERS[randomIndex(random, NUMBERS.length)];
    case 1:
      return randomIndex(random, 2_000_001) - 1_000_000;
    case 2: // any magnitude, with 17 significant digits
      return (random() - 0.5) * 10 ** (randomIndex(random, 640) - 330);
    default:
      return Number(
        (random() * 10 ** randomIndex(random, 25)).toPrecision(randomIndex(random, 17) + 1),
      );
  }
}

function randomString(random: () => number): string {
  let text = "";
  for (let n = randomIndex(random, 8); n > 0; n--) {
    text += random() < 0.5 ? "x" : UNITS[randomIndex(random, UNITS.length)];
  }
  return text;
}

function randomValue(random: () => number, depth: number): unknown {
  const kind = randomIndex(random, depth > 3 ? 6 : 9);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
    case 3:
      return randomNumber(random);
    case 4:
    case 5:
      return randomString(random);
    case 6: {
      const items = Array.from(
        { length: randomIndex(random, 5) },
        () => random() < 0.1 ? undefined : randomValue(random, depth + 1),
      );
      if (random() < 0.1) items.length += 2; // holes
      return items;
    }
    default: {
      const object: Record<string, unknown> = {};
      for (let n = randomIndex(random, 6); n > 0; n--) {
        const key = random() < 0.7 ? KEYS[randomIndex(random, KEYS.length)] : randomString(random);
        object[key] = random() < 0.1 ? undefined : randomValue(random, depth + 1);
      }
      return object;
    }
  }
}

Deno.test("canonicalJsonLine() and canonicalJson() write the bytes of the serialiser before issue 23", () => {
  // Property: over 5,000 generated values (seed "canonical-json"), the same text as
  // JSON.stringify of a key-sorted, number-rounded copy, on one line and indented by two.
  const random = seededRandom("canonical-json");
  for (let i = 0; i < 5000; i++) {
    const value = randomValue(random, 0);
    equal(canonicalJsonLine(value), reference(value), `value ${i}`);
    equal(canonicalJson(value), reference(value, 2) + "\n", `value ${i}`);
  }
});

Deno.test("canonicalJsonLine() writes what JSON omits or cannot hold as before issue 23", () => {
  const odd = {
    f: () => 1,
    s: Symbol("s"),
    u: undefined,
    list: [undefined, () => 1, Symbol("t"), , 1],
    date: new Date(0),
    boxed: new String("ab"),
    typed: new Uint8Array([7, 8]),
    empty: { only: undefined },
    nested: [[], {}, [[]], { a: {} }],
  };
  equal(canonicalJsonLine(odd), reference(odd));
  equal(canonicalJson(odd), reference(odd, 2) + "\n");
});

Deno.test("canonicalJsonLine() writes objects of more key lists than it remembers alike", () => {
  // 3,000 key lists, past the 1,024 remembered and the 8 per first key; each written twice.
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 3000; i++) {
      const value = { [`k${i % 5}`]: i, [String(i)]: [i / 7], z: { [`${i}x`]: true } };
      equal(canonicalJsonLine(value), reference(value));
    }
  }
});
