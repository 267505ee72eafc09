/**
 * `compare --paired` prints the exact McNemar p-value of each pair and, with
 * more than two agents, the Holm-adjusted p-values over the matrix and the
 * number of comparisons (issue 13, item 7), run in the test process
 * (`cliInProcess`) on the synthetic example ledger.
 */
import assert from "node:assert/strict";
import { cliInProcess } from "./_cli_run.ts";

const SYNTHETIC = new URL("../ledgers/examples/synthetic_ledger.jsonl", import.meta.url).pathname;

Deno.test("compare --paired gives the audit's exact McNemar p 0.143 for agent-alpha vs agent-beta", async () => {
  const text = await cliInProcess(
    "compare",
    SYNTHETIC,
    "--agents",
    "agent-alpha,agent-beta",
    "--paired",
  );
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stderr, "");
  assert.match(
    text.stdout,
    /McNemar \(task rule majority\): only agent-alpha 24, only agent-beta 14, both 32, neither 14\n/,
  );
  // scipy.stats.binomtest(24, 38, 0.5).pvalue -> 0.14330665429588407 (audit: 0.143)
  assert.ok(
    text.stdout.includes(
      "  exact McNemar p 0.143 (two-sided binomial test, 24 vs 14 of 38 discordant tasks)\n",
    ),
    text.stdout,
  );
  // one comparison: nothing to adjust, no Holm line
  assert.ok(!text.stdout.includes("Holm"), text.stdout);

  const json = await cliInProcess(
    "compare",
    SYNTHETIC,
    "--agents",
    "agent-alpha,agent-beta",
    "--paired",
    "--json",
  );
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.equal(out.paired[0].mcnemar_p_value, 0.143306654296); // 12 significant digits
  assert.deepEqual(out.paired_p_values, {
    comparisons: 1,
    method: "exact_mcnemar_holm",
    pairs: [{
      a: "agent-alpha",
      b: "agent-beta",
      discordant: 38,
      holm_p_value: 0.143306654296,
      only_a: 24,
      only_b: 14,
      p_value: 0.143306654296,
    }],
  });
});

Deno.test("compare --paired with four agents gives Holm-adjusted p-values over 6 comparisons", async () => {
  const text = await cliInProcess("compare", SYNTHETIC, "--paired");
  // agent-gamma is withheld (censoring 21.4% > 10%): its pairs are marked, and not explained
  assert.ok(!text.stdout.includes("Paired comparison agent-alpha vs agent-gamma"), text.stdout);
  assert.equal(text.code, 0, text.stderr);
  // Raw p: scipy.stats.binomtest; Holm: Python from the six raw values (see
  // analysis/pairwise_p_values_test.ts).
  assert.ok(
    text.stdout.includes(
      "  exact McNemar p 0.143 (two-sided binomial test, 24 vs 14 of 38 discordant tasks)\n" +
        "  Holm-adjusted p 0.334 (over all 6 comparisons)\n",
    ),
    text.stdout,
  );
  assert.ok(
    text.stdout.includes(
      "Paired p-values (exact McNemar; Holm-adjusted over 6 comparisons):\n" +
        "a            b            only a  only b        p   Holm p  verdict\n" +
        "-----------  -----------  ------  ------  -------  -------  --------------------\n" +
        "agent-alpha  agent-beta       24      14    0.143    0.334  stated\n" +
        "agent-alpha  agent-delta      38      10  < 0.001  < 0.001  stated\n" +
        "agent-alpha  agent-gamma      26      10    0.011    0.048  withheld (censoring)\n" +
        "agent-beta   agent-delta      31      13    0.010    0.048  stated\n" +
        "agent-beta   agent-gamma      21      15    0.405    0.405  withheld (censoring)\n" +
        "agent-delta  agent-gamma      18      30    0.111    0.334  withheld (censoring)\n",
    ),
    text.stdout,
  );
  const out = JSON.parse((await cliInProcess("compare", SYNTHETIC, "--paired", "--json")).stdout);
  assert.equal(out.paired_p_values.comparisons, 6);
  assert.deepEqual(
    out.paired_p_values.pairs.map((p: { holm_p_value: number }) => p.holm_p_value),
    [
      0.334208673183,
      0.000370178446659,
      0.0477993942832,
      0.0477993942832,
      0.405032246141,
      0.334208673183,
    ],
  );
  // without --paired there is nothing to test
  const plain = JSON.parse((await cliInProcess("compare", SYNTHETIC, "--json")).stdout);
  assert.equal(plain.paired_p_values, null);
});
