import { deepEqual } from "node:assert/strict";
import { diffJson } from "./diff_json.ts";

Deno.test("diffJson() names every differing path, keys sorted, arrays by index", () => {
  deepEqual(
    diffJson(
      { b: 1, a: [1, 2, 3], c: { "x-y": null, z: "s" } },
      { b: 1.5, a: [1, 2], c: { "x-y": false, z: "s" }, d: true },
    ),
    [
      { path: "$.a[2]", expected: 3, actual: undefined },
      { path: "$.b", expected: 1, actual: 1.5 },
      { path: '$.c["x-y"]', expected: null, actual: false },
      { path: "$.d", expected: undefined, actual: true },
    ],
  );
});

Deno.test("diffJson() finds nothing between equal values and respects the limit", () => {
  const value = { agents: [{ id: "a", rate: 0.75 }], ok: true };
  deepEqual(diffJson(value, structuredClone(value)), []);
  deepEqual(diffJson([1, 2, 3], [4, 5, 6], { limit: 2 }).map((d) => d.path), ["$[0]", "$[1]"]);
  // An array against an object differs at the root, not member by member.
  deepEqual(diffJson([], {}), [{ path: "$", expected: [], actual: {} }]);
});
