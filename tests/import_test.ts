/**
 * `ledgerbench import` end to end (issue 11), through the real CLI: the
 * issue's run table (14 configurations, 730 planned tasks, one of them
 * lacking 168 rows) becomes one command, and every analysis command then
 * counts the missing tasks against the task list, per agent; the `.json` and
 * `.eval` forms of one Inspect log import to the same rows; importing again
 * refuses duplicates and changes nothing.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { cliInProcess, fileSha256 } from "./_cli_run.ts";

const INSPECT = new URL("./fixtures/import/inspect/", import.meta.url).pathname;
const HARBOR = new URL("./fixtures/import/harbor/", import.meta.url).pathname;

const AGENTS = Array.from({ length: 14 }, (_, i) => `config-${String(i).padStart(2, "0")}`);
const TASKS = Array.from({ length: 730 }, (_, j) => `repo__issue-${1000 + j}`);
/** The configuration lacking rows, and how many. */
const GAPPY = "config-05";
const GAPS = 168;

/** A deterministic verdict: configuration i resolves task j when this holds. */
function resolves(i: number, j: number): boolean {
  return (j * 7 + i * 3) % 10 < 3 + (i % 5);
}

/** The run table: model, instance id, resolved, turns; GAPPY lacks its last 168 tasks. */
function runTable(): string {
  const lines = ["model,instance_id,resolved,turns"];
  AGENTS.forEach((agent, i) => {
    TASKS.forEach((task, j) => {
      if (agent === GAPPY && j >= TASKS.length - GAPS) return;
      lines.push(`${agent},${task},${resolves(i, j) ? "True" : "False"},${(i + j) % 40 + 1}`);
    });
  });
  return lines.join("\n") + "\n";
}

Deno.test("import table: the issue's 14 x 730 run table, one agent lacking 168 rows, in one command", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/runs.csv`, runTable());
  await Deno.writeTextFile(`${dir}/tasks.txt`, TASKS.join("\n") + "\n");
  const imported = await cliInProcess(
    "import",
    "table",
    `${dir}/runs.csv`,
    "--out",
    `${dir}/ledger.jsonl`,
    "--tasks",
    `${dir}/tasks.txt`,
    "--map",
    "agent_id=model,task_id=instance_id,resolved=resolved,model_calls=turns",
  );
  equal(imported.code, 0, imported.stderr);
  const rows = 14 * 730 - GAPS;
  match(
    imported.stdout,
    new RegExp(`Imported ${rows.toLocaleString("en-US")} rows|Imported ${rows} rows`),
  );

  const summary = await cliInProcess(
    "summarize",
    `${dir}/ledger.jsonl`,
    "--tasks",
    `${dir}/ledger.tasks.json`,
    "--json",
  );
  equal(summary.code, 0, summary.stderr);
  const payload = JSON.parse(summary.stdout);
  deepEqual(payload.denominator, {
    source: "task list",
    tasks: 730,
    attempts_per_task: 1,
    missing_policy: { headline_max: 0.02, labelled_max: 0.1 },
  });
  const i = AGENTS.indexOf(GAPPY);
  const resolvedPresent =
    TASKS.slice(0, TASKS.length - GAPS).filter((_, j) => resolves(i, j)).length;
  const gappy = payload.coverage.find((c: { agent_id: string }) => c.agent_id === GAPPY);
  deepEqual(
    [gappy.planned, gappy.rows, gappy.missing, gappy.resolved],
    [730, 730 - GAPS, GAPS, resolvedPresent],
  );
  // JSON output keeps 12 significant digits.
  equal(gappy.score_planned, Number((resolvedPresent / 730).toPrecision(12)));
  const standings = new Map(
    payload.standings.map((s: { agent_id: string; withheld: string | null; claim: string }) => [
      s.agent_id,
      [s.withheld, s.claim],
    ]),
  );
  // The agent lacking rows is withheld; every agent with complete rows keeps its headline.
  deepEqual(standings.get(GAPPY), ["missing", "budget_adequacy_only"]);
  for (const agent of AGENTS.filter((a) => a !== GAPPY)) {
    deepEqual(standings.get(agent), [null, "headline"], agent);
  }
  // Tokens were never recorded: no TPR, never 0.
  for (const agent of payload.agents) {
    deepEqual([agent.tokens, agent.tpr, agent.rows_without_tokens], [null, null, agent.episodes]);
  }
  match(summary.stdout, /"score_planned"/);

  // The report groups the 13 withheld pairs in one line; the other 78 pairs are stated.
  const report = await cliInProcess(
    "report",
    `${dir}/ledger.jsonl`,
    "--tasks",
    `${dir}/ledger.tasks.json`,
    "--out",
    `${dir}/report`,
  );
  equal(report.code, 0, report.stderr);
  // The task list is a recorded input: verify-report recomputes the report from it.
  const verified = await cliInProcess("verify-report", `${dir}/report`);
  equal(verified.code, 0, verified.stdout + verified.stderr);
  const claims = JSON.parse(await Deno.readTextFile(`${dir}/report/summary.json`)).claims as {
    id: string;
    stated: boolean;
    text: string;
  }[];
  const withheld = claims.filter((c) => c.id.startsWith("pairs-withheld:"));
  equal(withheld.length, 1);
  match(
    withheld[0].text,
    /^No ranking stated for 13 pairs \(missing tasks above the policy\): "config-05": 168 of its 730 planned tasks have no row \(23\.0%, above 10%\)$/,
  );
  equal(claims.filter((c) => c.id.startsWith("pair:")).length, 78);
  ok(claims.filter((c) => c.id.startsWith("agent:") && c.stated).length === 13);

  // censoring and compare make the same call and say the same.
  const censoring = JSON.parse(
    (await cliInProcess(
      "censoring",
      `${dir}/ledger.jsonl`,
      "--tasks",
      `${dir}/ledger.tasks.json`,
      "--json",
    ))
      .stdout,
  );
  deepEqual(censoring.standings, payload.standings);
  const compare = JSON.parse(
    (await cliInProcess(
      "compare",
      `${dir}/ledger.jsonl`,
      "--tasks",
      `${dir}/ledger.tasks.json`,
      "--agents",
      `config-00,${GAPPY},config-13`,
      "--json",
    )).stdout,
  );
  deepEqual(compare.withheld_pairs, [{ cause: "missing", agents: [GAPPY], pairs: 2 }]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("import harbor: a task the trials name org/name and the config name counts once", async () => {
  const dir = await Deno.makeTempDir();
  const job = `${HARBOR}org-names`;
  // --width 400: the warning pinned whole, unfolded
  const imported = await cliInProcess(
    "import",
    "harbor",
    job,
    "--out",
    `${dir}/ledger.jsonl`,
    "--width",
    "400",
  );
  equal(imported.code, 0, imported.stderr);
  equal(
    imported.stderr,
    `warning: ${job}/result.json: n_total_trials is 8 but 6 trials have a result.json: 2 missing\n`,
  );
  const tasks = JSON.parse(await Deno.readTextFile(`${dir}/ledger.tasks.json`)).tasks;
  // The config's 8 tasks, once each, by their short names (fix-git's trial says
  // "terminal-bench/fix-git", its config entry "tasks/fix-git").
  deepEqual(tasks.map((task: { task_id: string }) => task.task_id), [
    "fix-git",
    "hello-world",
    "regex-log",
    "log-summary",
    "qemu-startup",
    "crack-7z-hash",
    "fix-permissions",
    "polyglot-c-py",
  ]);
  const summary = await cliInProcess(
    "summarize",
    `${dir}/ledger.jsonl`,
    "--tasks",
    `${dir}/ledger.tasks.json`,
    "--json",
  );
  equal(summary.code, 0, summary.stderr);
  const [coverage] = JSON.parse(summary.stdout).coverage;
  // 6 trials of the 8 planned tasks, rewards 1, 1, 0, 1, 0, 1: 6 of 8. Read as written, the
  // trials "terminal-bench/fix-git" and "terminal-bench/fix-permissions" matched no config task:
  // the job planned nothing (6 of 6, its 2 missing tasks uncounted), and a union of both
  // spellings would plan 10 and count fix-git and fix-permissions missing.
  deepEqual(
    [coverage.agent_id, coverage.planned, coverage.rows, coverage.missing, coverage.resolved],
    ["terminus-2/claude-sonnet-4-5", 8, 6, 2, 4],
  );
  deepEqual([coverage.missing_tasks, coverage.unplanned_rows], [
    ["log-summary", "crack-7z-hash"],
    0,
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("import inspect: a limited run plans the dataset its log names, or warns", async () => {
  const dir = await Deno.makeTempDir();
  const real = `${INSPECT}2025-05-12T20-28-26-04-00_security-guide.json`;
  // The real log ran 3 of the dataset's 16 samples (eval.config.limit 3) and names only those.
  // --width 400: the warnings pinned whole, unfolded
  const limited = await cliInProcess(
    "import",
    "inspect",
    real,
    "--out",
    `${dir}/real.jsonl`,
    "--width",
    "400",
  );
  equal(limited.code, 0, limited.stderr);
  equal(
    limited.stderr,
    `warning: ${real}: eval.config.limit is 3: eval.dataset.sample_ids names only the 3 sample(s) ` +
      "the run selected, so they are the denominator; the dataset has 16 samples " +
      "(eval.dataset.samples): pass its task list to count the other 13 as missing\n",
  );
  // The same log as Inspect 0.3.43 and 0.3.44 wrote it, naming all 16 samples: 3 of 16 ran.
  const log = JSON.parse(await Deno.readTextFile(real));
  log.eval.dataset.sample_ids = Array.from({ length: 16 }, (_, i) => i + 1);
  await Deno.writeTextFile(`${dir}/whole.json`, JSON.stringify(log));
  const whole = await cliInProcess(
    "import",
    "inspect",
    `${dir}/whole.json`,
    "--out",
    `${dir}/whole.jsonl`,
    "--width",
    "400",
  );
  equal(whole.code, 0, whole.stderr);
  match(
    whole.stderr,
    /names all 16 samples of the dataset, .*: the 13 without an attempt are missing\n$/,
  );
  const summary = await cliInProcess(
    "summarize",
    `${dir}/whole.jsonl`,
    "--tasks",
    `${dir}/whole.tasks.json`,
    "--json",
  );
  equal(summary.code, 0, summary.stderr);
  const [coverage] = JSON.parse(summary.stdout).coverage;
  deepEqual([coverage.planned, coverage.rows, coverage.missing], [16, 3, 13]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("import inspect: the .json and .eval forms of one log import to the same rows", async () => {
  const dir = await Deno.makeTempDir();
  const rowsOf = async (file: string, ledger: string) => {
    const result = await cliInProcess(
      "import",
      "inspect",
      `${INSPECT}${file}`,
      "--out",
      `${dir}/${ledger}`,
    );
    equal(result.code, 0, result.stderr);
    return (await Deno.readTextFile(`${dir}/${ledger}`)).trim().split("\n").map((line) => {
      // the kept transcripts differ as the files hold them (python3: the same messages; the
      // .eval's events are condensed, with attachments, the .json's are not), so their digests do
      const { provenance, prev_sha256: _chain, episode_log_digest: _log, ...row } = JSON.parse(
        line,
      );
      const { source: _s, source_sha256: _h, position: _p, ...rest } = provenance;
      return { ...row, provenance: rest };
    });
  };
  // log_formats is one run in both forms (same eval.run_id); log_read_sample's two files are two
  // runs (run ids XmHATth6... and X3kuys5e..., wall 2113 and 413 ms), so only the first compares.
  const fromJson = await rowsOf("log_formats.json", "json.jsonl");
  const fromEval = await rowsOf("log_formats.eval", "eval.jsonl");
  ok(fromJson.length > 0);
  deepEqual(fromEval, fromJson);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("import refuses a duplicate: importing the same log again writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  const args = [
    "import",
    "inspect",
    `${INSPECT}log_formats.eval`,
    "--out",
    `${dir}/l.jsonl`,
    // the warning pinned whole, unfolded
    "--width",
    "400",
  ];
  equal((await cliInProcess(...args)).code, 0);
  const before = [await fileSha256(`${dir}/l.jsonl`), await fileSha256(`${dir}/l.tasks.json`)];
  const again = await cliInProcess(...args);
  equal(again.code, 2);
  match(
    again.stderr,
    // after the source's warning (eval.config.limit 1 of 100 samples)
    /^warning: .*log_formats\.eval:header\.json: eval\.config\.limit is 1: .*\nerror: .*log_formats\.eval: episode ".*" from .* is already in ledger ".*l\.jsonl" at line 1: importing again refuses duplicates, nothing was written\n$/,
  );
  deepEqual([await fileSha256(`${dir}/l.jsonl`), await fileSha256(`${dir}/l.tasks.json`)], before);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("import refuses a row repeated across its sources, naming both places, and writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/a.csv`, "model,task,ok\nm,t1,yes\nm,t2,no\n");
  await Deno.writeTextFile(`${dir}/b.csv`, "model,task,ok,turns\nm,t3,yes,1\nm,t2,no,2\n");
  const repeated = await cliInProcess(
    "import",
    "table",
    `${dir}/a.csv`,
    `${dir}/b.csv`,
    "--out",
    `${dir}/l.jsonl`,
    "--map",
    "agent_id=model,task_id=task,resolved=ok",
  );
  equal(repeated.code, 2);
  // b.csv's line 3 is a.csv's line 3 again: the same run, agent, task and attempt
  equal(
    repeated.stderr.split("\n").filter((line) => line.startsWith("error: ")).join("\n"),
    `error: ${dir}/b.csv: episode "imported/m/t2/1" from ${dir}/b.csv (line 3) repeats ` +
      `${dir}/a.csv (line 3) in this import: nothing was written`,
  );
  equal(await Deno.stat(`${dir}/l.jsonl`).then(({ size }) => size, () => 0), 0);
  await Deno.remove(dir, { recursive: true });
});
