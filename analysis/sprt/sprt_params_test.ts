import { deepEqual, throws } from "node:assert/strict";
import { parseSprtParams } from "./sprt_params.ts";

Deno.test("parseSprtParams() fills seed 002's defaults in a fixed key order", () => {
  // Seed 002, `Plan` dataclass: p_adopt 0.60, p_drop 0.40, alpha = beta = 0.10, n_cap 60.
  const params = parseSprtParams({});
  deepEqual(params, { p_adopt: 0.6, p_drop: 0.4, alpha: 0.1, beta: 0.1, n_cap: 60 });
  deepEqual(Object.keys(parseSprtParams({ n_cap: 10, alpha: 0.05 })), [
    "p_adopt",
    "p_drop",
    "alpha",
    "beta",
    "n_cap",
  ]);
  deepEqual(parseSprtParams(), params);
});

Deno.test("parseSprtParams() names the offending field", () => {
  throws(() => parseSprtParams({ alpha: 0 }), (e: Error) => {
    return e instanceof RangeError &&
      e.message.startsWith('Invalid SPRT parameters: field "alpha"') &&
      e.message.endsWith('got "0"');
  });
  throws(
    () => parseSprtParams({ p_adopt: 0.4, p_drop: 0.6 }),
    /Invalid SPRT parameters: field "p_drop": "p_drop" must be below "p_adopt"/,
  );
  throws(() => parseSprtParams({ n_cap: 2.5 }), /field "n_cap"/);
  throws(() => parseSprtParams({ n_cap: 0 }), /field "n_cap"/);
  // @ts-expect-error: unknown fields are refused (the schema is strict)
  throws(() => parseSprtParams({ gamma: 1 }), RangeError);
});
