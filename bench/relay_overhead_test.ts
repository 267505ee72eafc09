import assert from "node:assert/strict";
import { measureRelayOverhead } from "./relay_overhead.ts";

// Shape only: timing values are never asserted in tests (house rule).
Deno.test("measureRelayOverhead() returns medians for all three paths", async () => {
  const figures = await measureRelayOverhead({ calls: 3, warmup: 1 });
  assert.equal(figures.calls, 3);
  for (
    const value of [figures.direct_ms_median, figures.relay_ms_median, figures.forwarder_ms_median]
  ) {
    assert.equal(typeof value, "number");
    assert.ok(Number.isFinite(value) && (value as number) > 0);
  }
  // The added figures are the differences of the medians, as documented.
  assert.ok(
    Math.abs(figures.relay_added_ms - (figures.relay_ms_median - figures.direct_ms_median)) <
      0.0015,
  );
  assert.ok(
    Math.abs(
      figures.forwarder_added_ms! - (figures.forwarder_ms_median! - figures.direct_ms_median),
    ) < 0.0015,
  );
  const noForwarder = await measureRelayOverhead({ calls: 1, warmup: 0, forwarder: false });
  assert.equal(noForwarder.forwarder_ms_median, null);
  assert.equal(noForwarder.forwarder_added_ms, null);
});

Deno.test("measureRelayOverhead() meters Responses and Messages calls against a direct call", async () => {
  for (const api of ["responses", "messages"] as const) {
    const figures = await measureRelayOverhead({ api, calls: 2, warmup: 0, forwarder: false });
    assert.equal(figures.api, api);
    assert.ok(Number.isFinite(figures.relay_ms_median) && figures.relay_ms_median > 0);
    assert.ok(Number.isFinite(figures.direct_ms_median) && figures.direct_ms_median > 0);
  }
});
