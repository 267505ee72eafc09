/**
 * The `ledgerbench` CLI: stdout, stderr and the exit status checked together
 * (denoland/deployctl style), on the seed-001 sample and small hand-made
 * ledgers. The commands run in this process (`cliInProcess`, `main` of
 * `cli/main.ts` with captured output); the first test runs the real binary
 * as a subprocess, for what only a process shows: its exit statuses, output
 * on its own stdout and stderr, the same bytes from two processes.
 */
import assert from "node:assert/strict";
import { cli, cliInProcess, fileSha256, row, SAMPLE, writeJsonl } from "./_cli_run.ts";
import { COMMANDS } from "../cli/main.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  assert.deepEqual(actual, expected, message);
const assertMatch = (actual: string, pattern: RegExp) => assert.match(actual, pattern);
const assertStringIncludes = (actual: string, part: string) =>
  assert.ok(actual.includes(part), `expected to find ${JSON.stringify(part)} in:\n${actual}`);

/** Floats compared with an explicit tolerance. */
function near(actual: number, expected: number, tolerance: number): void {
  assert(Math.abs(actual - expected) <= tolerance, `${actual} vs ${expected} (± ${tolerance})`);
}

Deno.test("the real binary: each exit status, stdout and stderr, and the same JSON from two processes", async () => {
  const help = await cli("--help");
  assertEquals([help.code, help.stderr], [0, ""]);
  assertStringIncludes(help.stdout, "EXIT STATUS:");
  const usage = await cli("summarize");
  assertEquals([usage.code, usage.stdout], [1, ""]);
  assert(usage.stderr.startsWith("error: Missing argument: LEDGER"), usage.stderr);
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-cli-" });
  try {
    const absent = await cli("summarize", `${dir}/absent.jsonl`);
    assertEquals([absent.code, absent.stdout], [2, ""]);
    assert(absent.stderr.startsWith(`error: ${dir}/absent.jsonl`), absent.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const refused = await cli("plan", "--spend", "9500", "--tasks", "28", "--budget", "300000");
  assertEquals([refused.code, refused.stderr], [3, ""]);
  assertStringIncludes(refused.stdout, "REFUSED");
  const args = ["compare", SAMPLE, "--json", "--paired", "--seed", "11"];
  const [first, second] = [await cli(...args), await cli(...args)];
  assertEquals([first.code, second.code], [0, 0]);
  assertEquals(first.stdout, second.stdout);
  assertEquals((await cliInProcess(...args)).stdout, first.stdout);
});

Deno.test("summarize pins the seed-001 sample (a 3/4, b 2/4, TPR 7766.67 vs 3750)", async () => {
  // wide enough for every column in one table (tests/cli_tables_test.ts pins the narrow layouts)
  const text = await cliInProcess("summarize", SAMPLE, "--width", "200");
  assertEquals(text.code, 0);
  assertEquals(text.stderr, "");
  // seed 001: a resolves t1, t2, t4; b resolves t1, t3.
  // a: tokens 1800+900+4200+3100+5100+4400+2600+1200 = 23300, /3 = 7766.67;
  //    wall 14+41+56+18 = 129 s, /3 = 43.00.
  // b: tokens 900+400+1600+800+1100+500+1500+700 = 7500, /2 = 3750; wall 40 s, /2 = 20.00.
  // Ranks (issue 25): the intervals overlap and b wins on TPR (the compare test below), so b is
  // 1 and a, beaten once, is 2; b is listed first.
  assertMatch(
    text.stdout,
    /^ +1 {2}b +4 +0 +2\/4 +50\.0% .*7,500 +3750\.00 +20\.00 +headline\n +2 {2}a +4 +0 +3\/4 +75\.0% .*23,300 +7766\.67 +43\.00 +headline$/m,
  );
  assertStringIncludes(text.stdout, "2000 rounds (default), seed 7 (default)");

  const json = await cliInProcess("summarize", SAMPLE, "--json");
  assertEquals(json.code, 0);
  const out = JSON.parse(json.stdout);
  assertEquals(out.ledger.path, SAMPLE);
  assertEquals(out.ledger.sha256, await fileSha256(SAMPLE));
  assertEquals(out.parameters.bootstrap.rounds, 2000);
  assertEquals(out.parameters.bootstrap.seed, 7);
  assertEquals(out.errata, null);
  const [a, b] = out.agents;
  assertEquals([a.agent_id, a.resolved, a.scored, a.tokens], ["a", 3, 4, 23300]);
  assertEquals([b.agent_id, b.resolved, b.scored, b.tokens], ["b", 2, 4, 7500]);
  // canonical JSON: 23300 / 3 written with 12 significant digits
  assertEquals(a.tpr, 7766.66666667);
  assertEquals(b.tpr, 3750);
  assertEquals([a.spr, b.spr], [43, 20]);
  // bootstrap bounds, sorted indices 50 and 1950 of 2000 rounds, seed 7
  // (the values pinned in analysis/bootstrap_rate_test.ts for 3/4 and 2/4)
  assertEquals([a.interval.lower, a.interval.upper], [0.25, 1]);
  assertEquals([b.interval.lower, b.interval.upper], [0, 1]);
});

Deno.test("compare pins the seed-001 rule on the sample: overlap, no rate winner, b on TPR", async () => {
  const text = await cliInProcess("compare", SAMPLE);
  assertEquals(text.code, 0);
  assertEquals(text.stderr, "");
  assertStringIncludes(text.stdout, "95% intervals overlap: no rate winner");
  // (7766.67 - 3750) / 3750 = 1.0711 > 0.10
  assertStringIncludes(
    text.stdout,
    "TPR: a 7766.67 vs b 3750.00, relative difference 107.1% > band 10.0%",
  );
  assertStringIncludes(text.stdout, 'verdict: b wins on tokens per resolved (rule "tpr")');

  const json = await cliInProcess("compare", SAMPLE, "--json", "--paired");
  assertEquals(json.code, 0);
  const out = JSON.parse(json.stdout);
  const [c] = out.comparisons;
  assertEquals(c.rule, "tpr");
  assertEquals(c.winner, "b");
  assertEquals(c.intervals_overlap, true);
  // 23300 / 3 / 3750 - 1 = 1.071111..., 12 significant digits
  assertEquals(c.tpr_relative_difference, 1.07111111111);
  assertEquals([c.band, c.rounds, c.seed], [0.1, 2000, 7]);
  assertEquals(out.parameters.band_source, "default");
  // McNemar by hand: both resolve t1; only a t2, t4; only b t3; neither: none
  assertEquals(out.paired[0].mcnemar, { only_a: 2, only_b: 1, both: 1, neither: 0 });
  assertEquals(out.paired[0].tasks, 4);
  // paired difference estimate: 3/4 - 2/4
  assertEquals(out.paired[0].difference.estimate, 0.25);
});

Deno.test("compare gives the pairwise matrix for three agents and names the rule of each pair", async () => {
  const dir = await Deno.makeTempDir();
  const sample = (await Deno.readTextFile(SAMPLE)).trim().split("\n");
  // agent c resolves nothing: no TPR, no ranking against anyone (seed 001)
  const c = [1, 2, 3, 4].map((i) => row({ agent_id: "c", task_id: `t${i}`, resolved: false }));
  const path = await writeJsonl(`${dir}/three.jsonl`, [...sample, ...c]);
  const result = await cliInProcess("compare", path, "--band", "0.2", "--json");
  assertEquals(result.code, 0);
  const out = JSON.parse(result.stdout);
  const pairs = out.comparisons.map((
    p: { a: { agent_id: string }; b: { agent_id: string }; rule: string },
  ) => `${p.a.agent_id}-${p.b.agent_id}:${p.rule}`);
  assertEquals(pairs, ["a-b:tpr", "a-c:no_resolved", "b-c:no_resolved"]);
  assertEquals(out.parameters.band, 0.2);
  assertEquals(out.parameters.band_source, "flag");
  const text = await cliInProcess("compare", path);
  assertStringIncludes(text.stdout, "Pairwise matrix (");
  // b beats a on TPR; c resolved nothing: listed last, unranked, "-" against everyone
  assertMatch(text.stdout, /^ +1 {2}A +b +\. +A +-$/m);
  assertMatch(text.stdout, /^ +2 {2}B +a +A +\. +-$/m);
  assertMatch(text.stdout, /^ +- {2}C +c +- +- +\.$/m);
  assertStringIncludes(text.stdout, '"c" resolved nothing: no TPR, failure reported, no ranking');
});

Deno.test("--json output is byte-identical across runs (same ledger, same seed)", async () => {
  for (
    const args of [
      ["summarize", SAMPLE, "--json"],
      ["compare", SAMPLE, "--json", "--paired", "--seed", "11"],
      ["censoring", SAMPLE, "--json"],
      ["calibrate", "--trials", "2000", "--rates", "0.4,0.5", "--json"],
    ]
  ) {
    const first = await cliInProcess(...args);
    const second = await cliInProcess(...args);
    assertEquals(first.code, 0, args.join(" "));
    assertEquals(first.stdout, second.stdout, args.join(" "));
    assert(first.stdout.endsWith("}\n"));
  }
});

Deno.test("--help on every command prints an example first to stdout and exits 0", async () => {
  const top = await cliInProcess("--help");
  assertEquals(top.code, 0);
  assertEquals(top.stderr, "");
  for (const name of Object.keys(COMMANDS)) {
    assertStringIncludes(top.stdout, `  ${name} `);
    const result = await cliInProcess(name, "--help");
    assertEquals(result.code, 0, name);
    assertEquals(result.stderr, "", name);
    const example = result.stdout.indexOf(`deno task ledgerbench ${name}`);
    const usage = result.stdout.indexOf("USAGE:");
    assert(example > 0 && usage > example, `${name}: an example comes before USAGE`);
  }
});

Deno.test("usage errors print the error and the help to stderr and exit 1", async () => {
  const cases: [string[], string][] = [
    [[], "error: Missing command"],
    [["frobnicate"], 'error: Unknown command: "frobnicate"'],
    [["summarize"], "error: Missing argument: LEDGER"],
    [["summarize", SAMPLE, "--bogus"], 'error: Unknown option: "--bogus"'],
    [["compare", SAMPLE, "--band", "wide"], 'error: Option "--band" must be a number: "wide"'],
    [["compare", SAMPLE, "--agents", "a,z"], 'error: Agent "z" is not in the ledger'],
    [["calibrate", "--p-adopt", "0.3"], 'error: Invalid SPRT parameters: field "p_drop"'],
    [["plan", "--spend", "1,2", "--tasks", "3"], 'error: Missing option: "--budget"'],
    [["validate", SAMPLE], 'error: Missing option: "--plan"'],
  ];
  for (const [args, message] of cases) {
    const result = await cliInProcess(...args);
    assertEquals(result.code, 1, args.join(" "));
    assertEquals(result.stdout, "", args.join(" "));
    assert(result.stderr.startsWith(message), `${args.join(" ")}: ${result.stderr.slice(0, 120)}`);
    assertStringIncludes(result.stderr, "USAGE:");
  }
});

Deno.test("bad ledger lines exit 2 with file:line:field on stderr", async () => {
  const dir = await Deno.makeTempDir();
  const good = row({});
  const cases: [string, (Record<string, unknown> | string)[], string][] = [
    ["malformed.jsonl", [good, "{not json"], ":2: not valid JSON"],
    ["blank.jsonl", [good, "", row({ task_id: "t2" })], ":2: blank line inside the file"],
    ["type.jsonl", [good, row({ task_id: "t2", resolved: "yes" })], ':2: field "resolved":'],
    ["unknown_key.jsonl", [row({ bogus: 1 })], ':1: field "bogus":'],
    ["missing.jsonl", [row({ prompt_tokens: undefined })], ':1: field "prompt_tokens":'],
    [
      "invariant.jsonl",
      [row({ status: "invalid", invalid_reason: "verifier_fault" })],
      ':1: field "resolved": must be null when "status" is "invalid"',
    ],
    ["duplicate.jsonl", [good, good], ':2: field "episode_id": duplicate episode "r1/a/t1/1"'],
    [
      "chain.jsonl",
      [row({ prev_sha256: null }), row({ task_id: "t2", prev_sha256: "0".repeat(64) })],
      ':2: field "prev_sha256": expected "',
    ],
  ];
  // each case through two of the four ledger-reading commands, every command twice
  const commands = ["summarize", "compare", "censoring", "sprt"];
  for (const [i, [name, rows, message]] of cases.entries()) {
    const path = await writeJsonl(`${dir}/${name}`, rows);
    for (const command of [commands[i % 4], commands[(i + 1) % 4]]) {
      const result = await cliInProcess(command, path);
      assertEquals(result.code, 2, `${command} ${name}`);
      assertEquals(result.stdout, "", `${command} ${name}`);
      assert(
        result.stderr.startsWith(`error: ${path}${message}`),
        `${command} ${name}: ${result.stderr}`,
      );
    }
  }
  const absent = await cliInProcess("summarize", `${dir}/absent.jsonl`);
  assertEquals(absent.code, 2);
  assert(absent.stderr.startsWith(`error: ${dir}/absent.jsonl: No such file`), absent.stderr);
});

Deno.test("--lenient lists every bad line, summarizes the rest, and still exits 2", async () => {
  const dir = await Deno.makeTempDir();
  const path = await writeJsonl(`${dir}/mixed.jsonl`, [
    row({ task_id: "t1" }),
    "{oops",
    row({ task_id: "t2", resolved: false }),
    row({ task_id: "t3", tool_calls: -1 }),
  ]);
  const result = await cliInProcess("summarize", path, "--lenient", "--width", "200");
  assertEquals(result.code, 2);
  // the two good rows: 1 of 2 resolved
  assertMatch(result.stdout, /^ +1 {2}a +2 +0 +1\/2 +50\.0%/m);
  assertStringIncludes(result.stdout, "2 problems found (--lenient)");
  assertStringIncludes(result.stdout, `${path}:2: not valid JSON`);
  assertStringIncludes(result.stdout, `${path}:4: field "tool_calls":`);
  const errors = result.stderr.trim().split("\n");
  assertEquals(errors.length, 2);
  assert(errors[0].startsWith(`error: ${path}:2:`));
  assert(errors[1].startsWith(`error: ${path}:4: field "tool_calls":`));
  const json = JSON.parse((await cliInProcess("summarize", path, "--lenient", "--json")).stdout);
  assertEquals(json.problems.map((p: { line: number }) => p.line), [2, 4]);
});

Deno.test("errata append never touches the ledger; summarize applies it and says so", async () => {
  const dir = await Deno.makeTempDir();
  const ledger = `${dir}/ledger.jsonl`;
  await Deno.copyFile(SAMPLE, ledger);
  const before = await fileSha256(ledger);
  const errata = `${dir}/errata.jsonl`;
  const appended = await cliInProcess(
    "errata",
    "append",
    errata,
    "--kind",
    "invalidate_episode",
    "--episode",
    "r1/a/t3/1",
    "--reason",
    "verifier_fault",
    "--explanation",
    "Verifier crashed in setup",
    "--created-at",
    "2026-09-05T09:00:00Z",
    "--ledger",
    ledger,
  );
  assertEquals(appended.code, 0, appended.stderr);
  assertStringIncludes(appended.stdout, 'appended erratum "errata-0001"');
  assertEquals(await fileSha256(ledger), before);
  const stored = JSON.parse((await Deno.readTextFile(errata)).trim());
  assertEquals(stored.episode_id, "r1/a/t3/1");
  assertEquals(stored.invalid_reason, "verifier_fault");

  const summary = await cliInProcess("summarize", ledger, "--errata", errata, "--width", "200");
  assertEquals(summary.code, 0);
  assertStringIncludes(summary.stdout, "1 correction applied");
  assertStringIncludes(
    summary.stdout,
    'errata-0001 (line 1) invalidate_episode "r1/a/t3/1": not resolved -> invalid (verifier_fault)',
  );
  // a: t3 (5100 + 4400 tokens, 56 s) leaves the scored set: 3/3, (23300 - 9500) / 3 = 4600
  assertMatch(
    summary.stdout,
    /^ +- {2}a +4 +1 \(25\.0%\) +3\/3 +100\.0% .* 4600\.00 +24\.33 +withheld \(invalid\)$/m,
  );
  assertStringIncludes(summary.stdout, 'agent "a": the bootstrap interval collapsed to a point');
  const json = JSON.parse(
    (await cliInProcess("summarize", ledger, "--errata", errata, "--json")).stdout,
  );
  assertEquals(json.errata.applied.length, 1);
  assertEquals(json.errata.sha256, await fileSha256(errata));

  const duplicate = await cliInProcess(
    "errata",
    "append",
    errata,
    "--kind",
    "void_summary",
    "--summary-sha256",
    "a".repeat(64),
    "--explanation",
    "x",
    "--id",
    "errata-0001",
  );
  assertEquals(duplicate.code, 2);
  assert(duplicate.stderr.startsWith(`error: ${errata}:2: field "erratum_id":`), duplicate.stderr);
  const unknown = await cliInProcess(
    "errata",
    "append",
    errata,
    "--kind",
    "rescore_episode",
    "--episode",
    "r1/a/t9/1",
    "--resolved",
    "true",
    "--explanation",
    "x",
    "--ledger",
    ledger,
  );
  assertEquals(unknown.code, 2);
  assert(unknown.stderr.startsWith(`error: ${errata}:2: field "episode_id":`), unknown.stderr);
  assertEquals((await Deno.readTextFile(errata)).trim().split("\n").length, 1);
  assertEquals(await fileSha256(ledger), before);
});

Deno.test("an erratum naming an unknown episode exits 2 naming the errata file and line", async () => {
  const dir = await Deno.makeTempDir();
  const errata = await writeJsonl(`${dir}/errata.jsonl`, [{
    kind: "invalidate_episode",
    erratum_id: "e1",
    created_at: "2026-09-05T09:00:00Z",
    episode_id: "r1/z/t1/1",
    invalid_reason: "harness_error",
    explanation: "x",
  }, { kind: "void_summary", erratum_id: "e2" }]);
  const result = await cliInProcess("summarize", SAMPLE, "--errata", errata);
  assertEquals(result.code, 2);
  // the errata file is read first in full: line 2 misses required fields
  assert(result.stderr.startsWith(`error: ${errata}:2: field "`), result.stderr);
  const one = await writeJsonl(`${dir}/one.jsonl`, [{
    kind: "invalidate_episode",
    erratum_id: "e1",
    created_at: "2026-09-05T09:00:00Z",
    episode_id: "r1/z/t1/1",
    invalid_reason: "harness_error",
    explanation: "x",
  }]);
  const unknown = await cliInProcess("compare", SAMPLE, "--errata", one);
  assertEquals(unknown.code, 2);
  assert(unknown.stderr.startsWith(`error: ${one}:1: field "episode_id":`), unknown.stderr);
});

Deno.test("calibrate with no arguments uses seed 002's defaults and warns that cap-adopt is unreachable", async () => {
  const result = await cliInProcess("calibrate");
  assertEquals(result.code, 0);
  assertEquals(result.stderr, "");
  assertStringIncludes(
    result.stdout,
    "p_adopt 0.6, p_drop 0.4, alpha 0.1, beta 0.1, n_cap 60 (defaults)",
  );
  assertStringIncludes(result.stdout, "20,000 trials per rate, seed 7");
  // ln(9) = 2.1972; ln(1.5) = 0.4055 (seed 002)
  assertStringIncludes(result.stdout, "adopt at LLR >= 2.1972, drop at LLR <= -2.1972");
  assertStringIncludes(result.stdout, "pass +0.4055, fail -0.4055");
  // exact at p = 0.5: P(adopt) = P(drop) = 0.4223, P(cap-drop) = 0.1554, P(N = 60) = 0.1666,
  // E[N] = 31.36 (pinned in analysis/sprt/sprt_operating_characteristic.ts)
  assertMatch(
    result.stdout,
    /^ +0\.50 +42\.23% +42\.23% +0\.00% +15\.54% +42\.23% +16\.66% +31\.36/m,
  );
  assertStringIncludes(result.stdout, 'warning: Decision "cap-adopt" can never occur');
  assertStringIncludes(result.stdout, "Exact and Monte Carlo agree");
  const json = JSON.parse((await cliInProcess("calibrate", "--json", "--trials", "2000")).stdout);
  assertEquals(json.calibration.reachability.unreachable, ["cap-adopt"]);
  assertEquals(json.parameters.rates, [0.3, 0.4, 0.5, 0.6, 0.7]);
  assertEquals(json.parameters.seed, 7);
  near(json.calibration.rows[2].exact.budget_exhausted, 0.16655797081, 1e-11);
});

Deno.test("sprt replays in the plan's order, skips and counts invalid attempts, lists unused rows", async () => {
  const dir = await Deno.makeTempDir();
  // Planned order t8, t7, ..., t1; the file holds them in the other order.
  // In plan order: t8 invalid, then t8 rerun pass, t7..t3 pass: 6 passes, adopt at n = 6
  // (LLR 6 x ln 1.5 = 2.4328 >= ln 9 = 2.1972); t2, t1 come after the decision.
  const rows = [];
  for (let i = 1; i <= 7; i++) rows.push(row({ task_id: `t${i}`, resolved: true }));
  rows.push(row({
    task_id: "t8",
    status: "invalid",
    resolved: null,
    invalid_reason: "provider_fault",
  }));
  rows.push(row({ task_id: "t8", attempt: 2, resolved: true }));
  const ledger = await writeJsonl(`${dir}/sprt.jsonl`, rows);
  const plan = `${dir}/plan.json`;
  await Deno.writeTextFile(
    plan,
    JSON.stringify({
      plan_id: "p1",
      tasks: [8, 7, 6, 5, 4, 3, 2, 1].map((i) => ({ task_id: `t${i}` })),
      stopping: { kind: "sprt", params: {} },
    }),
  );
  const result = await cliInProcess(
    "sprt",
    ledger,
    "--agent",
    "a",
    "--plan",
    plan,
    "--width",
    "200",
  );
  assertEquals(result.code, 0, result.stderr);
  assertStringIncludes(result.stdout, "order:       pre-registered: the plan's 8 tasks");
  assertStringIncludes(
    result.stdout,
    "verdict: adopt after 6 valid results (passes 6, fails 0, LLR +2.4328); " +
      "1 invalid attempt skipped (invalid rate 14.3%)",
  );
  assertStringIncludes(result.stdout, "rows not used, after the decision (2):");
  const json = JSON.parse((await cliInProcess("sprt", ledger, "--plan", plan, "--json")).stdout);
  assertEquals(json.replay.steps.map((s: { task_id: string }) => s.task_id), [
    "t8",
    "t8",
    "t7",
    "t6",
    "t5",
    "t4",
    "t3",
  ]);
  assertEquals(json.replay.steps[0].outcome, "invalid");
  assertEquals(json.parameters.source, "plan");
  const override = await cliInProcess("sprt", ledger, "--plan", plan, "--alpha", "0.05");
  assertEquals(override.code, 1);
  assertStringIncludes(override.stderr, "its SPRT parameters are pre-registered");
});

Deno.test("censoring states the claim the policy allows (exactly 2% must label both scores)", async () => {
  const dir = await Deno.makeTempDir();
  // 50 scored rows, one stopped by the token cap: censoring 1/50 = 2%, which is not under 2%
  const rows = Array.from({ length: 50 }, (_, i) =>
    row({
      task_id: `t${i}`,
      resolved: i % 2 === 0,
      stop_reason: i === 0 ? "token_cap" : "completed",
    }));
  const ledger = await writeJsonl(`${dir}/censored.jsonl`, rows);
  const result = await cliInProcess("censoring", ledger);
  assertEquals(result.code, 0);
  assertStringIncludes(
    result.stdout,
    'agent "a": both scores, labelled lower bound and completed-only',
  );
  const json = JSON.parse((await cliInProcess("censoring", ledger, "--json")).stdout);
  const [a] = json.censoring.agents;
  // passed: even i, 25 of 50; completed: i >= 1, passed among them 24 of 49
  assertEquals(a.censoring_rate, 0.02);
  assertEquals(a.score_all_tasks, 0.5);
  assertEquals(a.score_completed_only, 0.489795918367);
  assertEquals(a.claim, "both_labelled");
  const strict = JSON.parse(
    (await cliInProcess("censoring", ledger, "--json", "--headline-max", "0.03")).stdout,
  );
  assertEquals(strict.censoring.agents[0].claim, "headline");
});

Deno.test("plan projects the pilot spend and refuses an infeasible budget with exit 3", async () => {
  // seed 003's rule: 9500 (pilot max) x 28 x 1.25 = 332,500 > 300,000
  const refused = await cliInProcess(
    "plan",
    "--spend",
    "2700,7300,9500,3800",
    "--tasks",
    "28",
    "--budget",
    "300000",
  );
  assertEquals(refused.code, 3);
  assertStringIncludes(refused.stdout, "9,500 x 28 x 1.25 = 332,500 tokens");
  assertStringIncludes(refused.stdout, "headroom:   -32,500 tokens");
  assertStringIncludes(refused.stdout, "REFUSED");
  // mean: (2700 + 7300 + 9500 + 3800) / 4 = 5825; x 28 x 1.25 = 203,875 <= 300,000
  const fits = await cliInProcess(
    "plan",
    "--spend",
    "2700,7300,9500,3800",
    "--tasks",
    "28",
    "--budget",
    "300000",
    "--central",
    "mean",
    "--json",
  );
  assertEquals(fits.code, 0);
  const out = JSON.parse(fits.stdout);
  assertEquals(out.estimate.projected_tokens, 203875);
  assertEquals(out.verdict, "fits");
  // a pilot ledger: tokens of the seed-001 sample rows, max 5100 + 4400 = 9500
  const pilot = JSON.parse(
    (await cliInProcess("plan", "--pilot", SAMPLE, "--tasks", "28", "--budget", "400000", "--json"))
      .stdout,
  );
  assertEquals(pilot.estimate.unit_tokens, 9500);
  assertEquals(pilot.pilot.ledger.sha256, await fileSha256(SAMPLE));
});

Deno.test("validate exits 0 on a ledger that fits its plan, 3 on missing and unexpected tasks", async () => {
  const dir = await Deno.makeTempDir();
  const ledger = await writeJsonl(`${dir}/l.jsonl`, [
    row({ task_id: "t1" }),
    row({ task_id: "t2", resolved: false, stop_reason: "step_cap" }),
  ]);
  const fits = `${dir}/fits.json`;
  await Deno.writeTextFile(
    fits,
    JSON.stringify({ plan_id: "p", tasks: [{ task_id: "t1" }, { task_id: "t2" }] }),
  );
  const ok = await cliInProcess("validate", ledger, "--plan", fits);
  assertEquals(ok.code, 0, ok.stdout);
  assertStringIncludes(ok.stdout, "verdict: the ledger fits the plan");
  const other = `${dir}/other.json`;
  await Deno.writeTextFile(
    other,
    JSON.stringify({ plan_id: "q", tasks: [{ task_id: "t1" }, { task_id: "t3" }] }),
  );
  const bad = await cliInProcess("validate", ledger, "--plan", other);
  assertEquals(bad.code, 3);
  assertStringIncludes(bad.stdout, 'task "t2" is not in the plan');
  assertStringIncludes(bad.stdout, 'task "t3" has no row for agent "a"');
  assertStringIncludes(bad.stdout, "verdict: the ledger does NOT fit the plan");
  const json = JSON.parse(
    (await cliInProcess("validate", ledger, "--plan", other, "--json")).stdout,
  );
  assertEquals(json.validation.ok, false);
  assertEquals(json.validation.finding_counts.unexpected_task, 1);
  assertEquals(json.validation.finding_counts.missing_task, 1);
  // a plan that does not fit its schema: whole-file problem, field named
  const broken = `${dir}/broken.json`;
  await Deno.writeTextFile(broken, JSON.stringify({ plan_id: "b", tasks: [] }));
  const schema = await cliInProcess("validate", ledger, "--plan", broken);
  assertEquals(schema.code, 2);
  assert(schema.stderr.startsWith(`error: ${broken}: field "tasks":`), schema.stderr);
  // a ledger line that cannot be read: strict stops with exit 2, --lenient lists it
  const damaged = await writeJsonl(`${dir}/damaged.jsonl`, [
    row({ task_id: "t1" }),
    "{",
    row({ task_id: "t2" }),
  ]);
  const strict = await cliInProcess("validate", damaged, "--plan", fits);
  assertEquals(strict.code, 2);
  assertEquals(strict.stdout, "");
  assert(strict.stderr.startsWith(`error: ${damaged}:2: not valid JSON`), strict.stderr);
  const lenient = await cliInProcess("validate", damaged, "--plan", fits, "--lenient");
  assertEquals(lenient.code, 2);
  assertMatch(lenient.stdout, /error +2 +malformed_json/);
});

Deno.test("summarize prices through a frozen table and refuses a table of another id", async () => {
  const dir = await Deno.makeTempDir();
  const table = `${dir}/prices.json`;
  await Deno.writeTextFile(
    table,
    JSON.stringify({
      price_table_id: "local-0",
      currency: "USD",
      default_rate: { prompt_per_million: 3, completion_per_million: 15 },
    }),
  );
  const result = await cliInProcess("summarize", SAMPLE, "--price-table", table, "--json");
  assertEquals(result.code, 0, result.stderr);
  const [a, b] = JSON.parse(result.stdout).agents;
  // a: prompt 1800+4200+5100+2600 = 13700, completion 900+3100+4400+1200 = 9600:
  //    13700 x 3 / 1e6 + 9600 x 15 / 1e6 = 0.0411 + 0.144 = 0.1851; / 3 = 0.0617
  near(a.cost.cost, 0.1851, 1e-12);
  near(a.cost.cost_per_resolved, 0.0617, 1e-12);
  // b: prompt 5100, completion 2400: 0.0153 + 0.036 = 0.0513; / 2 = 0.02565
  near(b.cost.cost, 0.0513, 1e-12);
  const other = `${dir}/other.json`;
  await Deno.writeTextFile(
    other,
    JSON.stringify({ price_table_id: "march", currency: "USD", default_rate: null }),
  );
  const refused = await cliInProcess("summarize", SAMPLE, "--price-table", other);
  assertEquals(refused.code, 2);
  assertEquals(refused.stdout, "");
  assertStringIncludes(refused.stderr, 'is not the frozen table "march"');
});

Deno.test("a plan supplies the defaults (bootstrap, tie band, lane weights, censoring); flags override, sources recorded", async () => {
  const dir = await Deno.makeTempDir();
  const plan = `${dir}/plan.json`;
  await Deno.writeTextFile(
    plan,
    JSON.stringify({
      plan_id: "sample-plan",
      tasks: [1, 2, 3, 4].map((i) => ({ task_id: `t${i}` })),
      lane_weights: { default: 4 },
      bootstrap: { rounds: 500, seed: 11 },
      tie_band: 0.2,
      censoring: { headline_max: 0.05, labelled_max: 0.2 },
    }),
  );
  const summary = JSON.parse(
    (await cliInProcess("summarize", SAMPLE, "--plan", plan, "--json")).stdout,
  );
  assertEquals(summary.plan.plan_id, "sample-plan");
  assertEquals(summary.plan.sha256, await fileSha256(plan));
  assertEquals(summary.parameters.bootstrap, {
    rounds: 500,
    rounds_source: "plan",
    seed: 11,
    seed_source: "plan",
  });
  assertEquals(summary.agents[0].interval.rounds, 500);
  // seed 000's lane score: 4 x 3/4 = 3 for a, 4 x 2/4 = 2 for b, out of 4
  assertEquals(summary.agents.map((a: { lane_score: { score: number } }) => a.lane_score.score), [
    3,
    2,
  ]);
  const compare = JSON.parse(
    (await cliInProcess("compare", SAMPLE, "--plan", plan, "--json")).stdout,
  );
  assertEquals([compare.parameters.band, compare.parameters.band_source], [0.2, "plan"]);
  assertEquals(compare.comparisons[0].rounds, 500);
  const override = JSON.parse(
    (await cliInProcess("compare", SAMPLE, "--plan", plan, "--band", "0.3", "--json")).stdout,
  );
  assertEquals([override.parameters.band, override.parameters.band_source], [0.3, "flag"]);
  const text = await cliInProcess("compare", SAMPLE, "--plan", plan, "--band", "0.3");
  assertStringIncludes(
    text.stdout,
    "band 30.0% (flag); bootstrap 500 rounds (plan), seed 11 (plan)",
  );
  const censoring = JSON.parse(
    (await cliInProcess("censoring", SAMPLE, "--plan", plan, "--json")).stdout,
  );
  assertEquals(censoring.parameters.headline_max, 0.05);
  assertEquals(censoring.parameters.headline_max_source, "plan");
  // the plan's stopping rule is "fixed" (the default): it holds no SPRT parameters to calibrate
  const calibrate = await cliInProcess("calibrate", "--plan", plan);
  assertEquals(calibrate.code, 1);
  assert(
    calibrate.stderr.startsWith(`error: Plan "${plan}" has stopping rule "fixed", not "sprt"`),
  );
});

Deno.test("summarize says how many of an agent's scored episodes are censored, beside its rate", async () => {
  const dir = await Deno.makeTempDir();
  // Issue 9, item 10: three 429s under "halt" are scored, resolved false, stop reason rate_limited.
  const limited = [1, 2, 3].map((i) =>
    row({ task_id: `t${i}`, resolved: false, status: "scored", stop_reason: "rate_limited" })
  );
  const b = [
    row({ agent_id: "b", task_id: "t1", stop_reason: "completed" }),
    row({ agent_id: "b", task_id: "t2", resolved: false, stop_reason: "wall_cap" }),
    row({ agent_id: "b", task_id: "t3", resolved: false, stop_reason: "completed" }),
  ];
  const path = await writeJsonl(`${dir}/censored.jsonl`, [...limited, ...b]);
  const text = await cliInProcess("summarize", path, "--width", "250");
  assertEquals(text.code, 0);
  // Every number as before: a 0/3 (0.0%), b 1/3 (33.3%); the censored column beside the interval.
  assertMatch(
    text.stdout,
    /^rank {2}agent +episodes +invalid +resolved +rate +95% interval +censored +tokens/m,
  );
  // both withheld: unranked, by rate (b first)
  assertMatch(
    text.stdout,
    /^ +- {2}a +3 +0 +0\/3 +0\.0% +\S+, \S+ +3 +450 +- +- +withheld \(censoring\)$/m,
  );
  assertMatch(
    text.stdout,
    /^ +- {2}b +3 +0 +1\/3 +33\.3% +\S+, \S+ +1 +450 +450\.00 +3\.00 +withheld \(censoring\)$/m,
  );
  assertStringIncludes(
    text.stdout,
    'note: agent "a": 3 of 3 scored episodes are censored (rate_limited 3): the resolved rate ' +
      'counts them as scored; "censoring" gives the score over completed tasks only and the claim ' +
      "allowed (seed 003)\n",
  );
  assertStringIncludes(
    text.stdout,
    'note: agent "b": 1 of 3 scored episodes are censored (wall_cap 1)',
  );
  const json = JSON.parse((await cliInProcess("summarize", path, "--json")).stdout);
  const [a, bSummary] = json.agents;
  assertEquals([a.resolved, a.scored, a.resolved_rate, a.censored], [0, 3, 0, 3]);
  assertEquals(a.censored_stop_reasons, { rate_limited: 3 });
  assertEquals([bSummary.censored, bSummary.censored_stop_reasons], [1, { wall_cap: 1 }]);
  // The same count as `censoring` gives.
  const censoring = JSON.parse((await cliInProcess("censoring", path, "--json")).stdout);
  assertEquals(
    censoring.censoring.agents.map((r: { agent_id: string; censored: number }) => [
      r.agent_id,
      r.censored,
    ]),
    [["a", 3], ["b", 1]],
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("summarize warns about rows whose prompts passed the relay's bound, and counts them in JSON", async () => {
  const dir = await Deno.makeTempDir();
  const evidence = (excess: number) => ({
    server_model_id: "m",
    usage_source: "server",
    request_fingerprint: null,
    prompt_bound_excess: excess,
  });
  const path = await writeJsonl(`${dir}/excess.jsonl`, [
    row({ task_id: "t1", evidence: evidence(0) }),
    row({ task_id: "t2", evidence: evidence(300) }),
    row({ task_id: "t3", evidence: evidence(1700) }),
    row({ agent_id: "b", task_id: "t1" }),
  ]);
  const text = await cliInProcess("summarize", path, "--width", "250");
  assertEquals(text.code, 0, text.stderr);
  assertStringIncludes(
    text.stdout,
    'warning: agent "a": on 2 rows the provider billed 2000 prompt tokens beyond the relay\'s ' +
      "bound of them, by which their tokens may pass the token cap (validate --plan: " +
      "prompt_bound_exceeded)\n",
  );
  assertEquals(text.stdout.includes('agent "b": on'), false);
  const json = JSON.parse((await cliInProcess("summarize", path, "--json")).stdout);
  assertEquals(
    json.agents.map((a: { prompt_bound_excess: unknown }) => a.prompt_bound_excess),
    [{ rows: 2, tokens: 2000 }, { rows: 0, tokens: 0 }],
  );
});
