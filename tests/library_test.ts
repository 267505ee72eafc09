/**
 * The public module (`mod.ts`) on ledgers written here: the inputs
 * `openLedger` finds and declines, the model-call and message frames read
 * from a stored episode log, the solve matrix's nulls, and the leaderboard
 * frame against the report's own summary. In process: no subprocess adds
 * anything to what these functions return.
 *
 * @module
 */
import assert from "node:assert/strict";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { storeEpisodeLog } from "../runner/episode_log_store.ts";
import { callRecord, refusedRecord } from "../runner/relay/_call_record_for_test.ts";
import { agentsFrame, callsFrame, messagesFrame, openLedger, solveMatrix } from "../mod.ts";
import { cliInProcess, row, writeJsonl } from "./_cli_run.ts";

const DEMO = new URL("../ledgers/demo/ledger.jsonl", import.meta.url).pathname;

/** A chat-completions conversation: the task, a shell call, its result, the final answer. */
const REQUEST = JSON.stringify({
  model: "m",
  messages: [
    { role: "user", content: "Count the words in input.txt" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "shell", arguments: '{"command":["wc","-w","input.txt"]}' },
      }],
    },
    { role: "tool", tool_call_id: "call_1", content: "42 input.txt" },
  ],
});
const RESPONSE = JSON.stringify({
  model: "m-1",
  choices: [{
    index: 0,
    message: { role: "assistant", content: "There are 42 words." },
    finish_reason: "stop",
  }],
  usage: { prompt_tokens: 120, completion_tokens: 9 },
});

/** A run's directory: `ledger.jsonl` with one logged row, its plan-less neighbours, `artifacts/`. */
async function runDirectory(dir: string): Promise<string> {
  const stored = await storeEpisodeLog(`${dir}/artifacts`, {
    episode_id: "r1/a/t1/1",
    stdoutTail: null,
    stderrTail: null,
    records: [
      callRecord(1, { usage: { prompt_tokens: 120, completion_tokens: 9 }, latency_ms: 40 }),
      refusedRecord(2, "step_cap"),
    ],
    bodies: [{
      index: 1,
      endpoint: "/v1/chat/completions",
      request: { text: REQUEST, bytes: REQUEST.length, truncated: false },
      response: { text: RESPONSE, bytes: RESPONSE.length, truncated: false },
    }],
  });
  return await writeJsonl(`${dir}/ledger.jsonl`, [
    row({ agent_id: "a", task_id: "t1", episode_log_digest: stored.digest }),
    row({ agent_id: "a", task_id: "t2", resolved: false }),
    row({ agent_id: "b", task_id: "t1", resolved: false }),
    row({
      agent_id: "b",
      task_id: "t2",
      status: "invalid",
      invalid_reason: "verifier_fault",
      resolved: null,
    }),
  ]);
}

Deno.test("openLedger() finds a run's files beside ledger.jsonl, and nothing beside another name", async () => {
  const demo = await openLedger(DEMO);
  assert.deepEqual(
    [demo.sources.plan.source, demo.sources.errata.source, demo.sources.price_table.source],
    ["beside_ledger", "beside_ledger", "beside_ledger"],
  );
  // The committed demo keeps no artifacts; a declined plan is not read.
  assert.equal(demo.sources.artifacts.source, "none");
  const declined = await openLedger(DEMO, { plan: null });
  assert.deepEqual(declined.sources.plan, { path: null, source: "declined" });
  assert.equal(declined.inputs.plan, null);
  // The examples directory holds a price table for another ledger: a ledger not named
  // ledger.jsonl has nothing looked for beside it (seed 001's sample names "local-0").
  const sample = await openLedger(
    new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname,
  );
  assert.equal(sample.sources.price_table.source, "none");
  assert.equal(sample.rows.length, 8);
});

Deno.test("callsFrame() and messagesFrame() read the stored log's calls and transcript", async () => {
  await using dir = await tempDir();
  const run = await openLedger(await runDirectory(dir.path));
  assert.equal(run.sources.artifacts.source, "beside_ledger");
  const calls = await callsFrame(run);
  assert.deepEqual(calls["index"].values, [1, 2]);
  assert.deepEqual(calls["prompt_tokens"].values, [120, null]);
  assert.deepEqual(calls["refusal"].values, [null, "step_cap"]);
  assert.deepEqual(calls["latency_ms"].values, [40, 0]);
  const messages = await messagesFrame(run);
  assert.deepEqual(
    messages.values.map((m) => (m as unknown[]).slice(3)),
    [
      [1, "user", "text", "Count the words in input.txt", null, null],
      [
        2,
        "assistant",
        "tool_call",
        '{"command":["wc","-w","input.txt"]}',
        "shell",
        "call_1",
      ],
      [3, "tool", "tool_result", "42 input.txt", null, "call_1"],
      [4, "assistant", "text", "There are 42 words.", null, null],
    ],
  );
});

Deno.test("solveMatrix() is null where nothing was scored: a missing task, an invalid attempt", async () => {
  await using dir = await tempDir();
  const ledger = await runDirectory(dir.path);
  await Deno.writeTextFile(
    `${dir.path}/ledger.tasks.json`,
    JSON.stringify({ tasks: ["t1", "t2", "t3"].map((task_id) => ({ task_id })) }),
  );
  const matrix = solveMatrix(await openLedger(ledger));
  assert.deepEqual(matrix.index, ["t1", "t2", "t3"]);
  const column = (agent: string) => matrix[agent].values;
  assert.deepEqual(column("a"), [1, 0, null]);
  // b's t2 was invalid (never scored, seed 000), t3 missing: neither is a 0.
  assert.deepEqual(column("b"), [0, null, null]);
});

Deno.test("agentsFrame() is the report's leaderboard, in its order, with its figures", async () => {
  const run = await openLedger(DEMO);
  const summary = run.report().summary;
  const board = agentsFrame(run);
  assert.deepEqual(board["agent_id"].values, summary.leaderboard.map((p) => p.agent_id));
  assert.deepEqual(board["rank"].values, summary.leaderboard.map((p) => p.rank));
  const agents = new Map(summary.agents.map((a) => [a.agent_id, a]));
  assert.deepEqual(
    board["resolved_rate"].values,
    summary.leaderboard.map((p) => agents.get(p.agent_id)!.resolved_rate),
  );
  const perResolved = new Map(summary.per_resolved.agents.map((a) => [a.agent_id, a]));
  assert.deepEqual(
    board["tokens_per_resolved_lower"].values,
    summary.leaderboard.map((p) => perResolved.get(p.agent_id)!.tokens_per_resolved.lo),
  );
  // The demo: the strong model's solver resolves all 7 tasks, the weak one's 5 of 7.
  assert.deepEqual(board["resolved"].values, [7, 5]);
  assert.deepEqual(board["claim"].values, ["headline", "headline"]);
});

Deno.test("messagesFrame() reads an imported Inspect log's kept messages", async () => {
  await using dir = await tempDir();
  const source =
    new URL("../ledgers/examples/imported/popularity_inspect_log.json", import.meta.url)
      .pathname;
  const imported = await cliInProcess(
    "import",
    "inspect",
    source,
    "--out",
    `${dir.path}/ledger.jsonl`,
  );
  assert.equal(imported.code, 0, imported.stderr);
  const run = await openLedger(`${dir.path}/ledger.jsonl`);
  const messages = await messagesFrame(run);
  const log = JSON.parse(await Deno.readTextFile(source));
  // One row per message part the log's samples hold, in sample order (each here one text part).
  const expected = log.samples.flatMap((s: { messages: unknown[] }) => s.messages).length;
  assert.equal(messages.shape[0], expected);
  assert.deepEqual(
    [...new Set(messages["role"].values as string[])].sort(),
    ["assistant", "system", "user"],
  );
});
