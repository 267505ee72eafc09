/**
 * Tests of the Inspect importer. Expected values were read from the
 * fixtures with python3 (`json.load`, `zipfile.ZipFile(...).read(...)`),
 * never from the importer's output; each says where it came from. The real
 * logs are Inspect's own test logs (see the fixture README); the others
 * are written by `tools/make_inspect_fixtures.ts`.
 */
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { LedgerError } from "../../analysis/ledger_error.ts";
import {
  importInspectLog,
  INSPECT_IMPORTER_VERSION,
  type InspectImportOptions,
} from "./inspect.ts";
import { NOTE_MESSAGE_CHARS } from "./_notes.ts";
import type { ImportedAttempt } from "./imported_attempt.ts";
import { importedRecord } from "./imported_record.ts";

const DIR = "tests/fixtures/import/inspect";
const read = (name: string, options: InspectImportOptions = {}) =>
  importInspectLog(`${DIR}/${name}`, options);

/** The fields of an attempt a test compares (all but provenance). */
function row(attempt: ImportedAttempt) {
  const { provenance: _provenance, transcript: _transcript, ...rest } = attempt;
  return rest;
}

/** The outcome as one word: true, false, or the invalid reason. */
function verdict(attempt: ImportedAttempt): boolean | string {
  return attempt.outcome.status === "scored"
    ? attempt.outcome.resolved
    : attempt.outcome.invalid_reason;
}

/** The first problem of what `promise` throws, which must be a LedgerError. */
async function problemOf(promise: Promise<unknown>) {
  let problem;
  await rejects(promise, (error) => {
    if (!(error instanceof LedgerError)) return false;
    problem = error.problems[0];
    return true;
  });
  return problem!;
}

const POPULARITY = "2025-05-12T20-28-13-04-00_popularity.json";

Deno.test("importInspectLog() reads a cancelled .json log: its rows, a warning, the plan", async () => {
  const batch = await read(POPULARITY);
  // python3: d["eval"]["run_id"], d["eval"]["model"], samples' id, match value, model_usage, total_time
  deepEqual(
    batch.attempts.map(row),
    [
      ["1", true, 64, 2, 664],
      ["2", true, 58, 2, 1775],
      ["3", false, 70, 2, 657],
    ].map(([id, resolved, prompt, completion, wall]) => ({
      run_id: "7KyCuAQSqp76qKQZEKmG6M",
      agent_id: "openai/gpt-4o-mini",
      task_id: `popularity/${id}`,
      attempt: 1,
      outcome: { status: "scored", resolved },
      stop_reason: "completed",
      prompt_tokens: prompt,
      completion_tokens: completion,
      // events: one "model" event, no "tool" event per sample
      tool_calls: 0,
      model_calls: 1,
      wall_ms: wall,
      started_at: null,
      finished_at: null,
      notes: "",
    })),
  );
  // eval.dataset.sample_ids == [1, 2, 3]; eval.config.epochs == 1; status "cancelled"
  deepEqual(batch.planned_tasks, ["popularity/1", "popularity/2", "popularity/3"]);
  equal(batch.attempts_per_task, 1);
  equal(batch.warnings.length, 2);
  match(batch.warnings[0], /status is "cancelled", not "success": imported the 3 attempt\(s\)/);
  // eval.config.limit 3, eval.dataset.samples 100
  match(batch.warnings[1], /limit is 3: .* names only the 3 sample\(s\) .* has 100 samples/);
});

Deno.test("importInspectLog() records provenance: source as given, SHA-256, position", async () => {
  const batch = await read(POPULARITY);
  deepEqual(batch.attempts[2].provenance, {
    evidence_kind: "imported",
    format: "inspect",
    importer_version: INSPECT_IMPORTER_VERSION,
    source: `${DIR}/${POPULARITY}`,
    // sha256sum 2025-05-12T20-28-13-04-00_popularity.json
    source_sha256: "85cd23ca8e6f5adba046db1e0d97e9b9a52c604fd3eed0f99bc27d734c308e3b",
    position: "samples[2]",
    tokens_reported_by: "harness",
    model: "openai/gpt-4o-mini",
    reported_cost_usd: null,
  });
  const eval_ = await read("log_formats.eval");
  // sha256sum log_formats.eval
  equal(
    eval_.attempts[0].provenance.source_sha256,
    "13274e1d67440bdbd8d88e9400d0dd1e19d9b3b39128e3d9fee91618f116baff",
  );
  equal(eval_.attempts[0].provenance.position, "samples/1_epoch_1.json");
  equal((await read(POPULARITY, { agentId: "my-agent" })).attempts[0].agent_id, "my-agent");
});

Deno.test("importInspectLog() reads a cancelled log without samples as no rows, all planned", async () => {
  const batch = await read("2025-05-12T20-28-13-04-00_no-samples.json");
  // python3: d["samples"] absent, d["eval"]["task"] "testtaskname", sample_ids [1, 2, 3]
  deepEqual(batch.attempts, []);
  deepEqual(batch.planned_tasks, ["testtaskname/1", "testtaskname/2", "testtaskname/3"]);
  match(batch.warnings[0], /status is "cancelled"/);
});

Deno.test("importInspectLog() counts cache reads inside OpenAI input before 0.3.184, and tool events", async () => {
  const [attempt] = (await read("2025-05-12T20-27-36-04-00_browser.json")).attempts;
  // python3: packages 0.3.95.dev16 (before PR 3341); openai/gpt-4o-mini input_tokens 15235
  // (input_tokens_cache_read 9088 already inside it), output_tokens 281, total_time 18.517;
  // events: 5 "model", 4 "tool", none in a scorer span; includes = "C"
  deepEqual(
    [attempt.prompt_tokens, attempt.completion_tokens, attempt.model_calls, attempt.tool_calls],
    [15235, 281, 5, 4],
  );
  equal(attempt.wall_ms, 18517);
  equal(verdict(attempt), true);
});

Deno.test("importInspectLog() leaves the scorer's model calls out of model_calls and says so", async () => {
  const batch = await read("2025-05-12T20-28-26-04-00_security-guide.json");
  // python3: each sample has 2 "model" events, one in the span of type "scorer"
  // (model_graded_fact); model_usage (320, 310, 329 input) holds both calls' tokens
  deepEqual(batch.attempts.map((a) => [a.model_calls, a.prompt_tokens]), [[1, 320], [1, 310], [
    1,
    329,
  ]]);
  equal(batch.attempts[0].notes, "model_usage includes the tokens of 1 scorer model call(s)");
});

Deno.test("importInspectLog() reads a sample without score, usage or events as evidence missing", async () => {
  const batch = await read("log_tool_call_error.json");
  // python3: one sample, id 1, epoch 4, no "scores", "model_usage", "events" or "error";
  // its tool errors are in messages (the agent's tool calls failing), not a sample error
  deepEqual(batch.attempts.map(row), [{
    run_id: "...",
    agent_id: "...",
    task_id: ".../1",
    attempt: 4,
    outcome: { status: "invalid", invalid_reason: "evidence_missing" },
    stop_reason: "completed",
    prompt_tokens: null,
    completion_tokens: null,
    tool_calls: null,
    model_calls: null,
    wall_ms: null,
    started_at: null,
    finished_at: null,
    notes: "no score recorded",
  }]);
  equal(batch.attempts[0].provenance.tokens_reported_by, "not_recorded");
  // eval.config is {}: epochs 1, and epoch 4 lies beyond it
  deepEqual(batch.warnings, [
    `${DIR}/log_tool_call_error.json: 1 attempt(s) have an epoch beyond eval.config.epochs (1)`,
  ]);
});

Deno.test("importInspectLog() reads the .json and .eval forms of log_formats to the same rows", async () => {
  const json = await read("log_formats.json");
  const zip = await read("log_formats.eval");
  // python3: the .json sample keeps its events under "transcript" (Inspect migrates it to
  // "events"); both: match "I", model_usage None / {}, 1 "model" event
  deepEqual(json.attempts.map(row), zip.attempts.map(row));
  deepEqual(row(json.attempts[0]), {
    run_id: "BpiPFmbVcMCRUAXv8ovCTx",
    agent_id: "ollama/llama3.1",
    task_id: "popularity/1",
    attempt: 1,
    outcome: { status: "scored", resolved: false },
    stop_reason: "completed",
    prompt_tokens: null,
    completion_tokens: null,
    tool_calls: 0,
    model_calls: 1,
    wall_ms: null,
    started_at: null,
    finished_at: null,
    notes: "",
  });
  // Only the .eval header lists eval.dataset.sample_ids ([1]).
  deepEqual([json.planned_tasks, zip.planned_tasks], [null, ["popularity/1"]]);
});

Deno.test("importInspectLog() reads log_read_sample's two forms alike, but for their two runs", async () => {
  const json = await read("log_read_sample.json");
  const zip = await read("log_read_sample.eval");
  // python3: the two files are two runs of the same task: run_id XmHATth6rmyTfFuHGKdQRd /
  // X3kuys5egBfmBhaXyCtp4X, total_time 2.113 / 0.413; everything else read is equal
  deepEqual([json.attempts[0].run_id, zip.attempts[0].run_id], [
    "XmHATth6rmyTfFuHGKdQRd",
    "X3kuys5egBfmBhaXyCtp4X",
  ]);
  deepEqual([json.attempts[0].wall_ms, zip.attempts[0].wall_ms], [2113, 413]);
  const common = (a: ImportedAttempt) => ({ ...row(a), run_id: "", wall_ms: 0 });
  deepEqual(json.attempts.map(common), zip.attempts.map(common));
  deepEqual(row(zip.attempts[0]).prompt_tokens, 66);
  deepEqual(json.planned_tasks, zip.planned_tasks);
});

Deno.test("importInspectLog() reads epochs of a .eval log in Inspect's order", async () => {
  const batch = await read("log_streaming.eval");
  // python3: samples/{1,2}_epoch_{1,2}.json, match I, C / C, C; output_tokens 1, 2 / 2, 1;
  // eval.config.epochs 2; sort_samples order: epoch, then id
  deepEqual(
    batch.attempts.map((a) => [a.task_id, a.attempt, verdict(a), a.completion_tokens]),
    [
      ["popularity/1", 1, false, 1],
      ["popularity/2", 1, true, 2],
      ["popularity/1", 2, true, 2],
      ["popularity/2", 2, true, 1],
    ],
  );
  equal(batch.attempts_per_task, 2);
});

Deno.test("importInspectLog() normalizes sample times to UTC and reads a task name with a slash", async () => {
  const [attempt] = (await read("mmlu-summary-choices.eval")).attempts;
  // python3: started_at 2025-12-19T12:37:50.892960+00:00, completed_at ...52.458757+00:00,
  // task inspect_evals/mmlu_0_shot, choice "I", input_tokens 153, total_time 1.566
  deepEqual(
    [attempt.task_id, attempt.started_at, attempt.finished_at, attempt.wall_ms, verdict(attempt)],
    [
      "inspect_evals/mmlu_0_shot/1",
      "2025-12-19T12:37:50.892Z",
      "2025-12-19T12:37:52.458Z",
      1566,
      false,
    ],
  );
});

Deno.test("importInspectLog() reads an eval without scorer as evidence missing, tokens kept", async () => {
  const batch = await read("2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval");
  // python3: 10 samples, each scores {} (results.scores []), input_tokens of sample 1..10
  deepEqual(
    batch.attempts.map((a) => [verdict(a), a.prompt_tokens]),
    [
      64,
      58,
      70,
      67,
      63,
      58,
      61,
      55,
      61,
      63,
    ].map((tokens) => ["evidence_missing", tokens]),
  );
  equal(batch.attempts[9].task_id, "popularity/10");
});

Deno.test("importInspectLog() maps score values as Inspect's value_to_float, the rest invalid", async () => {
  const batch = await read("verdicts.json");
  const byId = Object.fromEntries(batch.attempts.map((a) => [a.task_id.slice(9), verdict(a)]));
  // The ids name the value (tools/make_inspect_fixtures.ts, verdicts()).
  deepEqual(byId, {
    C: true,
    P: false,
    I: false,
    N: false,
    true: true,
    false: false,
    one: true,
    three_quarters: false,
    yes: true,
    numeric: true,
    list: "verifier_fault",
    dict: "verifier_fault",
    nan: "verifier_fault",
    inf: "verifier_fault",
    unknown: "verifier_fault",
    lower_c: "verifier_fault",
    error: "harness_error",
    invalidated: "verifier_fault",
    no_scores: "evidence_missing",
    empty_scores: "evidence_missing",
  });
  const half = await read("verdicts.json", { passThreshold: 0.5 });
  const resolved = half.attempts.filter((a) => verdict(a) === true).map((a) => a.task_id.slice(9));
  deepEqual(resolved, ["C", "P", "true", "one", "three_quarters", "yes", "numeric"]);
  // "never_run" is planned (sample_ids) and has no sample: missing, not invented.
  equal(batch.planned_tasks?.at(-1), "verdicts/never_run");
  equal(batch.attempts.length, 20);
});

Deno.test("importInspectLog() keeps an error's message, cut, and a bad value in the notes", async () => {
  const batch = await read("verdicts.json");
  const error = batch.attempts.find((a) => a.task_id === "verdicts/error")!;
  equal(error.stop_reason, "error");
  // python3: len(error.message) == 744; the note keeps its first NOTE_MESSAGE_CHARS - 1 and "…"
  equal(error.notes.length, "Inspect error: ".length + NOTE_MESSAGE_CHARS);
  match(error.notes, /^Inspect error: RuntimeError: sandbox exited with code 137\. x+…$/);
  // python3: invalidation {"author": "jo", "reason": "leaked answer"}; its score C is withdrawn
  const invalidated = batch.attempts.find((a) => a.task_id === "verdicts/invalidated")!;
  equal(invalidated.notes, "invalidated in Inspect by jo: leaked answer");
  const nan = batch.attempts.find((a) => a.task_id === "verdicts/nan")!;
  equal(nan.notes, 'score "match" value NaN is not a verdict');
});

Deno.test("importInspectLog() maps each limit type to a stop reason", async () => {
  const batch = await read("limits.json");
  // tools/make_inspect_fixtures.ts, limits(): limit {type, limit: 100 * (index + 1)}
  deepEqual(batch.attempts.map((a) => [a.task_id.slice(7), a.stop_reason, a.notes]), [
    ["token", "token_cap", "Inspect limit: token 100"],
    ["context", "token_cap", "Inspect limit: context 200"],
    ["message", "step_cap", "Inspect limit: message 300"],
    ["turn", "step_cap", "Inspect limit: turn 400"],
    ["time", "wall_cap", "Inspect limit: time 500"],
    ["working", "wall_cap", "Inspect limit: working 600"],
    ["cost", "error", "Inspect limit: cost 700"],
    ["operator", "error", "Inspect limit: operator 800"],
    ["custom", "error", "Inspect limit: custom 900"],
    ["none", "completed", ""],
  ]);
});

Deno.test("importInspectLog() reads input and output tokens by the rules of the log's version", async () => {
  // python3 on tokens_*.json, model_usage:
  //   openai    input 1000, cache_read 300, output 200 (reasoning 50 inside), cost 0.25
  //   anthropic input 40, cache_read 100, cache_write 300, output 30, cost 0.5
  //   google    input 500, output 60, reasoning 20
  //   grok      input 200, cache_read 50, output 20, reasoning 100
  // 0.3.150: openai's and grok's input already hold their cache (1000, 200), anthropic's does
  //   not (440); google's output leaves out reasoning (80), grok's always does (120): 2140 / 430
  // 0.3.250: every input excludes the cache (1300 + 440 + 500 + 250); google's output holds
  //   reasoning (60), grok's does not (120): 2490 / 410
  const tokens = async (name: string) => {
    const batch = await read(name);
    const a = batch.attempts[0];
    return [a.prompt_tokens, a.completion_tokens, a.provenance.reported_cost_usd, batch.warnings];
  };
  deepEqual(await tokens("tokens_0.3.150.json"), [2140, 430, 0.75, []]);
  deepEqual(await tokens("tokens_0.3.250.json"), [2490, 410, 0.75, []]);
  const dev = await tokens("tokens_0.3.184.dev7.json");
  deepEqual(dev.slice(0, 2), [2140, 430]);
  deepEqual(dev[3], [
    `${DIR}/tokens_0.3.184.dev7.json: eval.packages.inspect_ai is 0.3.184.dev7+gbf26615, a ` +
    "development build of 0.3.184, where the token rules changed: read as a build from before " +
    "that release",
  ]);
  const unknown = await tokens("tokens_unknown.json");
  deepEqual(unknown.slice(0, 2), [2490, 410]);
  deepEqual(unknown[3], [
    `${DIR}/tokens_unknown.json: eval.packages.inspect_ai is absent or unreadable: tokens are ` +
    "read by the rules of Inspect 0.3.184 and later",
  ]);
});

Deno.test("importInspectLog() counts model and tool events outside scorer spans, times in UTC", async () => {
  const [a] = (await read("tokens_0.3.250.json")).attempts;
  // events: model in s1 and s2 (s2's parent is s1), tools in s1, s2, s2; s4 (parent s3, a
  // "scorers" span) holds one model and one tool call; then a model event inside a "scorer"
  // step and one after it; total_time 12.3456;
  // started_at 2026-03-02T05:00:00.123456-05:00, completed_at 2026-03-02T10:00:12.469+00:00
  deepEqual([a.model_calls, a.tool_calls, a.wall_ms], [3, 3, 12346]);
  deepEqual([a.started_at, a.finished_at], [
    "2026-03-02T10:00:00.123Z",
    "2026-03-02T10:00:12.469Z",
  ]);
  equal(a.notes, "model_usage includes the tokens of 2 scorer model call(s)");
});

Deno.test("importInspectLog() wants --scorer for several scorers and refuses an unknown one", async () => {
  const several = await problemOf(read("scorers.json"));
  deepEqual(several, {
    code: "schema_violation",
    file: `${DIR}/scorers.json`,
    line: 0,
    field: "samples.0.scores",
    message: 'holds several scorers ("match", "includes"): choose one with --scorer',
  });
  // python3: sample 1 match C, includes I; sample 2 only match I
  const chosen = await read("scorers.json", { scorer: "includes" });
  deepEqual(chosen.attempts.map((a) => [verdict(a), a.notes]), [
    [false, ""],
    ["evidence_missing", 'no score "includes" recorded'],
  ]);
  deepEqual((await read("scorers.json", { scorer: "match" })).attempts.map(verdict), [true, false]);
  const unknown = await problemOf(read("scorers.json", { scorer: "accuracy" }));
  equal(unknown.message, 'holds no scorer "accuracy" (scorers in the log: "match", "includes")');
});

Deno.test("importInspectLog() reads a zstd .eval with epochs, a missing sample and NaN values", async () => {
  const batch = await read("epochs_zstd.eval");
  // tools/make_inspect_fixtures.ts, epochSamples(): 1/1 C, 1/2 I, 2/1 C (total_time NaN),
  // 2/2 C, 3/1 value NaN; 3/2 has no entry; status "error"; epochs 2; sample_ids [1, 2, 3]
  deepEqual(batch.attempts.map((a) => [a.task_id, a.attempt, verdict(a), a.wall_ms]), [
    ["epochs/1", 1, true, 1500],
    ["epochs/2", 1, true, null],
    ["epochs/3", 1, "verifier_fault", 1500],
    ["epochs/1", 2, false, 1500],
    ["epochs/2", 2, true, 1500],
  ]);
  deepEqual([batch.attempts_per_task, batch.planned_tasks], [2, [
    "epochs/1",
    "epochs/2",
    "epochs/3",
  ]]);
  match(batch.warnings[0], /epochs_zstd\.eval:header\.json: the log's status is "error"/);
  // The same log stored uncompressed with ZIP64 records reads to the same rows.
  const zip64 = await read("epochs_stored_zip64.eval");
  deepEqual(zip64.attempts.map(row), batch.attempts.map(row));
});

Deno.test("importInspectLog() reads a crashed .eval from its journal's summaries", async () => {
  const batch = await read("crashed_journal.eval");
  // python3: no header.json and no samples/; _journal/summaries/1.json holds 1 (C) and 2 (I),
  // 2.json holds 2 again (C, limit "time"): the later summary holds
  deepEqual(
    batch.attempts.map((a) => [a.task_id, verdict(a), a.stop_reason, a.provenance.position]),
    [
      ["crashed/1", true, "completed", "_journal/summaries/1.json[0]"],
      ["crashed/2", true, "wall_cap", "_journal/summaries/2.json[0]"],
    ],
  );
  deepEqual(batch.attempts.map((a) => [a.model_calls, a.prompt_tokens]), [[null, 100], [
    null,
    100,
  ]]);
  equal(batch.planned_tasks?.length, 3);
  match(batch.warnings[0], /status is "started"/);
  match(
    batch.warnings[1],
    /crashed_journal\.eval:_journal\/start\.json: 2 attempt\(s\) read from sample summaries/,
  );
});

const SECURITY_GUIDE = "2025-05-12T20-28-26-04-00_security-guide.json";

/** The fields of a real log its variants change. */
interface LogVariant {
  version?: unknown;
  eval: { config: Record<string, unknown>; dataset: Record<string, unknown> };
}

/** Runs `test` on a copy of the real log `name` changed by `change`, in a temporary directory. */
async function withVariant(
  name: string,
  change: (log: LogVariant) => void,
  test: (path: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  try {
    const log = JSON.parse(await Deno.readTextFile(`${DIR}/${name}`));
    change(log);
    const path = `${dir}/${name}`;
    await Deno.writeTextFile(path, JSON.stringify(log));
    await test(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("importInspectLog() warns of a run limited to part of its dataset", async () => {
  const batch = await read(SECURITY_GUIDE);
  // python3: eval.config.limit 3, eval.dataset.samples 16, sample_ids [1, 2, 3], 3 samples
  deepEqual(batch.planned_tasks, ["security_guide/1", "security_guide/2", "security_guide/3"]);
  deepEqual(batch.warnings, [
    `${DIR}/${SECURITY_GUIDE}: eval.config.limit is 3: eval.dataset.sample_ids names only the 3 ` +
    "sample(s) the run selected, so they are the denominator; the dataset has 16 samples " +
    "(eval.dataset.samples): pass its task list to count the other 13 as missing",
  ]);
  // log_formats.json (Inspect 0.3.41) names no sample ids: limit 1, samples 100, 1 sample ran.
  deepEqual((await read("log_formats.json")).warnings, [
    `${DIR}/log_formats.json: eval.config.limit is 1: the log names no sample ids ` +
    "(eval.dataset.sample_ids), so the denominator is the 1 sample(s) that ran; the dataset " +
    "has 100 samples (eval.dataset.samples): pass its task list to count the other 99 as missing",
  ]);
  // In a .eval log the warning names the header entry.
  match(
    (await read("log_formats.eval")).warnings[0],
    /^tests\/fixtures\/import\/inspect\/log_formats\.eval:header\.json: eval\.config\.limit is 1: /,
  );
  // A run over the whole dataset (no limit, browser.json: 1 sample of 1) does not warn.
  deepEqual((await read("2025-05-12T20-27-36-04-00_browser.json")).warnings, []);
});

Deno.test("importInspectLog() plans the whole dataset when a limited log names it", async () => {
  // As Inspect 0.3.43 and 0.3.44 wrote it: sample_ids lists the whole dataset (16 ids).
  await withVariant(SECURITY_GUIDE, (log) => {
    log.eval.dataset.sample_ids = Array.from({ length: 16 }, (_, i) => i + 1);
  }, async (path) => {
    const batch = await importInspectLog(path, {});
    equal(batch.planned_tasks?.length, 16);
    equal(batch.planned_tasks?.at(-1), "security_guide/16");
    equal(batch.attempts.length, 3);
    deepEqual(batch.warnings, [
      `${path}: eval.config.limit is 3: eval.dataset.sample_ids names all 16 samples of the ` +
      "dataset, which the task list plans: the 13 without an attempt are missing",
    ]);
  });
  // A [start, end] range, the dataset's size unrecorded.
  await withVariant(SECURITY_GUIDE, (log) => {
    log.eval.config.limit = [0, 3];
    delete log.eval.dataset.samples;
  }, async (path) => {
    deepEqual((await importInspectLog(path, {})).warnings, [
      `${path}: eval.config.limit is [0, 3]: eval.dataset.sample_ids names only the 3 sample(s) ` +
      "the run selected, so they are the denominator; the dataset's size is not recorded " +
      "(eval.dataset.samples)",
    ]);
  });
  // A selection by id; a limit as large as the dataset selects all of it.
  await withVariant(SECURITY_GUIDE, (log) => {
    log.eval.config.sample_id = [1, 2, 3];
  }, async (path) => {
    match((await importInspectLog(path, {})).warnings[0], /: eval\.config\.sample_id selects /);
  });
  await withVariant(SECURITY_GUIDE, (log) => {
    log.eval.config.limit = 16;
    log.eval.dataset.samples = 3;
  }, async (path) => deepEqual((await importInspectLog(path, {})).warnings, []));
  await withVariant(SECURITY_GUIDE, (log) => {
    log.eval.config.limit = "3";
  }, async (path) => {
    const problem = await problemOf(importInspectLog(path, {}));
    deepEqual([problem.code, problem.field, problem.message], [
      "schema_violation",
      "eval.config.limit",
      "must be a whole number or a [start, end] pair of them",
    ]);
  });
});

Deno.test("importInspectLog() warns of a log format version it does not know", async () => {
  // python3: every real log says version 2
  for (const [version, shown] of [[3, "3"], ["2", '"2"'], [null, "null"]]) {
    await withVariant(SECURITY_GUIDE, (log) => {
      log.version = version;
      delete log.eval.config.limit;
    }, async (path) => {
      deepEqual((await importInspectLog(path, {})).warnings, [
        `${path}: version is ${shown}, not an Inspect log format version this importer knows ` +
        "(1, 2): read by the version 2 rules",
      ]);
    });
  }
  // Version 1 (Inspect until July 2024) and an absent version (Inspect's default, 2) are known.
  for (
    const change of [
      (log: LogVariant) => log.version = 1,
      (log: LogVariant) => delete log.version,
    ]
  ) {
    await withVariant(SECURITY_GUIDE, (log) => {
      change(log);
      delete log.eval.config.limit;
    }, async (path) => deepEqual((await importInspectLog(path, {})).warnings, []));
  }
});

Deno.test("importInspectLog() reads a repeated ZIP entry as its last version, as Inspect does", async () => {
  // python3: zipfile.ZipFile("repeated_entry.eval").read("samples/1_epoch_1.json") -> match "C"
  const batch = await read("repeated_entry.eval");
  deepEqual(batch.attempts.map(verdict), [true]);
});

Deno.test("importInspectLog() refuses broken ZIPs with one line naming the file or entry", async () => {
  const cases: [string, string, string][] = [
    ["truncated.eval", "", "is not a complete ZIP file: no end of central directory record"],
    ["method_bzip2.eval", ":samples/1_epoch_1.json", "uses compression method 12; supported"],
    ["encrypted.eval", ":samples/1_epoch_1.json", "is encrypted, which is not supported"],
    ["oversize.eval", ":samples/1_epoch_1.json", "declares 4026531840 bytes uncompressed"],
    [
      "bad_crc.eval",
      ":samples/1_epoch_1.json",
      "is corrupt: it does not decompress to its declared 300",
    ],
    // 16 MiB of text declared as 300 bytes: stopped at the first block beyond them
    ["zstd_bomb.eval", ":samples/1_epoch_1.json", "is corrupt: its zstd data decompresses to more"],
  ];
  for (const [name, entry, message] of cases) {
    const problem = await problemOf(read(name));
    equal(problem.code, "bad_archive", name);
    equal(problem.file, `${DIR}/${name}${entry}`);
    equal(problem.message.startsWith(message), true, problem.message);
  }
});

Deno.test("importInspectLog() refuses what is no log, and a missing file", async () => {
  const text = await problemOf(read("not_a_log.txt"));
  equal(text.code, "bad_encoding");
  match(text.message, /neither an Inspect \.eval log \(a ZIP file\) nor a \.json log/);
  equal((await problemOf(read("absent.json"))).code, "io_error");
  const threshold = await problemOf(read(POPULARITY, { passThreshold: NaN }));
  equal(threshold.message, "pass threshold must be a finite number");
});

Deno.test("importInspectLog() keeps each sample's messages and events as the log holds them", async () => {
  const [json] = (await read("log_formats.json")).attempts;
  // python3: the sample's keys are id, epoch, input, target, messages, output, scores,
  // metadata, store, transcript; 3 messages, 11 events under transcript.events
  const kept = importedRecord(json.transcript!);
  deepEqual(Object.keys(kept), ["input", "target", "messages", "output", "events"]);
  const log = JSON.parse(await Deno.readTextFile(`${DIR}/log_formats.json`));
  deepEqual(kept.messages, log.samples[0].messages);
  deepEqual(kept.events, log.samples[0].transcript.events);
  equal((kept.events as unknown[]).length, 11);
  // python3: log_tool_call_error's one sample has 11 tool messages, no events or output
  const [errors] = (await read("log_tool_call_error.json")).attempts;
  const keptErrors = importedRecord(errors.transcript!);
  deepEqual(Object.keys(keptErrors), ["input", "target", "messages"]);
  equal((keptErrors.messages as unknown[]).length, 11);
  // a summary read in place of a sample keeps nothing
  const crashed = await read("crashed_journal.eval");
  equal(crashed.attempts.length > 0, true);
  equal(crashed.attempts.filter((a) => a.transcript !== undefined).length, 0);
});
