/**
 * `export harbor` end to end through the CLI's entry point (in process):
 * the job directory it writes imports back through our own `import harbor`
 * to the same counts (rows, resolved, invalid, tasks, tokens) for the demo
 * ledger, the synthetic example (plan and errata) and imported Harbor jobs;
 * a second export gives byte-identical files; every field Harbor's models
 * require is present; transcripts become ATIF trajectories (an imported one
 * verbatim); bad input gets one line and the documented exit status.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { loadLedger } from "../cli/_load.ts";
import { openEpisodeLog } from "../runner/episode_log_store.ts";
import { episodeMessages } from "../viewer/episode_messages.ts";
import { fileSha256 } from "./_cli_run.ts";
import {
  counts,
  EXAMPLE_LEDGERS,
  readRows,
  refusesBadInput,
  type Row,
  run,
  runnerLedger,
  taskList,
} from "./_round_trip.ts";

const HARBOR = "tests/fixtures/import/harbor";

type Obj = Record<string, unknown>;

/**
 * The fields Harbor's pydantic models require (no default), read from
 * wrongbutworks/harbor at commit 7d91dbfa (upstream 39b85872, 0.22.0):
 * `src/harbor/models/job/result.py` (JobResult), `models/trial/config.py`
 * (TrialConfig; TaskConfig: `path` or `name`), `models/trial/result.py`
 * (TrialResult, AgentInfo, ModelInfo, ExceptionInfo), `models/task/id.py`
 * (LocalTaskId, PackageTaskId) and `models/trajectories/` (Trajectory,
 * Agent, Step, ToolCall, Observation).
 */
const REQUIRED = {
  jobResult: ["id", "started_at", "n_total_trials", "stats"],
  trialConfig: ["task"],
  trialResult: [
    "task_name",
    "trial_name",
    "trial_uri",
    "task_id",
    "task_checksum",
    "config",
    "agent_info",
  ],
  agentInfo: ["name", "version"],
  exception: ["exception_type", "exception_message", "exception_traceback", "occurred_at"],
  trajectory: ["agent", "steps"],
  trajectoryAgent: ["name", "version"],
  step: ["step_id", "source", "message"],
  toolCall: ["tool_call_id", "function_name", "arguments"],
  observation: ["results"],
} as const;

function requireFields(value: unknown, fields: readonly string[], where: string): Obj {
  assert.ok(value !== null && typeof value === "object", `${where}: an object`);
  for (const field of fields) assert.ok(field in (value as Obj), `${where}: field "${field}"`);
  return value as Obj;
}

/** Checks one ATIF trajectory: required fields, steps 1..n, results naming their step's calls. */
function checkTrajectory(value: unknown, where: string): Obj {
  const trajectory = requireFields(value, REQUIRED.trajectory, where);
  requireFields(trajectory.agent, REQUIRED.trajectoryAgent, `${where} agent`);
  const steps = trajectory.steps as Obj[];
  assert.ok(steps.length > 0, `${where}: a step at least`);
  steps.forEach((step, i) => {
    requireFields(step, REQUIRED.step, `${where} step ${i + 1}`);
    assert.equal(step.step_id, i + 1);
    assert.ok(["system", "user", "agent"].includes(step.source as string));
    const calls = (step.tool_calls ?? []) as Obj[];
    if (calls.length > 0) assert.equal(step.source, "agent");
    for (const call of calls) requireFields(call, REQUIRED.toolCall, `${where} call`);
    if (step.observation === undefined) return;
    const ids = new Set(calls.map((call) => call.tool_call_id));
    const results = requireFields(step.observation, REQUIRED.observation, where).results as Obj[];
    for (const result of results) {
      if (result.source_call_id !== undefined) assert.ok(ids.has(result.source_call_id));
    }
  });
  return trajectory;
}

/** The job directories in a jobs folder, each as its files' paths (sorted) and JSON. */
function readJobs(jobs: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const job of [...Deno.readDirSync(jobs)].map((e) => e.name).sort()) {
    const files = new Map<string, string>();
    const walk = (dir: string) => {
      for (const entry of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
        const path = join(dir, entry.name);
        if (entry.isDirectory) walk(path);
        else files.set(relative(join(jobs, job), path), Deno.readTextFileSync(path));
      }
    };
    walk(join(jobs, job));
    out.set(job, files);
  }
  return out;
}

/** Checks every required field of a job directory's files; returns its trial results by directory. */
function checkJob(files: Map<string, string>, job: string): Map<string, Obj> {
  JSON.parse(files.get("config.json")!);
  requireFields(JSON.parse(files.get("result.json")!), REQUIRED.jobResult, `${job} result`);
  const trials = new Map<string, Obj>();
  for (const [path, text] of files) {
    const [trial, ...rest] = path.split("/");
    if (rest.length === 0) continue; // the job's own config.json and result.json
    const file = rest.join("/");
    if (file === "config.json") {
      requireFields(JSON.parse(text), REQUIRED.trialConfig, `${job}/${path}`);
    } else if (file === "result.json") {
      const result = requireFields(JSON.parse(text), REQUIRED.trialResult, `${job}/${path}`);
      assert.equal(result.trial_name, trial);
      requireFields(result.agent_info, REQUIRED.agentInfo, `${job}/${path} agent_info`);
      if (result.exception_info !== null) {
        requireFields(result.exception_info, REQUIRED.exception, `${job}/${path} exception`);
      }
      trials.set(trial, result);
    } else if (file === "agent/trajectory.json") {
      checkTrajectory(JSON.parse(text), `${job}/${path}`);
    } else {
      assert.equal(file, "verifier/reward.txt", `${job}/${path}`);
    }
  }
  return trials;
}

/** Exports `ledger` as a Harbor job in `out`; returns the job directory's path. */
async function exportJob(ledger: string, out: string, ...options: string[]): Promise<string> {
  const result = await run("export", "harbor", ledger, "--out", out, ...options);
  assert.equal(result.code, 0, result.stderr);
  const jobs = [...Deno.readDirSync(out)].map((e) => e.name);
  assert.equal(jobs.length, 1);
  return `${out}/${jobs[0]}`;
}

/** Imports a job directory into `<dir>/ledger.jsonl`; returns its rows. */
async function importJob(job: string, dir: string): Promise<{ rows: Row[]; stderr: string }> {
  await Deno.mkdir(dir, { recursive: true });
  const result = await run("import", "harbor", job, "--out", `${dir}/ledger.jsonl`);
  assert.equal(result.code, 0, result.stderr);
  return { rows: await readRows(`${dir}/ledger.jsonl`), stderr: result.stderr };
}

/** Per agent: each (status, invalid reason, stop reason) and how many rows have it. */
function outcomes(rows: readonly Row[]): string[] {
  const tally = new Map<string, number>();
  for (const r of rows) {
    const key = `${r.agent_id} ${r.status} ${r.invalid_reason} ${r.stop_reason}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
  return [...tally].map(([key, n]) => `${key} ${n}`).sort();
}

Deno.test("the demo and synthetic example ledgers export as a Harbor job and import again with the same counts", async () => {
  for (const [ledger, errata, plan] of EXAMPLE_LEDGERS) {
    const dir = await Deno.makeTempDir();
    try {
      const options = ["--errata", errata, "--plan", plan];
      const job = await exportJob(ledger, `${dir}/jobs`, ...options);
      const { rows } = await importJob(job, `${dir}/b`);
      // the rows as every command counts them: the errata applied (loadLedger's view)
      const loaded = await loadLedger(ledger, { errata });
      assert.deepEqual(counts(rows), counts([...loaded.rows]));
      const planned = JSON.parse(await Deno.readTextFile(plan)).tasks.length;
      assert.deepEqual(await taskList(`${dir}/b/ledger.jsonl`), [planned, 1]);
      const files = readJobs(`${dir}/jobs`).get(job.slice(job.lastIndexOf("/") + 1))!;
      assert.equal(checkJob(files, job).size, loaded.rows.length);
      // the same ledger gives the same files, byte for byte, wherever they are written
      await exportJob(ledger, `${dir}/again`, ...options);
      assert.deepEqual(readJobs(`${dir}/again`), readJobs(`${dir}/jobs`));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("export harbor keeps the synthetic example's invalid rows invalid, for the same reason where Harbor has one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ledger = "ledgers/examples/synthetic_ledger.jsonl";
    const errata = "ledgers/examples/synthetic_errata.jsonl";
    const job = await exportJob(ledger, `${dir}/jobs`, "--errata", errata);
    assert.equal(job, `${dir}/jobs/synthetic-2026-09`);
    const { rows } = await importJob(job, `${dir}/b`);
    const reasons = (list: readonly Row[]) => {
      const tally: Record<string, number> = {};
      for (const r of list) {
        if (r.status === "invalid") {
          tally[r.invalid_reason!] = (tally[r.invalid_reason!] ?? 0) + 1;
        }
      }
      return tally;
    };
    // python3 over synthetic_ledger.jsonl, errata-0002 applied (D04 invalid, workspace_tampered):
    // verifier_fault 9, harness_error 2, provider_fault 1, evidence_missing 2, workspace_tampered 2
    assert.deepEqual(reasons([...(await loadLedger(ledger, { errata })).rows]), {
      verifier_fault: 9,
      harness_error: 2,
      provider_fault: 1,
      evidence_missing: 2,
      workspace_tampered: 2,
    });
    // Harbor has no exception for the last two: their types are unknown to the mapping, so
    // harness_error, still invalid
    assert.deepEqual(reasons(rows), { verifier_fault: 9, harness_error: 6, provider_fault: 1 });
    const d04 = JSON.parse(
      await Deno.readTextFile(
        `${job}/${
          [...Deno.readDirSync(job)].find((e) =>
            e.isDirectory && Deno.readTextFileSync(`${job}/${e.name}/config.json`).includes(
              '"episode_id": "synthetic-2026-09/agent-delta/D04/1"',
            )
          )!.name
        }/result.json`,
      ),
    );
    assert.equal(d04.verifier_result, null);
    assert.equal(d04.exception_info.exception_type, "WorkspaceTamperedError");
    assert.equal(d04.exception_info.exception_message, "invalid (workspace_tampered)");
    assert.deepEqual(d04.config.agent.kwargs.ledgerbench.corrected_by, ["errata-0002"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an imported Harbor job exports and imports again to the same rows: outcomes, stop reasons, tokens, wall", async () => {
  for (const fixture of ["2026-08-22__10-00-00", "tb2-attempts", "org-names"]) {
    const dir = await Deno.makeTempDir();
    try {
      const first = await importJob(`${HARBOR}/${fixture}`, `${dir}/a`);
      const job = await exportJob(`${dir}/a/ledger.jsonl`, `${dir}/jobs`);
      assert.equal(job, `${dir}/jobs/${fixture}`);
      const again = await importJob(job, `${dir}/b`);
      assert.deepEqual(counts(again.rows), counts(first.rows));
      // the exception types chosen map back to the same outcome and stop reason
      assert.deepEqual(outcomes(again.rows), outcomes(first.rows));
      const walls = (rows: Row[]) =>
        rows.map((r) => `${r.agent_id} ${r.task_id} ${r.wall_ms}`).sort();
      assert.deepEqual(walls(again.rows), walls(first.rows));
      assert.deepEqual(
        await taskList(`${dir}/b/ledger.jsonl`),
        await taskList(`${dir}/a/ledger.jsonl`),
      );
      checkJob(readJobs(`${dir}/jobs`).get(fixture)!, job);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("export harbor writes a runner row's model calls as ATIF steps, its reward and its tokens (null stays absent)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ledger = await runnerLedger(dir);
    const job = await exportJob(ledger, `${dir}/jobs`);
    assert.equal(job, `${dir}/jobs/r1`);
    const files = readJobs(`${dir}/jobs`).get("r1")!;
    const trials = checkJob(files, job);
    const trial = (task: string) => [...trials].find(([, r]) => r.task_name === task)!;
    const [t1Dir, t1] = trial("t1");
    assert.match(t1Dir, /^t1__[0-9a-f]{7}$/);
    assert.deepEqual(t1.verifier_result, { rewards: { reward: 1 } });
    assert.deepEqual(t1.agent_result, { n_input_tokens: 120, n_output_tokens: 30 });
    assert.deepEqual(t1.agent_execution, {
      started_at: "2026-09-01T10:00:00.000Z",
      finished_at: "2026-09-01T10:00:01.500Z",
    });
    assert.equal(files.get(`${t1Dir}/verifier/reward.txt`), "1");
    const trajectory = JSON.parse(files.get(`${t1Dir}/agent/trajectory.json`)!);
    assert.deepEqual(trajectory, {
      schema_version: "ATIF-v1.7",
      agent: { name: "a", version: "unknown" },
      steps: [
        { step_id: 1, source: "user", message: "Fix the bug in <main.py>" },
        {
          step_id: 2,
          source: "agent",
          message: "",
          tool_calls: [{ tool_call_id: "c1", function_name: "sh", arguments: { cmd: "ls" } }],
          observation: { results: [{ source_call_id: "c1", content: "main.py" }] },
        },
        { step_id: 3, source: "agent", message: "Fixed." },
      ],
    });
    const [t2Dir, t2] = trial("t2");
    assert.deepEqual([t2.verifier_result, t2.agent_result, t2.agent_execution], [
      { rewards: { reward: 0 } },
      null,
      null,
    ]);
    assert.equal(files.get(`${t2Dir}/verifier/reward.txt`), "0");
    assert.equal(files.has(`${t2Dir}/agent/trajectory.json`), false);
    const [t3Dir, t3] = trial("t3");
    assert.equal(t3.verifier_result, null);
    assert.equal(files.has(`${t3Dir}/verifier/reward.txt`), false);
    // the first type HARBOR_EXCEPTION_MAPPING sends to harness_error with stop reason error
    assert.deepEqual(t3.exception_info, {
      exception_type: "EnvironmentStartTimeoutError",
      exception_message: "invalid (harness_error): the container did not start",
      exception_traceback: "",
      occurred_at: "1970-01-01T00:00:00.000Z",
    });
    // read back by our importer: the same counts; t2's tokens stay not recorded; the
    // trajectory is kept and reads as the messages the row's calls hold
    const { rows } = await importJob(job, `${dir}/b`);
    assert.deepEqual(counts(rows), counts(await readRows(ledger)));
    assert.deepEqual(rows.map((r) => r.prompt_tokens), [120, null, 10]);
    const back = await openEpisodeLog(`${dir}/b/artifacts`, rows[0].episode_log_digest!);
    const original = await openEpisodeLog(
      `${dir}/artifacts`,
      (await readRows(ledger))[0].episode_log_digest!,
    );
    assert.deepEqual(episodeMessages(back), episodeMessages(original));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an imported Harbor trajectory is exported as the file held it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const job = `${dir}/job`;
    const fixture = `${HARBOR}/2026-08-22__10-00-00`;
    const trial = "hello-world__Xk2PqLm";
    await Deno.mkdir(`${job}/${trial}/agent`, { recursive: true });
    for (const name of ["config.json", "result.json"]) {
      await Deno.copyFile(`${fixture}/${name}`, `${job}/${name}`);
    }
    await Deno.copyFile(`${fixture}/${trial}/result.json`, `${job}/${trial}/result.json`);
    const trajectory = "tests/fixtures/import/harbor_atif/trajectory.json";
    await Deno.copyFile(trajectory, `${job}/${trial}/agent/trajectory.json`);
    await importJob(job, `${dir}/a`);
    const exported = await exportJob(`${dir}/a/ledger.jsonl`, `${dir}/jobs`);
    const [written] = [...Deno.readDirSync(exported)].filter((e) => e.isDirectory);
    assert.equal(
      await fileSha256(`${exported}/${written.name}/agent/trajectory.json`),
      await fileSha256(trajectory),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("export harbor: bad input gets one line and the documented exit status; a job is replaced whole", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await refusesBadInput("harbor", dir);
    const badPlan = await run(
      "export",
      "harbor",
      "ledgers/demo/ledger.jsonl",
      "--out",
      `${dir}/out`,
      "--plan",
      `${dir}/no-plan.json`,
    );
    assert.equal(badPlan.code, 2);
    assert.match(badPlan.stderr, /^error: [^\n]*no-plan\.json[^\n]*\n$/);
    await assert.rejects(() => Deno.stat(`${dir}/out`));
    // a second export replaces the job directory of the same name, leaving nothing else
    const ledger = await runnerLedger(dir);
    const job = await exportJob(ledger, `${dir}/jobs`);
    await Deno.writeTextFile(`${job}/stale.txt`, "");
    assert.equal(await exportJob(ledger, `${dir}/jobs`), job);
    await assert.rejects(() => Deno.stat(`${job}/stale.txt`));
    assert.deepEqual([...Deno.readDirSync(`${dir}/jobs`)].map((e) => e.name), ["r1"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
