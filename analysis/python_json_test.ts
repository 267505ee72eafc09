import assert from "node:assert/strict";
import { pythonJson } from "./python_json.ts";
import { parseJsonObject } from "./schema/strict_json.ts";

Deno.test("pythonJson() writes what the strict reader reads back, non-finite numbers and all", () => {
  // Python: json.dumps({"v": [float("nan"), float("inf"), -float("inf"), 0.1, 1e21], "s": "é\n"},
  // separators=(",", ":"), ensure_ascii=False) == '{"v":[NaN,Infinity,-Infinity,0.1,1e+21],"s":"é\n"}'
  // up to the exponent's form (Python writes 1e+21 as JavaScript does)
  const value = { v: [NaN, Infinity, -Infinity, 0.1, 1e21], s: "é\n", skip: undefined, n: null };
  const text = pythonJson(value);
  assert.equal(text, '{"v":[NaN,Infinity,-Infinity,0.1,1e+21],"s":"é\\n","n":null}');
  const parsed = parseJsonObject(new TextEncoder().encode(text), "the file", text, {
    nonFinite: true,
  });
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.value, { v: [NaN, Infinity, -Infinity, 0.1, 1e21], s: "é\n", n: null });
  // a finite value's text is JSON.stringify's
  const plain = { b: [1, "two", { c: true }], a: 1.5 };
  assert.equal(pythonJson(plain), JSON.stringify(plain));
});
