/**
 * Issue 13, items 2 and 4, through the CLI: a walk that lands exactly on an
 * SPRT boundary decides, and the Monte Carlo check uses the exact binomial
 * test where the normal approximation does not hold.
 */
import assert from "node:assert/strict";
import { cliInProcess, row, writeJsonl } from "./_cli_run.ts";

const includes = (actual: string, part: string) =>
  assert.ok(actual.includes(part), `expected to find ${JSON.stringify(part)} in:\n${actual}`);

const AUDIT_SPRT = ["--p-adopt", "0.3", "--p-drop", "0.1", "--alpha", "0.1", "--beta", "0.1"];

Deno.test("sprt adopts after two passes that land exactly on the adopt boundary (issue 13)", async () => {
  const dir = await Deno.makeTempDir();
  const rows = ["t1", "t2", "t3"].map((task_id) => row({ task_id, resolved: true }));
  const ledger = await writeJsonl(`${dir}/two_passes.jsonl`, rows);
  const result = await cliInProcess("sprt", ledger, "--agent", "a", ...AUDIT_SPRT);
  assert.equal(result.code, 0, result.stderr);
  // (0.3/0.1)^2 = 9 = (1 − 0.1)/0.1: adopt at n = 2; the printed LLR and boundary are equal
  // to four decimals (seed 002 printed the same numbers and continued).
  includes(result.stdout, "verdict: adopt after 2 valid results (passes 2, fails 0, LLR +2.1972)");
  includes(result.stdout, "adopt at LLR >= 2.1972");
  const json = JSON.parse(
    (await cliInProcess("sprt", ledger, "--agent", "a", ...AUDIT_SPRT, "--json")).stdout,
  );
  assert.deepEqual(json.replay.steps.map((s: { verdict: string }) => s.verdict), [
    "continue",
    "adopt",
  ]);
  // Just off the boundary: beta 0.09999999999999999 makes (1 − beta)/alpha > 9: continue.
  const off = await cliInProcess(
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
  const result = await cliInProcess("calibrate", ...AUDIT_SPRT, "--n-cap", "100", "--rates", "0.1");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^ {2}0\.10 {2}7\.05% /m);
  const json = JSON.parse(
    (await cliInProcess("calibrate", ...AUDIT_SPRT, "--n-cap", "100", "--rates", "0.1", "--json"))
      .stdout,
  );
  assert.equal(json.calibration.rows[0].exact.decisions.adopt, 0.0704605100689);
});

const AUDIT_CALIBRATE = [
  "calibrate",
  "--p-adopt",
  "0.8",
  "--p-drop",
  "0.2",
  "--alpha",
  "0.01",
  "--beta",
  "0.01",
  "--n-cap",
  "5",
  "--rates",
  "0.02",
];

Deno.test("calibrate agrees when 1 hit meets an exact probability of 6.3e-7 (issue 13)", async () => {
  // 1 cap-adopt in 20,000 trials against P = 6.272e-7 (expected 0.0125): |z| 8.82 was a false
  // alarm; scipy.stats.binomtest(1, 20000, 6.272e-07).pvalue = 0.012465655858141666.
  const result = await cliInProcess(...AUDIT_CALIBRATE);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, "");
  includes(result.stdout, "Exact binomial tests where an expected count is below 10");
  assert.match(result.stdout, /^ {2}0\.02 {2}cap-adopt {5}1 {2}6\.27e-7 {4}0\.0125 {2}0\.0125$/m);
  includes(result.stdout, "Exact and Monte Carlo agree: every |z| <= 4 (largest 1.23)");
  includes(result.stdout, "every exact p >=\n  6.33e-5 (smallest 0.0125)");
  assert.ok(!result.stdout.includes("DISAGREE"));
  const json = JSON.parse((await cliInProcess(...AUDIT_CALIBRATE, "--json")).stdout);
  assert.equal(json.calibration.agrees, true);
  assert.equal(json.calibration.rows[0].exact_p["cap-adopt"], 0.0124656558581);
  assert.equal(json.calibration.exact_p_level, 0.0000633424836662);
  // At --tolerance-z 2 the level is 0.0455 (scipy.special.erfc(2 / sqrt(2))): the exact test
  // disagrees while every |z| used stays within 2.
  const strict = await cliInProcess(...AUDIT_CALIBRATE, "--tolerance-z", "2");
  assert.equal(strict.code, 0, strict.stderr);
  includes(strict.stdout, "Exact and Monte Carlo DISAGREE: smallest exact p 0.0125 < 0.0455");
});
