/**
 * Issue 13's boundary cases through the CLI: an exact 10% gap ties, a pilot
 * that exactly fits its budget is accepted, a collapsed interval does not
 * decide the winner. Each is the audit's case; expected values by hand.
 */
import assert from "node:assert/strict";
import { cliInProcess, row, writeJsonl } from "./_cli_run.ts";

const includes = (actual: string, part: string) =>
  assert.ok(actual.includes(part), `expected to find ${JSON.stringify(part)} in:\n${actual}`);

/** Rows for agent `agent`: `resolved` of `scored` tasks, tokens and wall time split over them. */
function rows(
  agent: string,
  scored: number,
  resolved: number,
  tokensEach: number,
  wallEach: number,
): Record<string, unknown>[] {
  return Array.from({ length: scored }, (_, i) =>
    row({
      agent_id: agent,
      task_id: `t${i}`,
      resolved: i < resolved,
      prompt_tokens: tokensEach,
      completion_tokens: 0,
      wall_ms: wallEach,
    }));
}

Deno.test("plan accepts a pilot that exactly fits its budget: exit 0, headroom 0 (issue 13, item 3)", async () => {
  // 10000 (pilot max) x 20 x 1.1 = 220,000 exactly; 220000.00000000003 in floating point, which
  // printed "headroom: -0 tokens" and refused with exit 3.
  const args = ["plan", "--spend", "2700,7300,10000,3800", "--tasks", "20", "--budget", "220000"];
  const fits = await cliInProcess(...args, "--safety", "1.1");
  assert.equal(fits.code, 0, fits.stderr);
  includes(fits.stdout, "10,000 x 20 x 1.1 = 220,000 tokens");
  includes(fits.stdout, "headroom:   0 tokens");
  includes(fits.stdout, "verdict: the plan fits the budget");
  assert.ok(!fits.stdout.includes("-0"), fits.stdout);
  const json = JSON.parse((await cliInProcess(...args, "--safety", "1.1", "--json")).stdout);
  assert.deepEqual([json.verdict, json.estimate.fits, json.estimate.headroom], ["fits", true, 0]);
  // One token short: refused, exit 3, headroom -1.
  const short = await cliInProcess(...args.slice(0, -1), "219999", "--safety", "1.1");
  assert.equal(short.code, 3);
  includes(short.stdout, "headroom:   -1 tokens");
  // Short by a fraction of a token: never "-0". 0.3 x 1 x 1.25 = 0.375 > 0.35.
  const fraction = await cliInProcess("plan", "--spend", "0.3", "--tasks", "1", "--budget", "0.35");
  assert.equal(fraction.code, 3);
  includes(fraction.stdout, "headroom:   -0.025 tokens");
});

Deno.test("compare ties 70,000 vs 77,000 tokens over 3 resolved each (issue 13, item 1)", async () => {
  const dir = await Deno.makeTempDir();
  // a: 3/4 resolved, 4 x 17500 = 70,000 tokens; b: 3/4, 4 x 19250 = 77,000; same wall time.
  const ledger = await writeJsonl(`${dir}/l.jsonl`, [
    ...rows("a", 4, 3, 17_500, 3000),
    ...rows("b", 4, 3, 19_250, 3000),
  ]);
  const out = await cliInProcess("compare", ledger);
  assert.equal(out.code, 0, out.stderr);
  includes(out.stdout, 'verdict: tie (rule "tie")');
  const json = JSON.parse((await cliInProcess("compare", ledger, "--json")).stdout);
  assert.deepEqual([json.comparisons[0].rule, json.comparisons[0].winner], ["tie", null]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("compare names no rate winner for 10/10 against 6/10 (issue 13, item 5)", async () => {
  const dir = await Deno.makeTempDir();
  // Bootstrap [100%, 100%] vs [30%, 90%] are separated, but the Wilson interval printed beside the
  // collapsed one, [72.2%, 100%] (scipy binomtest(10, 10).proportion_ci(method="wilson")), is
  // what decides: overlap; same TPR and SPR: a tie.
  const ledger = await writeJsonl(`${dir}/l.jsonl`, [
    ...rows("ten", 10, 10, 100, 1000),
    ...rows("six", 10, 6, 60, 600),
  ]);
  const json = JSON.parse((await cliInProcess("compare", ledger, "--json")).stdout);
  const [c] = json.comparisons;
  assert.deepEqual([c.rule, c.winner, c.intervals_overlap], ["tie", null, true]);
  assert.deepEqual(c.b.rule_interval.method, "wilson");
  assert.equal(c.b.rule_interval.lower, 0.722467200137);
  await Deno.remove(dir, { recursive: true });
});
