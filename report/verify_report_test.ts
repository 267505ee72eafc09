import { deepEqual, equal, ok } from "node:assert/strict";
import { episode, inMemoryLedger } from "../analysis/_ledger_for_test.ts";
import { buildReport } from "./build_report.ts";
import { loadReportInputs } from "./load_report_inputs.ts";
import { renderReport } from "./render_report.ts";
import { writeReport } from "./write_report.ts";
import { verifyReport } from "./verify_report.ts";
import type { Episode } from "../analysis/schema/records.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;

Deno.test("verifyReport() recomputes the per-resolved intervals and frontier shares (issue 23)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "verify_report_" });
  try {
    const report = buildReport(await loadReportInputs({ ledger: SAMPLE }));
    await writeReport(dir, (await renderReport(report)).files);
    const clean = await verifyReport(dir);
    ok(clean.ok, JSON.stringify(clean.differences));
    // What summary.json holds: the seed-001 sample's task-cluster intervals and task-paired
    // frontier shares (analysis/_per_resolved_reference.py: a [3250, 32300], 1250 of 2000;
    // b [1450, unbounded], 1432 of 2000).
    const path = `${dir}/summary.json`;
    const summary = JSON.parse(await Deno.readTextFile(path));
    const [a, b] = summary.per_resolved.agents;
    deepEqual([a.tokens_per_resolved.lo, a.tokens_per_resolved.hi, a.frontier_rounds], [
      3250,
      32300,
      1250,
    ]);
    deepEqual([b.tokens_per_resolved.hi, b.tokens_per_resolved.unbounded_above], [null, true]);
    equal(b.frontier_probability, 0.716);
    // Tampered: a narrower interval and a firmer frontier share are both caught, by key.
    a.tokens_per_resolved.hi = 20000;
    b.frontier_probability = 0.9;
    await Deno.writeTextFile(path, JSON.stringify(summary, null, 2) + "\n");
    const tampered = await verifyReport(dir);
    equal(tampered.ok, false);
    const keys = tampered.differences.map((d) => d.key);
    ok(keys.includes("$.per_resolved.agents[0].tokens_per_resolved.hi"), keys.join());
    ok(keys.includes("$.per_resolved.agents[1].frontier_probability"), keys.join());
    const message = tampered.differences.find((d) =>
      d.key === "$.per_resolved.agents[1].frontier_probability"
    )!.message;
    equal(message, "summary.json holds 0.9, recomputed 0.716");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("buildReport() draws the frontier over the stated agents and tabulates the intervals", () => {
  const row = episode;
  const rows: Episode[] = [];
  for (let t = 1; t <= 20; t++) {
    // a resolves the odd tasks; b the same but 3 of 20 censored (15% > 10%: withheld); c
    // resolves every third task and recorded no tokens for t1.
    rows.push(row("a", `t${t}`, t % 2 === 1));
    rows.push(row("b", `t${t}`, t % 2 === 1, t <= 3 ? { stop_reason: "token_cap" } : {}));
    rows.push(
      row(
        "c",
        `t${t}`,
        t % 3 === 0,
        t === 1 ? { prompt_tokens: null, completion_tokens: null } : {},
      ),
    );
  }
  const report = buildReport({
    ledger: inMemoryLedger(rows),
  });
  const u = report.summary.per_resolved;
  // b's numbers may not be stated, so the frontier is a's and c's; c recorded no tokens for
  // one attempt, so it has no tokens per resolved and no place on a frontier in tokens.
  deepEqual(u.frontier.agents, ["a"]);
  deepEqual(u.agents.map((x) => x.frontier_null_reason), [
    null,
    "not_in_frontier_set",
    "not_recorded",
  ]);
  equal(u.agents[0].frontier_probability, 1);
  equal(u.agents[2].tokens_per_resolved.null_reason, "not_recorded");
  equal(u.agents[2].seconds_per_resolved.null_reason, null);
  // The table: a's cells with intervals, b's not stated, c's tokens "not recorded" (never 0).
  const table = report.markdown.slice(report.markdown.indexOf("| agent | tasks resampled |"));
  const lines = table.slice(0, table.indexOf("\n\n")).split("\n");
  const line = (agent: string) => lines.find((l) => l.startsWith(`| ${agent} | `));
  ok(line("a")!.endsWith("| 100.0% (2,000 of 2,000 rounds) |"), line("a"));
  ok(line("b")!.includes("| not stated | not stated | not stated |"), line("b"));
  ok(line("c")!.includes("| not recorded | "), line("c"));
  ok(line("c")!.endsWith("| none: cost not recorded |"), line("c"));
  // a resolves 10 of 20 tasks at 1,500 tokens each: 3,000 tokens per resolved; a resample
  // of 20 tasks resolves Binomial(20, 1/2) of them, whose 2.5% and 97.5% quantiles 6 and 14
  // give 30,000 / 14 = 2,143 and 30,000 / 6 = 5,000 (Markdown escapes the brackets).
  ok(line("a")!.includes("| 3,000 \\[2,143, 5,000\\] |"), line("a"));
  // The frontier figure shows a alone, with its share; b is named as left out.
  const figure = report.figures.find((f) => f.name === "cost_frontier")!;
  ok(JSON.stringify(figure.spec).includes("on the frontier in 100% of task resamples"));
  ok(figure.caption.includes('Left out, because their numbers may not be stated: "b".'));
});
