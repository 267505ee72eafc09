/**
 * `ledgerbench show` (run in the test process, `cliInProcess`): a row with a stored episode log, a row
 * without one, a missing or altered log, an unknown episode id, escaping.
 *
 * @module
 */
import assert from "node:assert/strict";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { storeEpisodeLog } from "../runner/episode_log_store.ts";
import { callRecord, refusedRecord } from "../runner/relay/_call_record_for_test.ts";
import { cliInProcess, fileSha256, row, writeJsonl } from "./_cli_run.ts";

/** Lines pinned whole: the text at a width that folds nothing (`--width`). */
const WIDE = ["--width", "400"];

const RECORDS = [
  callRecord(1, { server_model_id: "demo-weak-1", latency_ms: 12.4 }),
  refusedRecord(2, "step_cap"),
];

/** A ledger of two rows, the first with a stored log (in `<dir>/artifacts`), the second without. */
async function fixture(dir: string, stderrTail = "Traceback: crashed on purpose\n") {
  const stored = await storeEpisodeLog(`${dir}/artifacts`, {
    episode_id: "r1/crasher/t1/1",
    stdoutTail: "reading TASK.md\n",
    stderrTail,
    records: [{ ...RECORDS[1], detail: "step cap 1 reached" }, RECORDS[0]],
    bodies: [
      {
        index: 1,
        endpoint: "/v1/chat/completions",
        request: { text: '{"model":"demo-weak-1"}', bytes: 23, truncated: false },
        response: { text: '{"model":"demo-weak-1",', bytes: 180, truncated: true },
      },
      {
        index: 2,
        endpoint: "/v1/chat/completions",
        request: { text: '{"model":"demo-weak-1"}', bytes: 23, truncated: false },
        response: { text: '{"error":{"code":"step_cap"}}', bytes: 29, truncated: false },
      },
    ],
  });
  const ledger = await writeJsonl(`${dir}/ledger.jsonl`, [
    row({
      agent_id: "crasher",
      resolved: false,
      episode_log_digest: stored.digest,
      notes: "candidate exit code 70",
    }),
    row({ agent_id: "old", resolved: true }),
  ]);
  return { ledger, stored };
}

Deno.test("show prints the row, each call and the output tails of a stored log", async () => {
  await using dir = await tempDir();
  const { ledger, stored } = await fixture(dir.path);
  const result = await cliInProcess("show", "r1/crasher/t1/1", "--ledger", ledger, ...WIDE);
  assert.equal(result.stderr, "");
  assert.equal(result.code, 0);
  const sha = await fileSha256(ledger);
  assert.equal(
    result.stdout,
    `ledger: ${ledger} (sha256 ${sha}), line 1
episode: r1/crasher/t1/1
outcome: not resolved, stop reason completed
notes: candidate exit code 70

row:
  {
    "agent_id": "crasher",
    "artifact_digest": null,
    "attempt": 1,
    "caps": {
      "step_cap": null,
      "token_cap": null,
      "wall_ms_cap": null
    },
    "completion_tokens": 50,
    "environment": null,
    "episode_id": "r1/crasher/t1/1",
    "episode_log_digest": "${stored.digest}",
    "evidence": null,
    "finished_at": null,
    "invalid_reason": null,
    "lane": "default",
    "model_calls": null,
    "notes": "candidate exit code 70",
    "price_table_id": "local-0",
    "prompt_tokens": 100,
    "resolved": false,
    "run_id": "r1",
    "schema_version": 1,
    "seed": 7,
    "started_at": null,
    "status": "scored",
    "stop_reason": "completed",
    "task_id": "t1",
    "tool_calls": 1,
    "wall_ms": 1000
  }

episode log: ${stored.digest} in ${dir.path}/artifacts (content checked)

calls: 2
#  endpoint              status  model        prompt  completion  tools  latency ms  outcome
-  --------------------  ------  -----------  ------  ----------  -----  ----------  -----------------
2  /v1/chat/completions     403  -                 -           -      0           0  refused: step_cap
1  /v1/chat/completions     200  demo-weak-1      10           5      0          12  forwarded
  #2 step cap 1 reached

bodies (--json prints what was kept of each):
  #1 /v1/chat/completions: request 23 bytes, response 180 bytes (first 23 kept)
  #2 /v1/chat/completions: request 23 bytes, response 29 bytes

stdout tail:
  | reading TASK.md

stderr tail:
  | Traceback: crashed on purpose
`,
  );
});

Deno.test("show prints what the token cap did to each call, its provider features and the requests refused outside the model APIs", async () => {
  await using dir = await tempDir();
  const stored = await storeEpisodeLog(`${dir.path}/artifacts`, {
    episode_id: "r1/claude/t1/1",
    stdoutTail: "",
    stderrTail: "",
    records: [
      callRecord(1, {
        endpoint: "/v1/messages",
        output_cap: 3041,
        prompt_bound: 16959,
        prompt_bound_source: "count",
        cap_lowered: true,
        provider_features: ["web_search"],
      }),
      callRecord(2, {
        endpoint: "/v1/messages",
        usage: null,
        fault: "aborted",
        spend_unknown: true,
        output_cap: 100,
        prompt_bound: 900,
        cap_lowered: false,
      }),
    ],
    bodies: [],
    denied: [
      { method: "HEAD", target: "/api/hello", status: 404, code: "not_found" },
      { method: "GET", target: "/x\u001b[2Jy", status: 404, code: "not_found" },
    ],
  });
  const ledger = await writeJsonl(`${dir.path}/ledger.jsonl`, [
    row({ agent_id: "claude", resolved: true, episode_log_digest: stored.digest }),
  ]);
  const result = await cliInProcess("show", "r1/claude/t1/1", "--ledger", ledger, ...WIDE);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split("\n");
  const from = lines.findIndex((line) => line.startsWith("  #1 prompt bound"));
  assert.deepEqual(lines.slice(from, from + 7), [
    "  #1 prompt bound 16959 (the provider's count), output cap 3041 (lowered by the token cap); " +
    "provider features: web_search",
    "  #2 prompt bound 900, output cap 100; spend unknown: its usage never arrived",
    "",
    "requests refused outside the model APIs: 2",
    "  HEAD /api/hello: 404 not_found",
    // The agent's ESC never reaches the terminal.
    "  GET /x\\x1b[2Jy: 404 not_found",
    "",
  ]);
});

Deno.test("show --json prints the row and the stored log as canonical JSON", async () => {
  await using dir = await tempDir();
  const { ledger, stored } = await fixture(dir.path);
  const result = await cliInProcess("show", "r1/crasher/t1/1", "--ledger", ledger, "--json");
  assert.equal(result.code, 0);
  const payload = JSON.parse(result.stdout);
  assert.deepEqual(Object.keys(payload), ["artifacts", "episode", "episode_log", "ledger", "line"]);
  assert.equal(payload.artifacts, `${dir.path}/artifacts`);
  assert.equal(payload.episode.episode_log_digest, stored.digest);
  assert.equal(payload.episode_log.stderr_tail, "Traceback: crashed on purpose\n");
  assert.deepEqual(payload.episode_log.calls.map((c: { index: number }) => c.index), [2, 1]);
  assert.equal(payload.episode_log.bodies[1].response.text, '{"error":{"code":"step_cap"}}');
  assert.deepEqual(payload.ledger, { path: ledger, sha256: await fileSha256(ledger) });
  assert.equal(payload.line, 1);
});

Deno.test("show prints a row without a stored log and says so", async () => {
  await using dir = await tempDir();
  const { ledger } = await fixture(dir.path);
  const result = await cliInProcess("show", "r1/old/t1/1", "--ledger", ledger, ...WIDE);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^ledger: .*, line 2\nepisode: r1\/old\/t1\/1\noutcome: resolved,/);
  assert.ok(
    result.stdout.endsWith(
      "\nepisode log: no stored log (the row has no episode_log_digest)\n",
    ),
  );
});

Deno.test("show refuses a missing store or log, an altered log and an unknown id (exit 2, one line)", async () => {
  await using dir = await tempDir();
  const { ledger, stored } = await fixture(dir.path);
  const missing = await cliInProcess(
    "show",
    "r1/crasher/t1/1",
    "--ledger",
    ledger,
    "--artifacts",
    dir.path,
  );
  assert.deepEqual(missing, {
    code: 2,
    stdout: "",
    stderr: `error: ${ledger}:1: field "episode_log_digest": Cannot open episode log ` +
      `"${stored.digest}": not in "${dir.path}"\n`,
  });

  await Deno.chmod(stored.path, 0o644);
  await Deno.writeTextFile(stored.path, "{}\n");
  const tampered = await cliInProcess("show", "r1/crasher/t1/1", "--ledger", ledger, ...WIDE);
  assert.equal(tampered.code, 2);
  assert.equal(tampered.stdout, "");
  assert.equal(
    tampered.stderr,
    `error: ${ledger}:1: field "episode_log_digest": Cannot open episode log "${stored.digest}": ` +
      `"${stored.path}" has digest ` +
      // sha256("{}\n"), `printf '{}\n' | sha256sum`
      `"sha256:ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356"\n`,
  );

  // No store where the default points (the log is elsewhere): the error says how to name it.
  await Deno.rename(`${dir.path}/artifacts`, `${dir.path}/elsewhere`);
  const nowhere = await cliInProcess("show", "r1/crasher/t1/1", "--ledger", ledger, ...WIDE);
  assert.deepEqual(nowhere, {
    code: 2,
    stdout: "",
    stderr: `error: ${ledger}:1: field "episode_log_digest": No artifact store at ` +
      `"${dir.path}/artifacts" (the default, artifacts/ beside the ledger): name the run's ` +
      "store with --artifacts DIR\n",
  });

  const unknown = await cliInProcess("show", "r1/nobody/t1/1", "--ledger", ledger, ...WIDE);
  assert.deepEqual(unknown, {
    code: 2,
    stdout: "",
    stderr: `error: ${ledger}: no row has episode_id "r1/nobody/t1/1"\n`,
  });
});

Deno.test("show escapes control characters from the log and the ledger", async () => {
  await using dir = await tempDir();
  const { ledger } = await fixture(dir.path, "\x1b[2J\x1b]0;owned\x07fake\rline \u202eevil\n");
  const result = await cliInProcess("show", "r1/crasher/t1/1", "--ledger", ledger, ...WIDE);
  assert.equal(result.code, 0);
  assert.ok(!["\x1b", "\x07", "\r", "\u202e"].some((c) => result.stdout.includes(c)));
  assert.ok(
    result.stdout.endsWith(
      "stderr tail:\n  | \\x1b[2J\\x1b]0;owned\\x07fake\\x0dline \\u202eevil\n",
    ),
  );
  const json = await cliInProcess("show", "r1/crasher/t1/1", "--ledger", ledger, "--json");
  assert.ok(!["\x1b", "\x07", "\r", "\u202e"].some((c) => json.stdout.includes(c)));
  assert.equal(
    JSON.parse(json.stdout).episode_log.stderr_tail,
    "\x1b[2J\x1b]0;owned\x07fake\rline \u202eevil\n",
  );
});

Deno.test("show prints the verification record and the verifier's output tails, escaped", async () => {
  await using dir = await tempDir();
  const stored = await storeEpisodeLog(`${dir.path}/artifacts`, {
    episode_id: "r1/a/t1/1",
    stdoutTail: "",
    stderrTail: "",
    records: [],
    bodies: [],
    verifier: {
      mode: "shared",
      stdoutTail:
        "FAILED test_outputs.py::test_double - assert 41 == 42\n\x1b[31m1 failed\x1b[0m\n",
      stderrTail: "",
    },
  });
  const ledger = await writeJsonl(`${dir.path}/ledger.jsonl`, [
    row({
      resolved: false,
      episode_log_digest: stored.digest,
      verification: {
        mode: "shared",
        reward: { correctness: 1, "perf\nformance\u202e": 0.7 },
        reward_file: "reward.json",
        decided_by: "min of 2 keys",
        hijacks: [{ flag: "conftest", path: "/app/conftest.py\x1b]0;x\x07" }],
        egress_allowed: 2,
        egress_denied: 1,
      },
    }),
    row({
      task_id: "t2",
      resolved: true,
      verification: { mode: "sealed", reward: null, reward_file: null, decided_by: null },
    }),
  ]);
  const shown = await cliInProcess("show", "r1/a/t1/1", "--ledger", ledger, ...WIDE);
  assert.equal(shown.code, 0, shown.stderr);
  assert.ok(!["\x1b", "\x07", "\u202e"].some((c) => shown.stdout.includes(c)));
  const head = shown.stdout.split("\n\nrow:\n")[0];
  assert.equal(
    head.split("\n").slice(2).join("\n"),
    [
      "outcome: not resolved, stop reason completed",
      "verification: shared (the verifier ran in the candidate's own container: the verdict is not sealed)",
      "  reward (reward.json): correctness 1, perf\\nformance\\u202e 0.7",
      "  decided by: min of 2 keys",
      "  hijacks found: conftest /app/conftest.py\\x1b]0;x\\x07",
      "  egress through the proxy: 2 allowed, 1 denied",
    ].join("\n"),
  );
  assert.ok(
    shown.stdout.endsWith(
      "verifier stdout tail (shared mode):\n" +
        "  | FAILED test_outputs.py::test_double - assert 41 == 42\n" +
        "  | \\x1b[31m1 failed\\x1b[0m\n" +
        "\nverifier stderr tail:\n  (empty)\n",
    ),
    shown.stdout,
  );
  // A sealed verdict by the JSON line: the mode, no reward, nothing about hijacks or egress.
  const sealed = await cliInProcess("show", "r1/a/t2/1", "--ledger", ledger, ...WIDE);
  assert.equal(sealed.code, 0, sealed.stderr);
  assert.ok(
    sealed.stdout.includes(
      "verification: sealed\n  reward: none read (a JSON-line verdict, or no reward file was read)\n\nrow:",
    ),
    sealed.stdout,
  );
  // --json keeps both whole
  const json = JSON.parse(
    (await cliInProcess("show", "r1/a/t1/1", "--ledger", ledger, "--json")).stdout,
  );
  assert.deepEqual(json.episode.verification.reward, {
    correctness: 1,
    "perf\nformance\u202e": 0.7,
  });
  assert.equal(json.episode_log.verifier.mode, "shared");
});

Deno.test("show without --ledger is a usage error (exit 1)", async () => {
  const result = await cliInProcess("show", "r1/a/t1/1");
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^error: Missing option: "--ledger"\n\nPrint what happened/);
});
