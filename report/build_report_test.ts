import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { episode, inMemoryLedger } from "../analysis/_ledger_for_test.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import type { ErrataFile } from "../analysis/errata.ts";
import { LedgerError } from "../analysis/ledger_error.ts";
import { type Episode, Erratum, Plan, PriceTable } from "../analysis/schema/records.ts";
import { buildReport } from "./build_report.ts";
import { exactCoverage, intervalOf } from "../analysis/interval_coverage.ts";
import type { ReportInputs } from "./report_model.ts";
import { loadReportInputs } from "./load_report_inputs.ts";
import { renderSvg } from "./render_figure.ts";
import { displayId } from "../analysis/untrusted_text.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;

function near(
  actual: number | null | undefined,
  expected: number,
  tolerance: number,
  what: string,
) {
  ok(
    typeof actual === "number" && Math.abs(actual - expected) <= tolerance,
    `${what}: expected ${expected} ± ${tolerance}, got ${actual}`,
  );
}

/** A ledger record for rows that never touched a file. */
function inputsOf(rows: Episode[], extra: Partial<ReportInputs> = {}): ReportInputs {
  return {
    ledger: inMemoryLedger(rows),
    ...extra,
  };
}

/** The scores line beside each agent's stop-reason bar, by agent id. */
function stopNotes(report: ReturnType<typeof buildReport>): Record<string, string> {
  const spec = report.figures.find((f) => f.name === "stop_reasons")!.spec as {
    layer: { data: { values: Record<string, unknown>[] } }[];
  };
  const notes = spec.layer.flatMap((l) => l.data.values).filter((v) => Object.hasOwn(v, "end"));
  return Object.fromEntries(
    notes.map((n) => {
      // The scores: the lines after the first, up to the censored counts (labelled: two lines).
      const lines = (n.text as string).split("\n").slice(1);
      const end = lines.findIndex((l) => l.startsWith("censored:") || l.endsWith("not scored"));
      return [
        (n.agent as string).split(" ")[0],
        lines.slice(0, end === -1 ? undefined : end).join(" "),
      ];
    }),
  );
}

function claim(report: ReturnType<typeof buildReport>, id: string) {
  const found = report.summary.claims.find((c) => c.id === id);
  if (found === undefined) throw new Error(`claim "${id}" missing`);
  return found;
}

Deno.test("buildReport() states seed 001's sample verdict: no rate winner, b wins on TPR", async () => {
  const report = buildReport(await loadReportInputs({ ledger: SAMPLE }));
  const { summary } = report;
  const [a, b] = summary.agents;
  // Seed 001's sample: a resolves t1, t2, t4 (3/4), b resolves t1, t3 (2/4).
  deepEqual([a.resolved, a.scored, b.resolved, b.scored], [3, 4, 2, 4]);
  // a's tokens: 2700 + 7300 + 9500 + 3800 = 23300 over 3 resolved; b's: 1300 + 2400 + 1600 + 2200 = 7500 over 2.
  near(a.tpr, 23300 / 3, 1e-9, "TPR a");
  near(b.tpr, 3750, 1e-9, "TPR b");
  // Pinned in bootstrap_rate_test.ts (exact binomial quantiles): a [0.25, 1], b [0, 1].
  deepEqual(
    summary.intervals.map((i) => [i.bootstrap?.lower, i.bootstrap?.upper]),
    [[0.25, 1], [0, 1]],
  );
  const [pair] = summary.comparisons;
  equal(pair.rule, "tpr");
  equal(pair.winner, "b");
  // (7766.67 − 3750) / 3750 = 1.07111 (hand computation).
  near(pair.tpr_relative_difference, (23300 / 3 - 3750) / 3750, 1e-12, "TPR difference");
  const verdict = claim(report, "pair:a:b");
  ok(verdict.stated);
  equal(verdict.rule, 'seed-001 rule "tpr"');
  ok(verdict.text.includes("no rate winner"), verdict.text);
  ok(verdict.text.includes('"b" wins on tokens per resolved'), verdict.text);
  // No plan: the seed-001 defaults, said to be defaults.
  deepEqual(summary.parameters.bootstrap, { rounds: 2000, seed: 7, source: "default" });
  equal(summary.parameters.tie_band.value, 0.1);
  ok(claim(report, "validation").text.startsWith("No plan given"));
  equal(summary.citable, true);
  deepEqual(summary.figures.map((f) => f.name), [
    "forest",
    "efficiency",
    "stop_reasons",
    "cost_frontier",
  ]);
  deepEqual(summary.inputs.ledger.path, SAMPLE);
  ok(report.markdown.includes("| a | 4 | 0 | 4 | 3 | headline | 75.0% \\[25.0%, 100.0%\\]"));
});

Deno.test("buildReport() withholds an agent's numbers above the censoring policy's 10%", () => {
  const rows: Episode[] = [];
  for (let t = 1; t <= 20; t++) {
    // a: never censored (0%: headline); c: 1 of 20 censored (5%: both labelled);
    // b: 3 of 20 censored (15% > 10%: budget adequacy only). All resolve the odd tasks.
    rows.push(episode("a", `t${t}`, t % 2 === 1));
    rows.push(episode("b", `t${t}`, t % 2 === 1, t <= 3 ? { stop_reason: "token_cap" } : {}));
    rows.push(episode("c", `t${t}`, t % 2 === 1, t === 2 ? { stop_reason: "step_cap" } : {}));
  }
  const report = buildReport(inputsOf(rows));
  const byAgent = Object.fromEntries(report.summary.censoring.agents.map((r) => [r.agent_id, r]));
  deepEqual(
    [byAgent.a.claim, byAgent.b.claim, byAgent.c.claim],
    ["headline", "budget_adequacy_only", "both_labelled"],
  );
  const b = claim(report, "agent:b");
  equal(b.stated, false);
  equal(b.rule, 'seed-003 policy "budget_adequacy_only"');
  ok(b.text.includes("15.0% is above 10%"), b.text);
  // b's two pairs are withheld in one line naming the cause, not pair by pair (issue 11).
  equal(report.summary.claims.some((c) => c.id === "pair:a:b" || c.id === "pair:b:c"), false);
  const pairs = claim(report, "pairs-withheld:censoring");
  equal(pairs.stated, false);
  equal(
    pairs.text,
    'No ranking stated for 2 pairs (censoring above the policy): "b": its censoring rate 15.0% ' +
      "is above 10%, so only budget adequacy may be stated",
  );
  const ac = claim(report, "pair:a:c");
  ok(ac.stated);
  ok(
    ac.text.endsWith(
      "(rates: the resolved rate over scored episodes; a labelled agent's scores are in its claim)",
    ),
    ac.text,
  );
  const c = claim(report, "agent:c");
  // c: 10 of 20 scored episodes resolved; t2 (even, unresolved) was censored, so the
  // completed ones are the other 19, of which the 10 odd tasks resolved: 10/19 = 52.6%.
  ok(c.text.includes("resolved rate over scored episodes 50.0% (a lower bound"), c.text);
  ok(c.text.includes("score over completed tasks only 52.6% (10 of 19)"), c.text);
  // b's censoring (budget adequacy) is still stated.
  ok(claim(report, "censoring:b").stated);
  // The figures leave b's capability numbers out: no forest pair with b, no score beside its bar.
  const forest = report.figures.find((f) => f.name === "forest")!;
  ok(!JSON.stringify(forest.spec).includes("b (10/20)"));
  ok(JSON.stringify(forest.spec).includes("a (10/20)"));
  const stops = JSON.stringify(report.figures.find((f) => f.name === "stop_reasons")!.spec);
  ok(stops.includes("budget adequacy only"));
  // b's completed-only score would be 8/17 = 47.1% (t1–t3 censored; odd t5..t19 resolved).
  equal(report.summary.censoring.agents[1].score_completed_only, 8 / 17);
  ok(!stops.includes("47.1%"), "b's completed-only score is not in the figure");
  // The builder prints what each claim allows: a's headline (10/20), c's two labelled
  // scores (10/20 and 10/19), and for b the policy's limit instead of a score.
  const notes = stopNotes(report);
  equal(notes.a, "headline: resolved rate over scored episodes 50.0%");
  equal(notes.b, "scores not stated (censoring > 10%)");
  equal(
    notes.c,
    "resolved rate over scored episodes 50.0% (lower bound), score over completed tasks only 52.6%",
  );
  ok(report.markdown.includes("| b | 20 | 0 | 20 | 10 | withheld (censoring) | not stated |"));
});

Deno.test("buildReport(): a task without a row withholds only the agent lacking it (issue 11)", () => {
  const plan = Plan.parse({
    plan_id: "p1",
    tasks: [{ task_id: "t1" }, { task_id: "t2" }, { task_id: "t3" }],
    agents: [{ agent_id: "a" }, { agent_id: "b" }],
  });
  // b has no row for t3: seed 003's validation finds a missing task; 1 of 3 is above 10%.
  const rows = [
    episode("a", "t1", true),
    episode("a", "t2", false),
    episode("a", "t3", true),
    episode("b", "t1", true),
    episode("b", "t2", true),
  ];
  const report = buildReport(
    inputsOf(rows, { plan: { path: "plan.json", sha256: "1".repeat(64), value: plan } }),
  );
  equal(report.summary.citable, false);
  deepEqual(report.summary.validation?.finding_counts, { missing_task: 1, row_count: 1 });
  const validation = claim(report, "validation");
  ok(validation.text.includes('does not match plan "p1"'), validation.text);
  // a covers every planned task: its headline stands.
  const a = claim(report, "agent:a");
  equal(a.stated, true);
  ok(a.text.includes("resolved rate over scored episodes 66.7%"), a.text);
  const b = claim(report, "agent:b");
  equal(b.stated, false);
  equal(b.rule, 'missing tasks, seed-003 policy "budget_adequacy_only"');
  equal(
    b.text,
    '"b": resolved rate not stated: 1 of its 3 planned tasks have no row (33.3%, above 10%)',
  );
  equal(
    claim(report, "coverage:b").text,
    '"b": 3 planned, 2 rows, 1 missing (33.3%: "t3"); score over planned tasks 66.7% (a ' +
      "lower bound: 2 of 3), resolved rate over scored episodes 100.0%; the missing rate alone " +
      'allows "budget ' +
      'adequacy only" (headline under 2%, both scores labelled up to 10%, above that budget ' +
      "adequacy only); its claim over every rate: withheld (missing)",
  );
  equal(
    claim(report, "pairs-withheld:missing").text.startsWith("No ranking stated for 1 pair"),
    true,
  );
  // The stop-reasons figure withholds b's scores only.
  const notes = stopNotes(report);
  equal(notes.a, "headline: resolved rate over scored episodes 66.7%");
  equal(notes.b, "scores not stated (too many planned tasks have no row)");
  ok(report.markdown.includes("> The ledger as recorded does not match plan"));
});

Deno.test("buildReport() withholds every agent when a finding concerns the whole ledger", () => {
  const plan = Plan.parse({
    plan_id: "p1",
    tasks: [{ task_id: "t1" }],
    agents: [{ agent_id: "a" }, { agent_id: "b" }],
  });
  const rows = [episode("a", "t1", true), episode("b", "t1", true)];
  const inputs = inputsOf(rows, {
    plan: { path: "plan.json", sha256: "1".repeat(64), value: plan },
  });
  // A reader problem (no agent named) fails validation for every agent.
  inputs.ledger.problems.push({
    code: "broken_hash_chain",
    file: "l.jsonl",
    line: 2,
    field: "prev_sha256",
    message: "does not match",
  });
  const report = buildReport(inputs);
  for (const id of ["agent:a", "agent:b"]) {
    const c = claim(report, id);
    equal(c.stated, false, id);
    equal(c.rule, "seed-003 validation", id);
  }
  equal(
    claim(report, "pairs-withheld:validation").text.startsWith("No ranking stated for 1 pair"),
    true,
  );
  const reason = "scores not stated (the ledger does not validate against its plan)";
  deepEqual(stopNotes(report), { a: reason, b: reason });
});

Deno.test("buildReport() applies errata on top and states each correction and voided summary", () => {
  const rows = [
    episode("a", "t1", true),
    episode("a", "t2", false),
    episode("b", "t1", true),
    episode("b", "t2", true),
  ];
  const errata: ErrataFile = {
    file: "errata.jsonl",
    sha256: "2".repeat(64),
    lines: 2,
    problems: [],
    entries: [
      {
        line: 1,
        erratum: Erratum.parse({
          kind: "rescore_episode",
          erratum_id: "e1",
          created_at: "2026-09-05T09:00:00Z",
          episode_id: "r/a/t2/1",
          resolved: true,
          explanation: "verifier setup failed; re-verified with zero model calls",
        }),
      },
      {
        line: 2,
        erratum: Erratum.parse({
          kind: "void_summary",
          erratum_id: "e2",
          created_at: "2026-09-05T09:10:00Z",
          summary_sha256: "3".repeat(64),
          explanation: "counted a verifier fault as a failure",
        }),
      },
    ],
  };
  const before = canonicalJson(rows);
  const report = buildReport(inputsOf(rows, { errata }));
  equal(canonicalJson(rows), before, "the input rows are not modified");
  // a: t2 rescored from false to true, so 2 of 2.
  deepEqual(report.summary.agents.map((a) => a.resolved), [2, 2]);
  deepEqual(report.summary.errata?.voided_summaries, ["3".repeat(64)]);
  ok(claim(report, "errata:e1").text.includes("not resolved → resolved"));
  ok(claim(report, "errata:e2").text.includes(`voids the summary with SHA-256 ${"3".repeat(64)}`));
  deepEqual(report.summary.inputs.errata, {
    path: "errata.jsonl",
    sha256: "2".repeat(64),
    entries: 2,
  });
});

Deno.test("buildReport() replays the plan's SPRT per agent in the planned order", () => {
  const tasks = Array.from({ length: 8 }, (_, i) => ({ task_id: `t${i + 1}` }));
  const plan = Plan.parse({
    plan_id: "sprt-plan",
    tasks,
    agents: [{ agent_id: "a" }, { agent_id: "b" }],
    stopping: { kind: "sprt", params: {} },
  });
  // Written out of order: the replay must follow the plan's order.
  const rows: Episode[] = [];
  for (let t = 6; t >= 1; t--) {
    rows.push(episode("a", `t${t}`, true));
    rows.push(episode("b", `t${t}`, false));
  }
  const report = buildReport(
    inputsOf(rows, { plan: { path: "plan.json", sha256: "4".repeat(64), value: plan } }),
    { calibrationTrials: 2000, calibrationSeed: 11 },
  );
  ok(report.summary.citable, "tasks after the decision are not reached, an info finding");
  const sprt = report.summary.sprt!;
  // Six passes: LLR = 6 ln 1.5 = 2.4328 ≥ ln 9 = 2.1972 (seed 002's +6 net); six fails: drop.
  deepEqual(sprt.agents.map((a) => [a.agent_id, a.verdict, a.n]), [["a", "adopt", 6], [
    "b",
    "drop",
    6,
  ]]);
  near(sprt.agents[0].llr, 6 * Math.log(1.5), 1e-12, "LLR");
  near(sprt.boundaries.upper, Math.log(9), 1e-12, "upper boundary");
  // Exact OC at p = 0.5 (seed 002's grid 0.3..0.7) with the defaults: P(N = 60) =
  // 0.16655797081 (pinned in sprt_operating_characteristic_test.ts).
  deepEqual(sprt.calibration.rows.map((r) => r.p_true), [0.3, 0.4, 0.5, 0.6, 0.7]);
  near(sprt.calibration.rows[2].exact.budget_exhausted, 0.16655797081, 1e-10, "exhausted");
  ok(sprt.calibration.agrees, "Monte Carlo within tolerance of the exact values");
  deepEqual(sprt.calibration.reachability.unreachable, ["cap-adopt"]);
  deepEqual(report.summary.parameters.sprt_calibration, {
    rates: [0.3, 0.4, 0.5, 0.6, 0.7],
    trials: 2000,
    seed: 11,
    grid_steps: 100,
  });
  ok(claim(report, "sprt:a").text.startsWith('"a": adopt after 6 valid results'));
  deepEqual(
    report.summary.figures.filter((f) => f.name.startsWith("sprt_")).map((f) => f.name),
    ["sprt_calibration", "sprt_path_a", "sprt_path_b"],
  );
});

Deno.test("buildReport() is pure: the same inputs give the same bytes", () => {
  const rows = [episode("a", "t1", true), episode("b", "t1", false), episode("b", "t2", true)];
  const first = buildReport(inputsOf(rows));
  const second = buildReport(inputsOf(rows));
  equal(canonicalJson(first.summary), canonicalJson(second.summary));
  equal(first.markdown, second.markdown);
  equal(
    canonicalJson(first.figures.map((f) => f.spec)),
    canonicalJson(second.figures.map((f) => f.spec)),
  );
});

Deno.test("buildReport() refuses a price table the rows do not name", () => {
  const table = PriceTable.parse({
    price_table_id: "other",
    currency: "USD",
    default_rate: { prompt_per_million: 1, completion_per_million: 2 },
  });
  const rows = [episode("a", "t1", true)];
  throws(
    () =>
      buildReport(
        inputsOf(rows, { priceTable: { path: "t.json", sha256: "5".repeat(64), value: table } }),
      ),
    (error: unknown) => {
      if (!(error instanceof LedgerError)) return false;
      deepEqual(
        [error.problems[0].file, error.problems[0].field],
        ["t.json", "price_table_id"],
      );
      ok(error.problems[0].message.includes('names "p"'), error.problems[0].message);
      return true;
    },
  );
});

Deno.test("buildReport() escapes Markdown in agent ids", () => {
  const rows = [episode("x|y*", "t1", true), episode("z_w", "t1", false)];
  const { markdown } = buildReport(inputsOf(rows));
  ok(markdown.includes("| x\\|y\\* |"), "table cell escaped");
  ok(markdown.includes("z\\_w"), "underscore escaped");
});

Deno.test("buildReport() on the shipped example agrees with a plain count of its lines", async () => {
  const dir = new URL("../ledgers/examples/", import.meta.url).pathname;
  const inputs = await loadReportInputs({
    ledger: `${dir}synthetic_ledger.jsonl`,
    plan: `${dir}synthetic_plan.json`,
    errata: `${dir}synthetic_errata.jsonl`,
    priceTable: `${dir}price_table.json`,
  });
  const report = buildReport(inputs);
  // Independent count from the raw lines, with the two episode errata applied by hand.
  const raw = (await Deno.readTextFile(`${dir}synthetic_ledger.jsonl`)).trim().split("\n")
    .map((line) => JSON.parse(line));
  const errata = (await Deno.readTextFile(`${dir}synthetic_errata.jsonl`)).trim().split("\n")
    .map((line) => JSON.parse(line));
  for (const e of errata) {
    const row = raw.find((r) => r.episode_id === e.episode_id);
    if (e.kind === "rescore_episode") {
      Object.assign(row, { status: "scored", resolved: e.resolved });
    }
    if (e.kind === "invalidate_episode") {
      Object.assign(row, { status: "invalid", resolved: null, invalid_reason: e.invalid_reason });
    }
  }
  for (const agent of report.summary.censoring.agents) {
    const scored = raw.filter((r) => r.agent_id === agent.agent_id && r.status === "scored");
    const censored = scored.filter((r) => r.stop_reason !== "completed").length;
    const resolved = scored.filter((r) => r.resolved === true).length;
    equal(agent.scored, scored.length, agent.agent_id);
    equal(agent.censored, censored, agent.agent_id);
    equal(agent.passed, resolved, agent.agent_id);
    // Seed 003's policy: under 2% headline, 2%..10% both labelled, above budget adequacy only.
    const rate = censored / scored.length;
    equal(
      agent.claim,
      rate < 0.02 ? "headline" : rate <= 0.1 ? "both_labelled" : "budget_adequacy_only",
    );
    // Issue 23: the invalid rate (every reason but judge_fault, over every attempt) too.
    const attempts = raw.filter((r) => r.agent_id === agent.agent_id);
    const invalid = attempts.filter((r) =>
      r.status === "invalid" && r.invalid_reason !== "judge_fault"
    ).length;
    const stated = claim(report, `agent:${agent.agent_id}`).stated;
    equal(
      stated,
      agent.claim !== "budget_adequacy_only" && invalid / attempts.length <= 0.1,
      agent.agent_id,
    );
  }
  ok(report.summary.citable, "the ledger as recorded matches its plan");
  equal(report.summary.errata?.applied.length, 2);
  // Every claim is in report.md (Markdown escapes removed).
  const plain = report.markdown.replaceAll("\\", "");
  for (const c of report.summary.claims) ok(plain.includes(c.text), c.id);
});

Deno.test("buildReport() flags resolved rows without spend and rows with unmetered requests", () => {
  // Issue 8: an agent on an API the relay did not meter "resolved" tasks with 0 calls, 0 tokens.
  const evidence = (unmetered: number) => ({
    server_model_id: "m",
    usage_source: "server",
    request_fingerprint: null,
    unmetered_requests: unmetered,
    read_requests: 0,
  });
  const report = buildReport(inputsOf([
    episode("codex", "t1", true, { model_calls: 0, prompt_tokens: 0, completion_tokens: 0 }),
    episode("codex", "t2", true, { model_calls: 0, prompt_tokens: 0, completion_tokens: 0 }),
    episode("chat", "t1", true, { model_calls: 2, evidence: evidence(3) }),
    episode("chat", "t2", false, { model_calls: 1, evidence: evidence(0) }),
  ]));
  equal(
    claim(report, "spend-evidence").text,
    'Flagged: 2 rows resolved with zero model calls or zero tokens (spend not metered) ("r/codex/t1/1", "r/codex/t2/1"); ' +
      '1 row with requests the relay refused because it cannot meter them ("r/chat/t1/1")',
  );
  // A ledger with plausible spend everywhere has no such claim.
  const clean = buildReport(inputsOf([episode("chat", "t1", true, { model_calls: 1 })]));
  equal(clean.summary.claims.some((c) => c.id === "spend-evidence"), false);
});

Deno.test("buildReport() counts every flagged row but names the first three of each flag", () => {
  const zero = { model_calls: 0, prompt_tokens: 0, completion_tokens: 0 };
  const report = buildReport(inputsOf(
    ["t1", "t2", "t3", "t4", "t5"].map((task) => episode("codex", task, true, zero)),
  ));
  equal(
    claim(report, "spend-evidence").text,
    "Flagged: 5 rows resolved with zero model calls or zero tokens (spend not metered) " +
      '("r/codex/t1/1", "r/codex/t2/1", "r/codex/t3/1", ...)',
  );
});

Deno.test("buildReport() states that the rows name two price tables, without a price table given", () => {
  const report = buildReport(inputsOf([
    episode("a", "t1", true),
    episode("a", "t2", false, { price_table_id: "q" }),
    episode("b", "t1", true, { price_table_id: "q" }),
  ]));
  equal(
    claim(report, "price-tables").text,
    'Flagged: the rows name 2 price tables ("p" 1 row, "q" 2 rows); costs from different tables are not comparable',
  );
  const one = buildReport(inputsOf([episode("a", "t1", true)]));
  equal(one.summary.claims.some((c) => c.id === "price-tables"), false);
});

Deno.test("buildReport() says how many resolved rows carry a hijack flag, beside the shared-mode count", () => {
  const verification = (hijacks: { flag: string; path: string }[]) => ({
    verification: {
      mode: "shared",
      reward: { reward: 1 },
      reward_file: "reward.txt",
      decided_by: 'key "reward"',
      hijacks,
    },
  });
  const conftest = [{ flag: "conftest", path: "/app/conftest.py" }];
  const rows = [1, 2, 3, 4].map((i) =>
    episode("harbor", `t${i}`, i <= 3, verification(i === 1 ? conftest : []))
  );
  const report = buildReport(inputsOf(rows));
  equal(
    claim(report, "verification-mode").text,
    "4 of 4 rows were verified in Harbor's shared mode: the verifier ran in the candidate's own " +
      "container, so these verdicts are not sealed; 1 resolved row carries a hijack flag (the " +
      "candidate changed what its test run trusts), held to the claim policy",
  );
});

Deno.test("buildReport() says how many rows were verified in Harbor's shared mode, in report.md and summary.json", () => {
  // Issue 22: 3 rows verified in the candidate's own container, 4 sealed, 1 written before the
  // record existed, over 8 rows.
  const verification = (mode: string) => ({
    verification: {
      mode,
      reward: { reward: 1 },
      reward_file: "reward.txt",
      decided_by: 'key "reward"',
    },
  });
  const rows = [
    ...[1, 2, 3].map((i) => episode("harbor", `t${i}`, true, verification("shared"))),
    ...[1, 2, 3, 4].map((i) => episode("native", `t${i}`, i % 2 === 0, verification("sealed"))),
    episode("old", "t1", false),
  ];
  const report = buildReport(inputsOf(rows));
  const text = "3 of 8 rows were verified in Harbor's shared mode: the verifier ran in the " +
    "candidate's own container, so these verdicts are not sealed";
  deepEqual(claim(report, "verification-mode"), {
    id: "verification-mode",
    topic: "validation",
    rule: "verifier mode, seed 000",
    stated: true,
    text,
  });
  deepEqual(report.summary.verification_modes, {
    rows: 8,
    recorded: 7,
    by_mode: { sealed: 4, shared: 3, separate: 0 },
  });
  // Stated among the notes on the ledger, after its validation (Markdown escapes removed).
  const plain = report.markdown.replaceAll("\\", "");
  ok(plain.includes(`Notes on the ledger:\n\n- ${text}.`), plain);
  // Only sealed rows: counted in summary.json, nothing to say.
  const sealed = buildReport(inputsOf(rows.filter((r) => r.verification?.mode !== "shared")));
  equal(sealed.summary.claims.some((c) => c.id === "verification-mode"), false);
  equal(sealed.summary.verification_modes?.by_mode.shared, 0);
  equal(sealed.markdown.includes("Notes on the ledger"), false);
  // No row records a verification: summary.json keeps its bytes (no key at all).
  const none = buildReport(inputsOf([episode("old", "t1", false)]));
  equal("verification_modes" in none.summary, false);
});

Deno.test("buildReport() shortens 10,000-character ids in tables and figures, keeps them whole in the summary", async () => {
  const long = "agent-".repeat(1700);
  const [a, b] = [`${long}one`, `${long}two`];
  const rows = [a, b].flatMap((agent) => [0, 1, 2, 3].map((i) => episode(agent, `t${i}`, i < 3)));
  const report = buildReport(inputsOf(rows));
  deepEqual(report.summary.agents.map((x) => x.agent_id), [a, b]);
  const [shownA, shownB] = [displayId(a), displayId(b)];
  ok(shownA !== shownB && shownA.length === 48, `${shownA} ${shownB}`);
  ok(report.markdown.includes(`| ${shownA} |`) && report.markdown.includes(`| ${shownB} |`));
  // Only the `ledgerbench show` commands hold the whole id, so that they run.
  const lines = report.markdown.split("\n").filter((line) => !line.includes("ledgerbench show"));
  equal(lines.some((line) => line.includes(long)), false);
  for (const figure of report.figures) {
    const spec = canonicalJson(figure.spec);
    equal(spec.includes(long), false, figure.name);
    ok(spec.includes(shownA), figure.name);
  }
  // Before: the forest plot was 202,830 px wide (about 9 s to rasterise at zoom 2).
  const svg = await renderSvg(report.figures.find((f) => f.name === "forest")!.spec);
  const width = Number(svg.match(/<svg[^>]* width="(\d+)"/)![1]);
  ok(width < 2000, `forest plot ${width} px wide`);
});

Deno.test("buildReport() keeps a file name with a newline and backticks inside the Reproduce block", () => {
  const file = "l\n```\n<img src=x onerror=alert(1)>.jsonl";
  const rows = [episode("a", "t1", true), episode("b", "t1", true)];
  const report = buildReport(inputsOf(rows, {
    ledger: { ...inputsOf(rows).ledger, file },
  }));
  const lines = report.markdown.split("\n");
  // The block's fence is longer than the "```" in the shell word, so no content line closes it.
  const open = lines.indexOf("````sh");
  deepEqual(lines.slice(open, open + 4), [
    "````sh",
    "deno task ledgerbench report $'l\\012```\\012<img src=x onerror=alert(1)>.jsonl' --out DIR",
    "deno task ledgerbench verify-report DIR",
    "````",
  ]);
  // The title shows it as escaped text on one line.
  equal(
    lines[0],
    "# Evaluation report: l\\\\n\\`\\`\\`\\\\n\\<img src=x onerror=alert(1)\\>.jsonl",
  );
  // Elsewhere it is escaped text, or literal inside a code span whose fence (4) is longer
  // than its run of 3: no raw HTML once the spans are taken out.
  const spans = /(`+)[\s\S]*?[^`]\1(?!`)/g;
  const outside = [...lines.slice(0, open), ...lines.slice(open + 4)];
  equal(outside.some((line) => /(^|[^\\])<img/.test(line.replace(spans, ""))), false);
  equal(report.summary.inputs.ledger.path, file);
});

Deno.test("buildReport() reports the tool's own error: the exact coverage of each agent's intervals", async () => {
  const report = buildReport(await loadReportInputs({ ledger: SAMPLE }));
  const [a, b] = report.summary.interval_coverage;
  deepEqual([a.agent_id, a.scored, a.resolved, b.agent_id, b.resolved], ["a", 4, 3, "b", 2]);
  // At n = 4 the printed interval for k = 3 is the bootstrap [0.25, 1] (pinned above); its
  // coverage at the observed 3/4 sums P(K = k | 4, 0.75) over the k whose interval holds 0.75.
  equal(a.used.at_observed, exactCoverage(intervalOf("percentile-bootstrap"), 4, 0.75));
  equal(b.wilson.lowest!.coverage, Math.min(...b.wilson.across.map((p) => p.coverage)));
  // Four episodes cannot give a 95% interval at every rate: the section warns.
  ok(a.used.lowest!.coverage < 0.9, String(a.used.lowest!.coverage));
  ok(report.markdown.includes("## How far the intervals can be trusted"));
  ok(report.markdown.includes("at 4 scored episodes the interval used covers only"));
});

Deno.test("buildReport() gives each pair's exact McNemar p and the Holm adjustment over the matrix", async () => {
  const report = buildReport(await loadReportInputs({ ledger: SAMPLE }));
  const tests = report.summary.paired_tests!;
  equal(tests.comparisons, 1);
  // Seed 001's sample: a alone resolved t2 and t4, b alone t3: 2 vs 1 discordant tasks;
  // two-sided binomial on 3 trials at 1/2: P(K <= 1) * 2 = 1 (scipy binomtest(1, 3)).
  const [pair] = tests.pairs;
  deepEqual([pair.a, pair.b, pair.only_a, pair.only_b], ["a", "b", 2, 1]);
  equal(pair.p_value, 1);
  equal(pair.holm_p_value, 1);
  ok(report.markdown.includes("Holm's adjustment over the 1 comparison made"));
});
