/**
 * Inspect transcripts in and out, end to end through the CLI's entry point
 * (in process): `import inspect` keeps each sample's messages and events in
 * the ledger's artifact store and `view` shows them; `export inspect` writes
 * `.eval` logs that our own importer reads back to the same counts (rows,
 * resolved, invalid, tasks, tokens) and the same messages, byte-identical
 * on a second export; every field inspect_ai's models require is present;
 * bad input gets one line and the documented exit status.
 */
import assert from "node:assert/strict";
import { unzipSync } from "fflate";
import { parseJsonObject } from "../analysis/schema/strict_json.ts";
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
import { openEpisodeLog } from "../runner/episode_log_store.ts";
import { importedRecord } from "../inputs/import/imported_record.ts";
import { rowEvidence } from "../cli/_view_server.ts";
import { episodePage } from "../viewer/episode_page.ts";
import { fileSha256 } from "./_cli_run.ts";

const INSPECT = "tests/fixtures/import/inspect";

/** Per agent, each kept transcript's messages and events as text, sorted. */
async function keptTranscripts(ledger: string): Promise<Record<string, string[]>> {
  const store = `${ledger.slice(0, ledger.lastIndexOf("/"))}/artifacts`;
  const out: Record<string, string[]> = {};
  for (const row of await readRows(ledger)) {
    if (row.episode_log_digest === undefined) continue;
    const log = await openEpisodeLog(store, row.episode_log_digest);
    const kept = importedRecord(log.imported!);
    (out[row.agent_id] ??= []).push(JSON.stringify([kept.messages, kept.events ?? null]));
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}

/** A JSON entry of a `.eval` ZIP, read as the importer reads it (bare NaN allowed). */
function entryValue(bytes: Uint8Array): unknown {
  const text = `{"value":${new TextDecoder().decode(bytes)}}`;
  const parsed = parseJsonObject(new TextEncoder().encode(text), "the file", text, {
    nonFinite: true,
  });
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.value.value;
}

/**
 * The fields inspect_ai's pydantic models require (no default), read from
 * UKGovernmentBEIS/inspect_ai at commit 499e6152e7b8fc8cbd8ac5283536572aa6e4ab17
 * (0.3.260): `src/inspect_ai/log/_log.py` (EvalLog: eval; EvalSpec: created,
 * task, dataset, model, config; EvalSample and EvalSampleSummary: id, epoch,
 * input, target; EvalScore: name, scorer; EvalSampleReductions: scorer,
 * samples; EvalSampleLimit: type, limit), `log/_recorders/eval.py` (LogStart:
 * version, eval, plan), `scorer/_metric.py` (Score: value),
 * `_util/error.py` (EvalError: message, traceback, traceback_ansi),
 * `model/_chat_message.py` (ChatMessage: content; role discriminates) and
 * `tool/_tool_call.py` (ToolCall: id, function, arguments).
 */
const REQUIRED = {
  log: ["eval"],
  start: ["version", "eval", "plan"],
  spec: ["created", "task", "dataset", "model", "config"],
  sample: ["id", "epoch", "input", "target"],
  score: ["value"],
  evalScore: ["name", "scorer"],
  error: ["message", "traceback", "traceback_ansi"],
  limit: ["type", "limit"],
  message: ["content", "role"],
  toolCall: ["id", "function", "arguments"],
  reduction: ["scorer", "samples"],
  reducedScore: ["value"],
} as const;

type Obj = Record<string, unknown>;

function requireFields(value: unknown, fields: readonly string[], where: string): Obj {
  assert.ok(value !== null && typeof value === "object", `${where}: an object`);
  for (const field of fields) assert.ok(field in (value as Obj), `${where}: field "${field}"`);
  return value as Obj;
}

/** Checks every required field of one `.eval` log; returns its entries by name. */
async function checkEvalLog(path: string): Promise<Map<string, unknown>> {
  const entries = new Map(
    Object.entries(unzipSync(await Deno.readFile(path))).map(([name, bytes]) => [
      name,
      entryValue(bytes),
    ]),
  );
  const header = requireFields(entries.get("header.json"), REQUIRED.log, `${path} header`);
  requireFields(header.eval, REQUIRED.spec, `${path} header eval`);
  const results = header.results as { scores: unknown[] };
  for (const score of results.scores) requireFields(score, REQUIRED.evalScore, `${path} results`);
  const start = requireFields(entries.get("_journal/start.json"), REQUIRED.start, `${path} start`);
  requireFields(start.eval, REQUIRED.spec, `${path} start eval`);
  for (const summary of entries.get("summaries.json") as unknown[]) {
    requireFields(summary, REQUIRED.sample, `${path} summary`);
  }
  for (const reduction of entries.get("reductions.json") as unknown[]) {
    const r = requireFields(reduction, REQUIRED.reduction, `${path} reduction`);
    for (const s of r.samples as unknown[]) requireFields(s, REQUIRED.reducedScore, path);
  }
  for (const [name, value] of entries) {
    if (!name.startsWith("samples/")) continue;
    const sample = requireFields(value, REQUIRED.sample, `${path}:${name}`);
    assert.equal(name, `samples/${sample.id}_epoch_${sample.epoch}.json`);
    for (const score of Object.values((sample.scores ?? {}) as Obj)) {
      requireFields(score, REQUIRED.score, `${path}:${name} score`);
    }
    if (sample.error !== undefined) requireFields(sample.error, REQUIRED.error, name);
    if (sample.limit !== undefined) requireFields(sample.limit, REQUIRED.limit, name);
    for (const message of sample.messages as unknown[]) {
      const m = requireFields(message, REQUIRED.message, `${path}:${name} message`);
      for (const call of (m.tool_calls ?? []) as unknown[]) {
        requireFields(call, REQUIRED.toolCall, `${path}:${name} tool call`);
      }
    }
  }
  return entries;
}

/** Exports `ledger` to `out` and returns the `.eval` paths written, sorted. */
async function exportLogs(ledger: string, out: string, ...options: string[]): Promise<string[]> {
  const result = await run("export", "inspect", ledger, "--out", out, ...options);
  assert.equal(result.code, 0, result.stderr);
  return [...Deno.readDirSync(out)].map((e) => `${out}/${e.name}`).filter((p) =>
    p.endsWith(".eval")
  ).sort();
}

/** The real logs of the round trip: tool calls, attachments, events, two epochs, errors, two runs. */
const LOGS = [
  "log_read_sample.json",
  "log_read_sample.eval",
  "log_formats.eval",
  "log_streaming.eval",
  "log_tool_call_error.json",
  "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval",
  "2025-05-12T20-27-36-04-00_browser.json",
  "2025-05-12T20-28-26-04-00_security-guide.json",
].map((name) => `${INSPECT}/${name}`);

Deno.test("import, export and import again: the same counts and messages, the same bytes twice", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = `${dir}/a/ledger.jsonl`;
    await Deno.mkdir(`${dir}/a`);
    assert.equal((await run("import", "inspect", ...LOGS, "--out", first)).code, 0);
    const logs = await exportLogs(first, `${dir}/a/inspect`);
    const again = `${dir}/b/ledger.jsonl`;
    await Deno.mkdir(`${dir}/b`);
    const reimport = await run("import", "inspect", ...logs, "--out", again);
    assert.equal(reimport.code, 0, reimport.stderr);
    // the logs we write carry eval.packages.inspect_ai, status success and their dataset: the
    // one warning left is log_tool_call_error's own (python3: its one sample is epoch 4 of a
    // log whose eval.config is {}), kept as epoch 4 beyond the task list's 2 attempts
    assert.match(
      reimport.stderr.replace(/\n {2}/g, " "),
      /^warning: \S+\/inspect\/_\.\.\.eval:header\.json: 1 attempt\(s\) have an epoch beyond eval\.config\.epochs \(2\)\n$/,
    );
    // agent "..." (log_tool_call_error's eval.model) gets "_...eval": no hidden file
    assert.ok(logs.some((path) => path.endsWith("/inspect/_...eval")));
    const before = await readRows(first);
    const after = await readRows(again);
    assert.deepEqual(counts(after), counts(before));
    assert.deepEqual(await taskList(again), await taskList(first));
    // the kept events come back, so the model and tool calls counted from them too
    const calls = (rows: Row[]) =>
      rows.map((r) => `${r.agent_id} ${r.model_calls} ${r.tool_calls}`);
    assert.deepEqual(calls(after).sort(), calls(before).sort());
    // every kept transcript comes back: messages and events as the source held them
    const kept = await keptTranscripts(first);
    assert.deepEqual(await keptTranscripts(again), kept);
    // python3: the browser log's sample has 10 messages, 4 of them assistant turns with a tool call
    const browser = kept["openai/gpt-4o-mini"].map((text) => JSON.parse(text)[0])
      .find((messages) => messages.some((m: Obj) => m.tool_calls !== undefined));
    assert.equal(browser.length, 10);
    // task ids come back under the exported task's name
    assert.ok(after.every((r) => r.task_id.startsWith("ledgerbench/")));
    for (const path of logs) await checkEvalLog(path);
    // the same ledger exports to byte-identical files
    const second = await exportLogs(first, `${dir}/a/inspect-again`);
    assert.deepEqual(
      await Promise.all(second.map(fileSha256)),
      await Promise.all(logs.map(fileSha256)),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("export inspect writes a runner row's model calls, its verdict and its tokens (null stays absent)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ledger = await runnerLedger(dir);
    const [path] = await exportLogs(ledger, `${dir}/inspect`);
    assert.equal(path, `${dir}/inspect/a.eval`);
    const entries = await checkEvalLog(path);
    const sample = (task: string) => entries.get(`samples/${task}_epoch_1.json`) as Obj;
    const t1 = sample("t1");
    assert.deepEqual(t1.scores, { ledgerbench: { value: "C" } });
    assert.deepEqual(t1.model_usage, {
      a: { input_tokens: 120, output_tokens: 30, total_tokens: 150 },
    });
    assert.equal(t1.total_time, 1.5);
    assert.equal(t1.input, "Fix the bug in <main.py>");
    assert.deepEqual(t1.messages, [
      { content: "Fix the bug in <main.py>", role: "user" },
      {
        content: "",
        role: "assistant",
        tool_calls: [{ id: "c1", function: "sh", arguments: { cmd: "ls" }, type: "function" }],
      },
      { content: "main.py", role: "tool", tool_call_id: "c1" },
      { content: "Fixed.", role: "assistant" },
    ]);
    assert.equal((t1.metadata as { ledgerbench: Obj }).ledgerbench.episode_id, "r1/a/t1/1");
    const t2 = sample("t2");
    assert.deepEqual([t2.scores, t2.model_usage, t2.messages], [
      { ledgerbench: { value: "I" } },
      {},
      [],
    ]);
    // 1 resolved of 2 scored (t3 is invalid, unscored): Inspect's accuracy 0.5
    const header = entries.get("header.json") as { results: { scores: Obj[] } };
    assert.deepEqual(header.results.scores[0].metrics, {
      accuracy: { name: "accuracy", value: 0.5, params: {} },
    });
    const t3 = sample("t3");
    assert.equal(t3.scores, undefined);
    assert.deepEqual(t3.error, {
      message: "invalid (harness_error): the container did not start",
      traceback: "",
      traceback_ansi: "",
    });
    // read back by our importer: the same counts; t2's tokens stay not recorded
    await Deno.mkdir(`${dir}/b`);
    const again = `${dir}/b/ledger.jsonl`;
    assert.equal((await run("import", "inspect", path, "--out", again)).code, 0);
    const after = await readRows(again);
    assert.deepEqual(counts(after), counts(await readRows(ledger)));
    assert.deepEqual(after.map((r) => r.prompt_tokens), [120, null, 10]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the demo and synthetic example ledgers export and import again with the same counts", async () => {
  for (const [ledger, errata, plan] of EXAMPLE_LEDGERS) {
    const dir = await Deno.makeTempDir();
    try {
      const logs = await exportLogs(ledger, `${dir}/inspect`, "--errata", errata, "--plan", plan);
      const again = `${dir}/ledger.jsonl`;
      const result = await run("import", "inspect", ...logs, "--out", again);
      assert.equal(result.code, 0, result.stderr);
      // the rows as every command counts them: the errata applied (loadLedger's view)
      const { loadLedger } = await import("../cli/_load.ts");
      const loaded = await loadLedger(ledger, { errata });
      assert.deepEqual(counts(await readRows(again)), counts([...loaded.rows]));
      const planned = JSON.parse(await Deno.readTextFile(plan)).tasks.length;
      assert.equal((await taskList(again))[0], planned);
      for (const path of logs) await checkEvalLog(path);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("view shows an imported Inspect row's messages and tool calls, escaped", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ledger = `${dir}/ledger.jsonl`;
    const log = `${INSPECT}/2025-05-12T20-27-36-04-00_browser.json`;
    assert.equal((await run("import", "inspect", log, "--out", ledger)).code, 0);
    const [row] = await readRows(ledger);
    const place = { ledger, artifacts: `${dir}/artifacts`, named: false };
    const evidence = await rowEvidence({ row, index: 0, line: 1 }, place);
    assert.equal(evidence.problem, null);
    const html = episodePage(evidence, []);
    // python3: the sample's first tool call is web_browser_go {"url": "https://www.aisi.gov.uk/"};
    // its first tool result opens '[132] link "We are now the AI Security Institute"'
    assert.ok(html.includes("Transcript (10 messages, as the source kept them)"));
    assert.ok(html.includes("<code>web_browser_go</code>"));
    assert.ok(html.includes("{&quot;url&quot;:&quot;https://www.aisi.gov.uk/&quot;}"));
    assert.ok(html.includes("[132] link &quot;We are now the AI Security Institute&quot;"));
    assert.ok(html.includes("Tool calls in the model's replies (4)"));
    // show counts them
    const shown = await run("show", row.episode_id, "--ledger", ledger, "--width", "200");
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(shown.stdout.includes(
      "transcript kept from the source (inspect): 10 messages, 4 tool calls",
    ));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("export inspect: bad input gets one line and the documented exit status", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await refusesBadInput("inspect", dir);
    const file = `${dir}/taken`;
    const format = await run("export", "csv", "ledgers/demo/ledger.jsonl", "--out", file);
    assert.equal(format.code, 1);
    assert.ok(
      format.stderr.startsWith('error: Unknown format "csv": expected "inspect" or "harbor"\n'),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a Harbor trial's agent trajectory is kept, shown and exported; a bad one is a warning", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const job = `${dir}/job`;
    await Deno.mkdir(job);
    const fixture = "tests/fixtures/import/harbor/2026-08-22__10-00-00";
    for (const name of ["config.json", "result.json"]) {
      await Deno.copyFile(`${fixture}/${name}`, `${job}/${name}`);
    }
    for (const trial of ["hello-world__Xk2PqLm", "fix-git__Zq3xk9A"]) {
      await Deno.mkdir(`${job}/${trial}/agent`, { recursive: true });
      await Deno.copyFile(`${fixture}/${trial}/result.json`, `${job}/${trial}/result.json`);
    }
    const trajectory = "tests/fixtures/import/harbor_atif/trajectory.json";
    await Deno.copyFile(trajectory, `${job}/hello-world__Xk2PqLm/agent/trajectory.json`);
    await Deno.writeTextFile(`${job}/fix-git__Zq3xk9A/agent/trajectory.json`, '{"steps": [\n');
    const ledger = `${dir}/ledger.jsonl`;
    const imported = await run("import", "harbor", job, "--out", ledger);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(
      imported.stderr.replace(/\n {2}/g, " "),
      /warning: \S+\/fix-git__Zq3xk9A\/agent\/trajectory\.json:2: [^\n]*: the trial's row keeps no transcript\n/,
    );
    const rows = await readRows(ledger);
    const hello = rows.find((r) => r.task_id === "hello-world")!;
    assert.equal(rows.find((r) => r.task_id === "fix-git")!.episode_log_digest, undefined);
    // the trajectory is stored as the file holds it
    const log = await openEpisodeLog(`${dir}/artifacts`, hello.episode_log_digest!);
    assert.deepEqual(log.imported, {
      format: "atif",
      record: await Deno.readTextFile(trajectory),
    });
    const place = { ledger, artifacts: `${dir}/artifacts`, named: false };
    const line = rows.indexOf(hello) + 1;
    const html = episodePage(await rowEvidence({ row: hello, index: 0, line }, place), []);
    assert.ok(html.includes("Transcript (4 messages, as the source kept them)"));
    assert.ok(html.includes("<code>Write</code>"));
    const [path] = await exportLogs(ledger, `${dir}/inspect`);
    const entries = await checkEvalLog(path);
    const sample = entries.get("samples/hello-world_epoch_1.json") as { messages: Obj[] };
    // python3: the trajectory's 3 steps: the instruction, one Write call and its result, the reply
    assert.deepEqual(sample.messages.map((m) => m.role), [
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    assert.deepEqual((sample.messages[1].tool_calls as Obj[])[0], {
      id: "toolu_01Rmm2GPxpGq9Er31axjfYRv",
      function: "Write",
      arguments: { file_path: "/app/hello.txt", content: "Hello, world!\n" },
      type: "function",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("export inspect applies the errata and names them in the samples they changed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const logs = await exportLogs(
      "ledgers/examples/synthetic_ledger.jsonl",
      `${dir}/inspect`,
      "--errata",
      "ledgers/examples/synthetic_errata.jsonl",
    );
    const entries = await checkEvalLog(logs.find((p) => p.endsWith("/agent-delta.eval"))!);
    // synthetic_errata.jsonl: errata-0002 invalidates synthetic-2026-09/agent-delta/D04/1, which
    // the ledger records as resolved (workspace_tampered)
    const sample = entries.get("samples/D04_epoch_1.json") as Obj;
    assert.equal(sample.scores, undefined);
    assert.match((sample.error as { message: string }).message, /^invalid \(workspace_tampered\)/);
    const row = (sample.metadata as { ledgerbench: Obj }).ledgerbench;
    assert.deepEqual([row.episode_id, row.corrected_by], [
      "synthetic-2026-09/agent-delta/D04/1",
      ["errata-0002"],
    ]);
    const header = entries.get("header.json") as { eval: { metadata: { ledgerbench: Obj } } };
    const errata = header.eval.metadata.ledgerbench.errata as Obj;
    assert.deepEqual([errata.path, errata.applied], ["ledgers/examples/synthetic_errata.jsonl", 2]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
