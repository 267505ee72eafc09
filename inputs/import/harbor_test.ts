import { deepEqual, equal, ok } from "node:assert/strict";
import { createHash } from "node:crypto";
import { LedgerError } from "../../analysis/ledger_error.ts";
import { Provenance } from "../../analysis/schema/records.ts";
import type { ImportedAttempt } from "./imported_attempt.ts";
import { HARBOR_EXCEPTION_MAPPING, HARBOR_IMPORTER_VERSION, importHarborJob } from "./harbor.ts";

const FIXTURES = new URL("../../tests/fixtures/import/harbor/", import.meta.url).pathname;
const JOB_A = `${FIXTURES}2026-08-22__10-00-00`;
const JOB_B = `${FIXTURES}tb2-attempts`;
const JOB_C = `${FIXTURES}multi-reward`;
const JOB_D = `${FIXTURES}org-names`;
const CLAUDE = "terminus-2/claude-sonnet-4-5";

/** The first problem of the LedgerError `run` throws. */
async function problemOf(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return error.problems[0];
  }
  throw new Error("expected a LedgerError");
}

function byTask(rows: ImportedAttempt[]): Record<string, ImportedAttempt> {
  return Object.fromEntries(rows.map((row) => [row.task_id, row]));
}

function verdict(row: ImportedAttempt): [string, boolean | string, string] {
  const { outcome } = row;
  return [
    outcome.status,
    outcome.status === "scored" ? outcome.resolved : outcome.invalid_reason,
    row.stop_reason,
  ];
}

Deno.test("importHarborJob() maps each exception type of the fixture job", async () => {
  const rows = byTask((await importHarborJob(JOB_A, {})).attempts);
  // One trial per case, as the fixture's result.json files write them.
  const expected: Record<string, [string, boolean | string, string]> = {
    "hello-world": ["scored", true, "completed"], // reward 1.0, no exception
    "fix-git": ["scored", false, "wall_cap"], // AgentTimeoutError, reward 0.0
    "regex-log": ["scored", true, "wall_cap"], // AgentTimeoutError, reward 1.0
    "log-summary": ["invalid", "verifier_fault", "wall_cap"], // AgentTimeoutError, verifier_result null
    "build-cython-ext": ["invalid", "verifier_fault", "completed"], // VerifierTimeoutError
    "crack-7z-hash": ["invalid", "verifier_fault", "completed"], // RewardFileNotFoundError
    "sqlite-with-gcov": ["invalid", "verifier_fault", "completed"], // RewardFileEmptyError
    "pypi-server": ["invalid", "verifier_fault", "completed"], // VerifierOutputParseError
    "openssl-selfsigned-cert": ["invalid", "provider_fault", "rate_limited"], // ApiUsageLimitError
    "chess-best-move": ["scored", false, "token_cap"], // ContextLengthExceededError, unverified
    "git-multibranch": ["invalid", "provider_fault", "error"], // AgentAuthenticationError
    "db-wal-recovery": ["invalid", "provider_fault", "error"], // ModelNotFoundError
    "count-dataset-tokens": ["invalid", "harness_error", "error"], // RuntimeError: not in the table
    "jq-data-processing": ["invalid", "verifier_fault", "completed"], // no exception, no reward
    "polyglot-c-py": ["scored", false, "completed"], // reward 0.0
    "multi-step-refactor": ["scored", true, "completed"], // two steps, reward 1.0
  };
  deepEqual(
    Object.fromEntries(Object.entries(rows).map(([task, row]) => [task, verdict(row)])),
    expected,
  );
});

Deno.test("importHarborJob() keeps exception messages and unscored rewards in the notes", async () => {
  const rows = byTask((await importHarborJob(JOB_A, {})).attempts);
  equal(
    rows["openssl-selfsigned-cert"].notes,
    "ApiUsageLimitError: API Error: 429 You have reached your specified API usage limits. " +
      "You will regain access on 2026-09-01 at 00:00 UTC.; reward 0 not scored; " +
      "cache tokens 64500 (included in prompt tokens)",
  );
  equal(
    rows["count-dataset-tokens"].notes,
    "RuntimeError: Docker compose command failed for environment count-dataset-tokens. " +
      "Command: docker compose up -d. Return code: 1.",
  );
  // Harbor raises ContextLengthExceededError without a message.
  equal(
    rows["chess-best-move"].notes,
    "ContextLengthExceededError; no reward: the trial ended unverified; " +
      "cache tokens 65000 (included in prompt tokens)",
  );
  equal(
    rows["jq-data-processing"].notes,
    "no reward (Harbor's mean counts it as 0; not scored here); " +
      "cache tokens 65500 (included in prompt tokens)",
  );
  equal(rows["polyglot-c-py"].notes, "");
});

Deno.test("importHarborJob() takes tokens and cost as the agent reported them", async () => {
  const rows = byTask((await importHarborJob(JOB_A, {})).attempts);
  // fix-git: n_input_tokens 102222 (cache included), n_output_tokens 4154, cost_usd 0.147.
  const fixGit = rows["fix-git"];
  deepEqual([fixGit.prompt_tokens, fixGit.completion_tokens], [102222, 4154]);
  equal(fixGit.provenance.tokens_reported_by, "agent");
  equal(fixGit.provenance.reported_cost_usd, 0.147);
  deepEqual([fixGit.tool_calls, fixGit.model_calls], [null, null]);
  // polyglot-c-py: agent_result null: not recorded, never 0.
  const none = rows["polyglot-c-py"];
  deepEqual([none.prompt_tokens, none.completion_tokens], [null, null]);
  equal(none.provenance.tokens_reported_by, "not_recorded");
  equal(none.provenance.reported_cost_usd, null);
  // multi-step-refactor: steps 50000 + 70000 in, 3000 + 4500 out, cost 0.09 + 0.13.
  const steps = rows["multi-step-refactor"];
  deepEqual([steps.prompt_tokens, steps.completion_tokens], [120000, 7500]);
  ok(Math.abs(steps.provenance.reported_cost_usd! - 0.22) < 1e-12);
  equal(steps.notes, "cache tokens 20000 (included in prompt tokens); multi-step trial (2 steps)");
});

Deno.test("importHarborJob() measures wall time on the agent_execution phase, times in UTC", async () => {
  const rows = byTask((await importHarborJob(JOB_A, {})).attempts);
  // fix-git agent_execution: 10:10:35.375000Z to 10:25:35.375300Z = 900000.3 ms.
  equal(rows["fix-git"].wall_ms, 900000);
  equal(rows["hello-world"].wall_ms, 42500);
  equal(rows["build-cython-ext"].wall_ms, 311750);
  equal(rows["count-dataset-tokens"].wall_ms, 0);
  // Two steps of 120.4 s and 95.1 s.
  equal(rows["multi-step-refactor"].wall_ms, 215500);
  // Started 10:10:00.125000Z, finished 10:25:47.875300Z (cut to the millisecond).
  equal(rows["fix-git"].started_at, "2026-08-22T10:10:00.125Z");
  equal(rows["fix-git"].finished_at, "2026-08-22T10:25:47.875Z");
});

Deno.test("importHarborJob() records provenance per trial file", async () => {
  const rows = byTask((await importHarborJob(JOB_A, {})).attempts);
  const file = `${JOB_A}/fix-git__Zq3xk9A/result.json`;
  const sha = createHash("sha256").update(await Deno.readFile(file)).digest("hex");
  const row = rows["fix-git"];
  Provenance.parse(row.provenance);
  deepEqual(row.provenance, {
    evidence_kind: "imported",
    format: "harbor",
    importer_version: HARBOR_IMPORTER_VERSION,
    source: file,
    source_sha256: sha,
    position: "fix-git__Zq3xk9A/result.json",
    tokens_reported_by: "agent",
    model: "claude-sonnet-4-5",
    reported_cost_usd: 0.147,
  });
  deepEqual([row.run_id, row.agent_id, row.attempt], ["2026-08-22__10-00-00", CLAUDE, 1]);
});

Deno.test("importHarborJob() plans the config's tasks and warns about missing trials", async () => {
  const batch = await importHarborJob(JOB_A, {});
  equal(batch.attempts.length, 16);
  equal(batch.attempts_per_task, 1);
  // The config's 17 task paths, in order; mteb-retrieve never finished.
  equal(batch.planned_tasks?.length, 17);
  deepEqual(batch.planned_tasks?.slice(0, 3), ["hello-world", "fix-git", "regex-log"]);
  equal(batch.planned_tasks?.at(-1), "mteb-retrieve");
  deepEqual(batch.warnings, [
    `${JOB_A}: 1 trial directories hold no result.json (unfinished): missing`,
    `${JOB_A}/result.json: n_total_trials is 17 but 16 trials have a result.json: 1 missing`,
  ]);
  // Rows sorted by agent, task, attempt.
  deepEqual(batch.attempts.slice(0, 3).map((row) => row.task_id), [
    "build-cython-ext",
    "chess-best-move",
    "count-dataset-tokens",
  ]);
});

Deno.test("importHarborJob() plans a task named with and without its org once", async () => {
  const batch = await importHarborJob(JOB_D, {});
  // config.json: tasks[] paths fix-git, hello-world, regex-log, log-summary, the package
  // terminal-bench/qemu-startup, crack-7z-hash; datasets' task_names fix-permissions and
  // terminal-bench/polyglot-c-py: 8 tasks. The trials name fix-git, fix-permissions,
  // qemu-startup and polyglot-c-py with the org "terminal-bench/". Read as written, fix-git's
  // trial matched no config task and the job planned nothing.
  deepEqual(batch.planned_tasks, [
    "fix-git",
    "hello-world",
    "regex-log",
    "log-summary",
    "qemu-startup",
    "crack-7z-hash",
    "fix-permissions",
    "polyglot-c-py",
  ]);
  // 6 trial directories, each with its result.json: 6 of the 8 planned tasks ran.
  deepEqual(batch.attempts.map((row) => [row.task_id, row.attempt, verdict(row)[1]]), [
    ["fix-git", 1, true],
    ["fix-permissions", 1, false],
    ["hello-world", 1, true],
    ["polyglot-c-py", 1, true],
    ["qemu-startup", 1, true],
    ["regex-log", 1, false],
  ]);
  equal(
    batch.attempts[0].notes,
    "cache tokens 60500 (included in prompt tokens); task_name terminal-bench/fix-git",
  );
  equal(HARBOR_IMPORTER_VERSION, "1.2.0");
  deepEqual(batch.warnings, [
    `${JOB_D}/result.json: n_total_trials is 8 but 6 trials have a result.json: 2 missing`,
  ]);
});

Deno.test("importHarborJob() keeps the org of a task name two orgs share", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const text = await Deno.readTextFile(`${JOB_A}/hello-world__Xk2PqLm/result.json`);
    const trials = [["alice/hello-world", "hello-world__Aa1Aa1A"], [
      "bob/hello-world",
      "hello-world__Bb2Bb2B",
    ]];
    for (const [task, trial] of trials) {
      await Deno.mkdir(`${dir}/${trial}`);
      const result = JSON.parse(text);
      Object.assign(result, { task_name: task, trial_name: trial });
      await Deno.writeTextFile(`${dir}/${trial}/result.json`, JSON.stringify(result));
    }
    const config = {
      job_name: "tmp",
      tasks: [{ name: "alice/hello-world" }, { name: "bob/hello-world" }],
    };
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(config));
    const batch = await importHarborJob(dir, {});
    // One short name under two orgs: two tasks, each keeps its org.
    deepEqual(batch.planned_tasks, ["alice/hello-world", "bob/hello-world"]);
    deepEqual(batch.attempts.map((row) => [row.task_id, row.attempt]), [
      ["alice/hello-world", 1],
      ["bob/hello-world", 1],
    ]);
    // A config naming the bare name cannot tell which: no planned tasks, and a warning.
    config.tasks = [{ name: "hello-world" }];
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(config));
    const bare = await importHarborJob(dir, {});
    equal(bare.planned_tasks, null);
    deepEqual(bare.warnings, [
      `${dir}/hello-world__Aa1Aa1A/result.json: task_name "alice/hello-world" is not among ` +
      `the tasks ${dir}/config.json names; pass a task list to count missing tasks`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importHarborJob() numbers attempts of one agent and task by start time", async () => {
  const batch = await importHarborJob(JOB_B, {});
  deepEqual(
    batch.attempts.map((row) => [row.agent_id, row.task_id, row.attempt, row.provenance.position]),
    [
      ["oracle", "qemu-startup", 1, "qemu-startup__FFFFFFF/result.json"],
      // Started 09:00:03, 09:00:04.25 (written as 11:00:04.25+02:00), 09:00:05.
      [CLAUDE, "fix-permissions", 1, "fix-permissions__BBBBBBB/result.json"],
      [CLAUDE, "fix-permissions", 2, "fix-permissions__CCCCCCC/result.json"],
      [CLAUDE, "fix-permissions", 3, "fix-permissions__AAAAAAA/result.json"],
      // EEEEEEE's times have no zone: it sorts after DDDDDDD, which has one.
      [CLAUDE, "qemu-startup", 1, "qemu-startup__DDDDDDD/result.json"],
      [CLAUDE, "qemu-startup", 2, "qemu-startup__EEEEEEE/result.json"],
    ],
  );
  equal(batch.attempts[2].started_at, "2026-08-23T09:00:04.250Z");
  deepEqual([batch.attempts[5].started_at, batch.attempts[5].wall_ms], [null, null]);
  equal(batch.attempts_per_task, 3);
  deepEqual(batch.planned_tasks, ["fix-permissions", "qemu-startup"]);
  deepEqual(batch.warnings, [
    `${JOB_B}/result.json: n_total_trials is 12 but 6 trials have a result.json: 6 missing`,
    `${JOB_B}/config.json: retry.max_retries is 2: Harbor deletes a retried trial's directory, ` +
    "so the failed attempts it retried are not in the job",
    // EEEEEEE's started_at, finished_at and agent_execution bounds.
    `${JOB_B}: 4 times without a time zone were left out (not recorded)`,
  ]);
});

Deno.test("importHarborJob() decides by the reward key among several, against the threshold", async () => {
  const rows = (await importHarborJob(JOB_B, {})).attempts;
  // reward.json {"reward": 1, "tests_passed": 5, "tests_total": 5}.
  equal(
    rows[3].notes,
    "rewards: reward=1, tests_passed=5, tests_total=5; cache tokens 70000 (included in prompt tokens)",
  );
  deepEqual(rows.map((row) => verdict(row)[1]), [true, false, true, true, false, false]);
  // DDDDDDD's reward 0.5 passes a threshold of 0.5.
  const lenient = await importHarborJob(JOB_B, { passThreshold: 0.5 });
  deepEqual(lenient.attempts.map((row) => verdict(row)[1]), [true, false, true, true, true, false]);
});

Deno.test("importHarborJob() refuses several rewards without one named reward, unless told the key", async () => {
  const file = `${JOB_C}/train-fasttext__GGGGGGG/result.json`;
  const problem = await problemOf(() => importHarborJob(JOB_C, {}));
  deepEqual([problem.code, problem.file, problem.field], [
    "schema_violation",
    file,
    "verifier_result.rewards",
  ]);
  equal(
    problem.message,
    'holds several rewards (tests_passed, tests_total, fraction) and none named "reward": pass the reward key',
  );
  const batch = await importHarborJob(JOB_C, { rewardKey: "fraction", passThreshold: 0.8 });
  // fraction 0.8 >= 0.8.
  deepEqual(verdict(batch.attempts[0]), ["scored", true, "completed"]);
  // A dataset chosen by a glob names no task list.
  equal(batch.planned_tasks, null);
  deepEqual(batch.warnings, [
    `${JOB_C}/config.json: the job config does not name all its tasks (datasets without explicit ` +
    "task names); pass a task list to count missing tasks",
  ]);
  const missing = await problemOf(() => importHarborJob(JOB_C, { rewardKey: "reward" }));
  equal(missing.message, 'holds no reward "reward"');
});

Deno.test("importHarborJob() refuses one agent id for a job of several agents", async () => {
  const problem = await problemOf(() => importHarborJob(JOB_B, { agentId: "mine" }));
  equal(problem.file, `${JOB_B}/qemu-startup__FFFFFFF/result.json`);
  equal(problem.field, "agent_info");
  equal(
    problem.message,
    `is "oracle" but ${JOB_B}/fix-permissions__AAAAAAA/result.json ran "${CLAUDE}": ` +
      "one agent id for the whole job would merge agents",
  );
  const one = await importHarborJob(JOB_A, { agentId: "mine" });
  ok(one.attempts.every((row) => row.agent_id === "mine"));
});

Deno.test("importHarborJob() refuses a phase that ends before it starts and a job without config", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const source = `${JOB_A}/hello-world__Xk2PqLm/result.json`;
    const result = JSON.parse(await Deno.readTextFile(source));
    result.agent_execution.finished_at = "2026-08-22T10:00:00.000000Z";
    await Deno.mkdir(`${dir}/hello-world__Xk2PqLm`);
    await Deno.writeTextFile(`${dir}/hello-world__Xk2PqLm/result.json`, JSON.stringify(result));
    const noConfig = await problemOf(() => importHarborJob(dir, {}));
    deepEqual([noConfig.code, noConfig.file], ["io_error", `${dir}/config.json`]);
    await Deno.writeTextFile(
      `${dir}/config.json`,
      JSON.stringify({ job_name: "tmp", n_attempts: 1 }),
    );
    const backwards = await problemOf(() => importHarborJob(dir, {}));
    deepEqual([backwards.field, backwards.message], [
      "agent_execution.finished_at",
      "is before agent_execution.started_at",
    ]);
    result.agent_execution.finished_at = "yesterday";
    await Deno.writeTextFile(`${dir}/hello-world__Xk2PqLm/result.json`, JSON.stringify(result));
    const bad = await problemOf(() => importHarborJob(dir, {}));
    equal(bad.message, '"yesterday" is not an ISO 8601 time');
    result.agent_execution.finished_at = "2026-02-30T10:00:00.000000Z";
    await Deno.writeTextFile(`${dir}/hello-world__Xk2PqLm/result.json`, JSON.stringify(result));
    const rolled = await problemOf(() => importHarborJob(dir, {}));
    equal(rolled.message, '"2026-02-30T10:00:00.000000Z" is not a valid time');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importHarborJob() cuts a long exception message of an unknown type", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const result = JSON.parse(
      await Deno.readTextFile(`${JOB_A}/polyglot-c-py__Uj6IkOl/result.json`),
    );
    result.exception_info = {
      exception_type: "DaytonaError",
      exception_message: "x".repeat(600),
      exception_traceback: "",
      occurred_at: "2026-08-22T12:20:00.000000Z",
    };
    await Deno.mkdir(`${dir}/polyglot-c-py__Uj6IkOl`);
    await Deno.writeTextFile(`${dir}/polyglot-c-py__Uj6IkOl/result.json`, JSON.stringify(result));
    await Deno.writeTextFile(`${dir}/config.json`, "{}");
    const batch = await importHarborJob(dir, {});
    const [row] = batch.attempts;
    deepEqual(verdict(row), ["invalid", "harness_error", "error"]);
    // 499 characters of the message and an ellipsis: 500 (Inspect's NOTE_MESSAGE_CHARS).
    equal(row.notes, `DaytonaError: ${"x".repeat(499)}…; reward 0 not scored`);
    // No job_name and no job result.json: the run id is the directory's name.
    equal(row.run_id, dir.split("/").at(-1));
    // A config that names no tasks: no planned tasks.
    equal(batch.planned_tasks, null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importHarborJob() warns about a disabled verifier and trials beyond n_attempts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const text = await Deno.readTextFile(`${JOB_A}/hello-world__Xk2PqLm/result.json`);
    for (const name of ["hello-world__Xk2PqLm", "hello-world__Yy7RtEw"]) {
      await Deno.mkdir(`${dir}/${name}`);
      await Deno.writeTextFile(
        `${dir}/${name}/result.json`,
        text.replace('"trial_name": "hello-world__Xk2PqLm"', `"trial_name": "${name}"`),
      );
    }
    const config = { job_name: "tmp", n_attempts: 1, verifier: { disable: true } };
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(config));
    const batch = await importHarborJob(dir, {});
    // Same start time: the trial names decide the order.
    deepEqual(batch.attempts.map((row) => [row.attempt, row.provenance.position]), [
      [1, "hello-world__Xk2PqLm/result.json"],
      [2, "hello-world__Yy7RtEw/result.json"],
    ]);
    deepEqual(batch.warnings, [
      `${dir}/config.json: verifier.disable is true: no trial has a reward, none is scored`,
      `${dir}/config.json: the job config does not name all its tasks (datasets without ` +
      "explicit task names); pass a task list to count missing tasks",
      `${dir}: 1 agent and task pairs have more trials than n_attempts (1); every trial is kept`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HARBOR_EXCEPTION_MAPPING holds the brief's rows", () => {
  deepEqual(HARBOR_EXCEPTION_MAPPING.ApiUsageLimitError, {
    status: "invalid",
    invalid_reason: "provider_fault",
    stop_reason: "rate_limited",
  });
  equal(HARBOR_EXCEPTION_MAPPING.ContextLengthExceededError.stop_reason, "token_cap");
  for (
    const type of [
      "VerifierTimeoutError",
      "RewardFileNotFoundError",
      "RewardFileEmptyError",
      "VerifierOutputParseError",
    ]
  ) {
    deepEqual(HARBOR_EXCEPTION_MAPPING[type], {
      status: "invalid",
      invalid_reason: "verifier_fault",
      stop_reason: "completed",
    });
  }
  ok(Object.isFrozen(HARBOR_EXCEPTION_MAPPING));
  // A type named like an Object member is still an unknown type.
  equal(Object.hasOwn(HARBOR_EXCEPTION_MAPPING, "constructor"), false);
});
