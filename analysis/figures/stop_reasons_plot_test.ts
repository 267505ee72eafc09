import assert from "node:assert/strict";
import { censoringSummary } from "../censoring.ts";
import { stopReasonsPlot } from "./stop_reasons_plot.ts";
import { row, rowsWith, subtitle } from "./_spec_for_test.ts";

Deno.test("stopReasonsPlot() stacks stop reasons and states each agent's allowed claim", () => {
  // Agent a: 50 scored, 1 token_cap → censoring 1/50 = 2%, which is not under 2%:
  // "both scores, labelled" (seed 003's middle band, bounds inclusive).
  // Agent b: 10 scored, 2 step_cap + 1 error → 30%: budget adequacy only; 1 invalid.
  // Agent c: 60 completed → 0%: headline.
  const rows = [
    ...Array.from({ length: 49 }, (_, i) => row({ agent_id: "a", task_id: `t${i}` })),
    row({ agent_id: "a", task_id: "t49", resolved: false, stop_reason: "token_cap" }),
    ...Array.from({ length: 7 }, (_, i) => row({ agent_id: "b", task_id: `t${i}` })),
    row({ agent_id: "b", task_id: "t7", resolved: false, stop_reason: "step_cap" }),
    row({ agent_id: "b", task_id: "t8", resolved: false, stop_reason: "step_cap" }),
    row({ agent_id: "b", task_id: "t9", resolved: false, stop_reason: "error" }),
    row({
      agent_id: "b",
      task_id: "t10",
      status: "invalid",
      resolved: null,
      invalid_reason: "provider_fault",
      stop_reason: "rate_limited",
    }),
    ...Array.from({ length: 60 }, (_, i) => row({ agent_id: "c", task_id: `t${i}` })),
  ];
  const summary = censoringSummary(rows);
  const spec = stopReasonsPlot(summary);
  const [drawn] = rowsWith(spec, "reason", "x0", "x1");
  // Bars by resolved rate over scored episodes, highest first (issue 25): c 100%, a 98%, b 70%.
  assert.deepEqual([...new Set(drawn.map((s) => s.agent))], [
    "c (60 scored)",
    "a (50 scored)",
    "b (10 scored)",
  ]);
  const byAgent = (x: Record<string, unknown>, y: Record<string, unknown>) =>
    String(x.agent) < String(y.agent) ? -1 : String(x.agent) > String(y.agent) ? 1 : 0;
  const segments = [...drawn].sort(byAgent);
  // Stacked in the schema's order, each segment starting where the previous ended.
  assert.deepEqual(segments.map((s) => [s.agent, s.reason, s.x0, s.x1]), [
    ["a (50 scored)", "completed", 0, 49],
    ["a (50 scored)", "token_cap", 49, 50],
    ["b (10 scored)", "completed", 0, 7],
    ["b (10 scored)", "step_cap", 7, 9],
    ["b (10 scored)", "error", 9, 10],
    ["c (60 scored)", "completed", 0, 60],
  ]);
  const notes = [...rowsWith(spec, "agent", "end", "text")[0]].sort(byAgent);
  assert.deepEqual(notes.map((n) => (n.text as string).split("\n")[0]), [
    "censored 2.0%: both scores, labelled",
    "censored 30.0%: budget adequacy only",
    "censored 0.0%: headline score allowed",
  ]);
  // The invalid attempts on a line of their own, last.
  assert.equal((notes[1].text as string).split("\n")[3], "1 invalid, not scored");
  // The scores each claim allows (seed 003's table), from the second line of each note (the
  // labelled scores on two lines).
  assert.deepEqual(notes.map((n) => scoresOf(n.text as string)), [
    // a, both labelled: 49/50 = 98% over scored episodes (a lower bound), 49/49 over completed only.
    "resolved rate over scored episodes 98.0% (lower bound), score over completed tasks only 100.0%",
    // b, budget adequacy only: no score; its 7/10 = 70% and 7/7 = 100% must not appear.
    "scores not stated (censoring > 10%)",
    // c, headline: the resolved rate over scored episodes, 60/60.
    "headline: resolved rate over scored episodes 100.0%",
  ]);
  assert.ok(!/70\.0%|100\.0%/.test(notes[1].text as string), notes[1].text as string);
  // The censored counts by reason, so the bar reads without colour.
  assert.equal((notes[1].text as string).split("\n")[2], "censored: 2 step_cap, 1 error");
  assert.equal((notes[2].text as string).split("\n").length, 2); // c: nothing censored
  // Whole run: 4 censored of 120 scored = 3.3%: both labelled.
  assert.match(
    subtitle(spec),
    /Whole run: 4 of 120 scored episodes censored \(3\.3%\), pooled, so never more than its weakest agent: budget adequacy only\./,
  );
  assert.match(subtitle(spec), /under 2% censored, headline; 2% to 10%, both scores labelled/);
});

Deno.test("stopReasonsPlot() states the policy's own thresholds and a reason withholding all scores", () => {
  // A plan's policy of 5% / 12.5%. a: 1 of 10 censored = 10% (5% ≤ 10% ≤ 12.5%: both
  // labelled); b: 2 of 10 = 20% (> 12.5%: budget adequacy only).
  const policy = { headline_max: 0.05, labelled_max: 0.125 };
  const rows = ["a", "b"].flatMap((agent) =>
    Array.from({ length: 10 }, (_, i) =>
      row({
        agent_id: agent,
        task_id: `t${i}`,
        resolved: i % 2 === 0,
        stop_reason: i < (agent === "a" ? 1 : 2) ? "wall_cap" : "completed",
      }))
  );
  const summary = censoringSummary(rows, { policy });
  const second = (spec: ReturnType<typeof stopReasonsPlot>) =>
    rowsWith(spec, "agent", "end", "text")[0].map((n) => scoresOf(n.text as string));
  // a: t0 censored (resolved, so it counts in the lower bound): 5/10 = 50% over all
  // tasks; completed t1..t9 resolve t2, t4, t6, t8: 4/9 = 44.4%.
  assert.deepEqual(second(stopReasonsPlot(summary)), [
    "resolved rate over scored episodes 50.0% (lower bound), score over completed tasks only 44.4%",
    "scores not stated (censoring > 12.5%)",
  ]);
  // The subtitle says 12.5%, not a rounded 13%.
  assert.match(subtitle(stopReasonsPlot(summary)), /under 5% censored, headline; 5% to 12\.5%,/);
  // A reason from outside the policy (a ledger that fails validation) withholds every score.
  const withheld = stopReasonsPlot(summary, {
    scoresWithheld: new Map(summary.agents.map((r) => [r.agent_id, "ledger fails validation"])),
  });
  assert.deepEqual(second(withheld), [
    "scores not stated (ledger fails validation)",
    "scores not stated (ledger fails validation)",
  ]);
  assert.ok(!JSON.stringify(withheld).includes("over scored episodes"));
});

Deno.test("stopReasonsPlot() refuses a summary without agents", () => {
  assert.throws(() => stopReasonsPlot(censoringSummary([])), {
    message: "Cannot build stop reasons plot: the censoring summary has no agents",
  });
});

/** A note's scores: its lines after the first, up to the censored counts, joined by a space. */
function scoresOf(note: string): string {
  const lines = note.split("\n").slice(1);
  const end = lines.findIndex((line) =>
    line.startsWith("censored:") || line.endsWith("not scored")
  );
  return lines.slice(0, end === -1 ? undefined : end).join(" ");
}
