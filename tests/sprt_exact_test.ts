/**
 * Issue 13, items 2 and 4, through the CLI: a walk that lands exactly on an
 * SPRT boundary decides, and the Monte Carlo check uses the exact binomial
 * test where the normal approximation does not hold.
 */
import assert from "node:assert/strict";
import { cli, row, writeJsonl } from "./_cli_run.ts";

const includes = (actual: string, part: string) =>
  assert.ok(actual.includes(part), `expected to find ${JSON.stringify(part)} in:\n${actual}`);

const AUDIT_SPRT = ["--p-adopt", "0.3", "--p-drop", "0.1", "--alpha", "0.1", "--beta", "0.1"];

Deno.test("sprt adopts after two passes that land exactly on the adopt boundary (issue 13)", async () => {
  const dir = await Deno.makeTempDir();
  const rows = ["t1", "t2", "t3"].map((task_id) => row({ task_id, resolved: true }));
  const ledger = await writeJsonl(`${dir}/two_passes.jsonl`, rows);
  const result = await cli("sprt", ledger, "--agent", "a", ...AUDIT_SPRT);
  assert.equal(result.code, 0, result.stderr);
  // (0.3/0.1)^2 = 9 = (1 − 0.1)/0.1: adopt at n = 2; the printed LLR and boundary are equal
  // to four decimals (seed 002 printed the same numbers and continued).
  includes(result.stdout, "verdict: adopt after 2 valid results (passes 2, fails 0, LLR +2.1972)");
  includes(result.stdout, "adopt at LLR >= 2.1972");
  const json = JSON.parse(
    (await cli("sprt", ledger, "--agent", "a", ...AUDIT_SPRT, "--json")).stdout,
  );
  assert.deepEqual(json.replay.steps.map((s: { verdict: string }) => s.verdict), [
    "continue",
    "adopt",
  ]);
  // Just off the boundary: beta 0.09999999999999999 makes (1 − beta)/alpha > 9: continue.
  const off = await cli(
    "sprt",
    ledger,
    "--agent",
    "a",
    ...AUDIT_SPRT.slice(0, 6),
    "--beta",
    "0.09999999999999999",
    "--json",
  );
  assert.equal(off.code, 0, off.stderr);
  assert.deepEqual(JSON.parse(off.stdout).replay.steps.map((s: { verdict: string }) => s.verdict), [
    "continue",
    "continue",
    "adopt",
  ]);
});

Deno.test("calibrate counts the exact boundary in the operating characteristic (issue 13)", async () => {
  // Python fractions reference (see analysis/sprt/sprt_operating_characteristic_test.ts):
  // P(adopt | 0.1) = 0.07046051006886467 at n_cap 100; the float rule gave 0.0656.
  const result = await cli("calibrate", ...AUDIT_SPRT, "--n-cap", "100", "--rates", "0.1");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^ {2}0\.10 {2}7\.05% /m);
  const json = JSON.parse(
    (await cli("calibrate", ...AUDIT_SPRT, "--n-cap", "100", "--rates", "0.1", "--json")).stdout,
  );
  assert.equal(json.calibration.rows[0].exact.decisions.adopt, 0.0704605100689);
});
