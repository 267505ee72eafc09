/**
 * Issue 23, findings 1–3, through the real CLI on files of the shapes that
 * broke: a SWE-bench Lite report with 234 of 300 instances as harness
 * errors, two agents each missing 80% of their planned tasks, and an
 * all-error import without any token count.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { cliInProcess, ROOT, row, writeJsonl } from "./_cli_run.ts";

/** A SWE-bench harness final report (schema 2) of `n` instances: `resolved` resolved, `errors` errors. */
function swebenchReport(n: number, resolved: number, errors: number): Record<string, unknown> {
  const ids = Array.from({ length: n }, (_, i) => `astropy__astropy-${1000 + i}`);
  return {
    total_instances: n,
    submitted_instances: n,
    completed_instances: n - errors,
    resolved_instances: resolved,
    unresolved_instances: n - errors - resolved,
    empty_patch_instances: 0,
    error_instances: errors,
    completed_ids: ids.slice(0, n - errors),
    resolved_ids: ids.slice(0, resolved),
    unresolved_ids: ids.slice(resolved, n - errors),
    error_ids: ids.slice(n - errors),
    submitted_ids: ids,
    empty_patch_ids: [],
    incomplete_ids: [],
    schema_version: 2,
  };
}

async function importReport(dir: string, report: Record<string, unknown>): Promise<string> {
  const source = `${dir}/model.lite.json`;
  await Deno.writeTextFile(source, JSON.stringify(report));
  const imported = await cliInProcess("import", "swebench", source, "--out", `${dir}/l.jsonl`);
  equal(imported.code, 0, imported.stderr);
  return `${dir}/l.jsonl`;
}

Deno.test("a ledger with 78% invalid rows: summarize and the report withhold the headline and say why (issue 23, finding 1)", async () => {
  await using dir = await tempDir();
  const ledger = await importReport(dir.path, swebenchReport(300, 66, 234));
  const tasks = `${dir.path}/l.tasks.json`;
  // wide enough for one line per note and every column in one table (tests/cli_tables_test.ts
  // pins the layouts at 80 and 100 columns)
  const text = await cliInProcess("summarize", ledger, "--tasks", tasks, "--width", "250");
  equal(text.code, 0, text.stderr);
  // withheld: listed unranked ("-") and marked
  match(
    text.stdout,
    /^ +- {2}model +300 +234 \(78\.0%\) +66\/66 +100\.0% .* +withheld \(invalid\)$/m,
  );
  match(
    text.stdout,
    /note: agent "model": capability numbers withheld: 234 of its 300 attempts are invalid \(78\.0%: harness_error 234; above 10%\)/,
  );
  const json = JSON.parse(
    (await cliInProcess("summarize", ledger, "--tasks", tasks, "--json")).stdout,
  );
  deepEqual(
    [json.standings[0].invalid_claim, json.standings[0].claim, json.standings[0].withheld],
    ["budget_adequacy_only", "budget_adequacy_only", "invalid"],
  );
  deepEqual(
    [
      json.invalid.agents[0].held,
      json.invalid.agents[0].held_rate,
      json.invalid.agents[0].attempts,
    ],
    [234, 0.78, 300],
  );
  deepEqual(json.pooled, {
    claim: "budget_adequacy_only",
    withheld: "invalid",
    withheld_agents: ["model"],
  });

  const out = `${dir.path}/report`;
  const report = await cliInProcess("report", ledger, "--tasks", tasks, "--out", out);
  equal(report.code, 0, report.stderr);
  const markdown = await Deno.readTextFile(`${out}/report.md`);
  ok(!markdown.includes("so this is a headline"), "no headline at 78% invalid");
  match(
    markdown,
    /"model": resolved rate not stated: 234 of its 300 attempts are invalid \(78\.0%: harness\\_error 234; above 10%\)/,
  );
  match(markdown, /\| model \| 300 \| 234 \| 66 \| 66 \| withheld \(invalid\) \| not stated \|/);
  // The reproduce command names the task list: copying it gives the same report (issue 25).
  ok(markdown.includes(`--tasks ${tasks}`), "the reproduce command keeps --tasks");
  const summary = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
  equal(summary.invalid.agents[0].claim, "budget_adequacy_only");
  equal(summary.pooled.withheld, "invalid");
});

Deno.test("two agents each missing 80% of their tasks: nothing pooled is a headline, and every table marks them (issue 23, finding 2)", async () => {
  await using dir = await tempDir();
  const tasks = Array.from({ length: 50 }, (_, i) => `t${i + 1}`);
  await Deno.writeTextFile(`${dir.path}/tasks.txt`, tasks.join("\n") + "\n");
  const ledger = await writeJsonl(`${dir.path}/l.jsonl`, [
    ...tasks.slice(0, 10).map((task_id) => row({ agent_id: "a", task_id })),
    ...tasks.slice(0, 10).map((task_id, i) => row({ agent_id: "b", task_id, resolved: i < 5 })),
  ]);
  const censoring = await cliInProcess(
    "censoring",
    ledger,
    "--tasks",
    `${dir.path}/tasks.txt`,
    "--width",
    "250",
  );
  equal(censoring.code, 0, censoring.stderr);
  ok(!censoring.stdout.includes("all agents pooled: headline"), censoring.stdout);
  match(
    censoring.stdout,
    /all agents pooled: budget adequacy only; no capability headline \(never more than its weakest agent: "a" and "b" withheld\)/,
  );
  match(censoring.stdout, /^ +\(all\) +20 +0 +20 +0 .* +withheld \(missing\)$/m);
  const json = JSON.parse(
    (await cliInProcess("censoring", ledger, "--tasks", `${dir.path}/tasks.txt`, "--json")).stdout,
  );
  // The pooled censoring rate alone (0%) allows a headline; the pooled standing does not.
  equal(json.censoring.overall.censoring_rate, 0);
  deepEqual(json.pooled, {
    claim: "budget_adequacy_only",
    withheld: "missing",
    withheld_agents: ["a", "b"],
  });
  const summarize = await cliInProcess(
    "summarize",
    ledger,
    "--tasks",
    `${dir.path}/tasks.txt`,
    "--width",
    "250",
  );
  match(summarize.stdout, /^ +- {2}a +10 +0 +10\/10 +100\.0% .* +withheld \(missing\)$/m);
  const compare = await cliInProcess(
    "compare",
    ledger,
    "--tasks",
    `${dir.path}/tasks.txt`,
    "--width",
    "250",
  );
  equal(compare.code, 0, compare.stderr);
  match(compare.stdout, /^ +- {2}a +10\/10 +100\.0% .* +withheld \(missing\)$/m);
  // issue 25: a pair with a withheld side is never given a winner, and says so before any verdict
  match(compare.stdout, /^ {2}0 of 1 pair may be stated$/m);
  match(compare.stdout, /^ {2}a vs b: withheld \(missing\)$/m);
  ok(!compare.stdout.includes("wins"), compare.stdout);
});

Deno.test("an all-error import without token counts: tokens are not recorded, never 0 (issue 23, finding 3)", async () => {
  await using dir = await tempDir();
  const ledger = await importReport(dir.path, swebenchReport(20, 0, 20));
  const tasks = `${dir.path}/l.tasks.json`;
  const json = JSON.parse(
    (await cliInProcess("summarize", ledger, "--tasks", tasks, "--json")).stdout,
  );
  deepEqual(
    [json.agents[0].tokens, json.agents[0].wall_seconds, json.agents[0].rows_without_tokens],
    [null, null, 20],
  );
  equal(json.agents[0].agent_reported_token_rows, 0);
  const text = await cliInProcess("summarize", ledger, "--tasks", tasks, "--width", "250");
  match(
    text.stdout,
    /^ +- {2}model +20 +20 \(100\.0%\) +0\/0 +- +- +0 +not recorded +not recorded +not recorded +withheld \(nothing_scored\)$/m,
  );
  const censoring = JSON.parse((await cliInProcess("censoring", ledger, "--json")).stdout);
  equal(censoring.censoring.agents[0].tokens, null);
});

Deno.test("an agent-reported 0 tokens on a verified Harbor trial is marked as the agent's, not shown as a bare 0 (issue 23, finding 3)", async () => {
  await using dir = await tempDir();
  const job = `${dir.path}/job`;
  await new Deno.Command("cp", {
    args: ["-r", `${ROOT}tests/fixtures/import/harbor/org-names`, job],
  }).output();
  // Every trial reports zero tokens of its own (Harbor's agent_result, which the agent writes).
  for await (const entry of Deno.readDir(job)) {
    if (!entry.isDirectory) continue;
    const path = `${job}/${entry.name}/result.json`;
    const result = JSON.parse(await Deno.readTextFile(path));
    if (result.agent_result !== null && result.agent_result !== undefined) {
      result.agent_result = {
        ...result.agent_result,
        n_input_tokens: 0,
        n_cache_tokens: 0,
        n_output_tokens: 0,
      };
    }
    await Deno.writeTextFile(path, JSON.stringify(result));
  }
  const imported = await cliInProcess("import", "harbor", job, "--out", `${dir.path}/l.jsonl`);
  equal(imported.code, 0, imported.stderr);
  const json = JSON.parse(
    (await cliInProcess("summarize", `${dir.path}/l.jsonl`, "--json")).stdout,
  );
  const [agent] = json.agents;
  equal(agent.tokens, 0);
  equal(agent.agent_reported_token_rows, agent.scored);
  const text = await cliInProcess("summarize", `${dir.path}/l.jsonl`, "--width", "250");
  match(text.stdout, / 0 \(agent-reported\) +0\.00 \(agent-reported\) /);
});

Deno.test("a ledger whose resolved rows carry hijack flags: summarize withholds the headline and says why, validate lists them", async () => {
  await using dir = await tempDir();
  // 20 shared-mode rows, 15 resolved, 3 of them flagged (15% > 10%: no capability claim).
  const rows = Array.from({ length: 20 }, (_, i) =>
    row({
      agent_id: "squatter",
      task_id: `t${i}`,
      resolved: i < 15,
      verification: {
        mode: "shared",
        reward: { reward: i < 15 ? 1 : 0 },
        reward_file: "reward.txt",
        decided_by: "the one number of reward.txt",
        hijacks: i < 3 ? [{ flag: "loader_config", path: "/etc/ld.so.preload" }] : [],
      },
    }));
  const ledger = await writeJsonl(`${dir.path}/l.jsonl`, rows);
  const text = await cliInProcess("summarize", ledger, "--width", "250");
  equal(text.code, 0, text.stderr);
  match(text.stdout, /squatter .* withheld \(flagged\)$/m);
  match(
    text.stdout,
    /note: agent "squatter": capability numbers withheld: 3 of its 20 scored rows resolved with a hijack flag \(15\.0%, above 10%\)/,
  );
  match(
    text.stdout,
    /note: agent "squatter": 20 of 20 scored rows verified in Harbor's shared mode \(the tests ran in the candidate's own container\); 3 resolved with a hijack flag \(15\.0%\): budget adequacy only at most/,
  );
  const json = JSON.parse((await cliInProcess("summarize", ledger, "--json")).stdout);
  deepEqual(
    [json.standings[0].flagged_claim, json.standings[0].withheld],
    ["budget_adequacy_only", "flagged"],
  );
});
