import { equal, throws } from "node:assert/strict";
import { canonicalJson, canonicalJsonLine } from "./canonical_json.ts";

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

Deno.test("canonicalJsonLine() refuses non-finite numbers, naming the path", () => {
  throws(() => canonicalJsonLine({ a: [1, NaN] }), /"\$\.a\[1\]" is NaN/);
  throws(() => canonicalJson({ b: Infinity }), /"\$\.b" is Infinity/);
});
