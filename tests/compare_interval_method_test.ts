/**
 * `compare` by the plan's interval method (issue 13): the plan's
 * `interval_method` decides every rate verdict and is named; without a plan
 * `--interval-method` chooses it; a flag that contradicts the plan is a
 * usage error naming both.
 *
 * @module
 */
import { equal, match } from "node:assert/strict";
import { cliInProcess } from "./_cli_run.ts";

const SYNTHETIC = "ledgers/examples/synthetic_ledger.jsonl";

Deno.test("compare: the plan's interval method decides and is named; a flag only without a plan", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-method-" });
  try {
    const plan = JSON.parse(await Deno.readTextFile("ledgers/examples/synthetic_plan.json"));
    await Deno.writeTextFile(
      `${dir}/plan.json`,
      JSON.stringify({ ...plan, interval_method: "wilson" }),
    );
    const byPlan = await cliInProcess("compare", SYNTHETIC, "--plan", `${dir}/plan.json`, "--json");
    equal(byPlan.code, 0, byPlan.stderr);
    const payload = JSON.parse(byPlan.stdout);
    equal(payload.parameters.interval_method, "wilson");
    equal(payload.parameters.interval_method_source, "plan");
    for (const c of payload.comparisons) equal(c.a.rule_interval?.method ?? "wilson", "wilson");
    const text = await cliInProcess("compare", SYNTHETIC, "--plan", `${dir}/plan.json`);
    match(text.stdout, /^interval: wilson, 95% \(plan\)$/m);
    const conflict = await cliInProcess(
      "compare",
      SYNTHETIC,
      "--plan",
      `${dir}/plan.json`,
      "--interval-method",
      "clopper-pearson",
    );
    equal(conflict.code, 1);
    match(
      conflict.stderr,
      /^error: Option "--interval-method" \("clopper-pearson"\) conflicts with the plan's interval_method \("wilson"\)/,
    );
    const byFlag = await cliInProcess(
      "compare",
      SYNTHETIC,
      "--interval-method",
      "clopper-pearson",
      "--json",
    );
    equal(byFlag.code, 0, byFlag.stderr);
    equal(JSON.parse(byFlag.stdout).comparisons[0].a.rule_interval.method, "clopper-pearson");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
