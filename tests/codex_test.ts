/**
 * The OpenAI Codex CLI (`ledgerbench/agent-codex`, containers/agents/codex.sh)
 * in the sandbox on the real engine (issue 8, "Bring your own agent"),
 * against the scripted provider through the relay: on a demo task (c2, a
 * sum over a CSV) the script asks for one `exec_command` tool call that
 * writes the answer, then finishes; Codex runs the command with busybox
 * `sh`, the row is resolved with both Responses calls, their tokens and
 * evidence recorded; the plan's agent `env` reaches the tool's shell and its
 * `command` Codex's options. With a step cap of 1 the second call is refused
 * and the row says `step_cap`. A plan whose agent env or command holds the
 * upstream key is a harness error before any container starts. Under
 * `--token-cap 1200 --max-output-tokens 100` (issue 21 item 3) Codex's first
 * call, whose prompt bound alone (40,627) is over the cap, is refused: a
 * scored failure with zero metered calls, `token_cap`, and a ledger that
 * passes `validate --plan` (the real CLI exits 0). Every runner-written
 * ledger with scored rows here passes `validate --plan`.
 *
 * Skipped when no engine answers (CI has one: .ci/install_docker.sh).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { requireDockerEngine } from "./_docker_engine.ts";
import { type PlanChoices, realAgentEpisode, type RealAgentRun } from "./_real_agent_episode.ts";

const ENGINE = await requireDockerEngine("tests/codex_test.ts");
const ignore = !ENGINE.available;
const MODEL = "m-codex";

/**
 * A token cap that admits both of Codex's calls: "m-codex" has no published
 * tokenizer, so each prompt is bounded by its bytes (about 41,000 and 42,000:
 * `prompt_token_bound.ts`), above the demo task's own cap of 20,000.
 */
const BYTES_BOUND_CAP = 200_000;

/** What one {@linkcode codexEpisode} gives back: a run with the real CLI's `validate`. */
interface CodexRun extends RealAgentRun {
  /** The real CLI's `validate LEDGER --plan PLAN`: its exit status and output. */
  validate: { code: number; stdout: string };
}

/**
 * One Codex episode on the c2 task, with the plan's `caps`, `model_limits`
 * and agent `env` and `command` as `choose` gives them for the episode's
 * upstream key; its one tool call is `exec_command` (busybox `sh`), which
 * writes the answer, then echoes `$CODEX_TEST_NOTE`; each reply reports the
 * script's usage. Returns the row, what the provider received, the tool
 * command, the relay's call records and bodies and the ledger's validation
 * against its plan (the function the CLI uses, and the real CLI).
 */
async function codexEpisode(choose: (key: string) => PlanChoices): Promise<CodexRun> {
  const run = await realAgentEpisode({
    agentId: "codex",
    image: "ledgerbench/agent-codex",
    model: MODEL,
    toolCall: (cmd) => ({ name: "exec_command", arguments: JSON.stringify({ cmd }) }),
    then: 'echo "note=$CODEX_TEST_NOTE"',
    usage: "scripted",
    plan: choose,
    cliValidate: true,
  });
  ok(run.validate !== null);
  return { ...run, validate: run.validate };
}

Deno.test({
  name:
    "agent-codex solves a demo task through the relay: two Responses calls, tokens, evidence; the plan's env and command reach it",
  ignore,
  async fn() {
    const { row, requests, cmd, errors } = await codexEpisode(() => ({
      caps: { token_cap: BYTES_BOUND_CAP },
      env: { CODEX_TEST_NOTE: "from-the-plan" },
      command: ["codex-agent", "-c", 'model_reasoning_effort="low"'],
    }));
    // The runner's ledger passes `validate --plan` (issue 21).
    deepEqual(errors, []);
    equal(row.status, "scored", row.notes);
    equal(row.resolved, true, row.notes);
    equal(row.stop_reason, "completed");
    equal(row.model_calls, 2);
    // Both calls forwarded; the one tool call is within them (tool_calls = max of the two).
    equal(row.tool_calls, 2);
    // The script's usage: 1200 + 1300 prompt, 30 + 5 completion tokens.
    equal(row.prompt_tokens, 2500);
    equal(row.completion_tokens, 35);
    equal(row.evidence?.server_model_id, MODEL);
    equal(row.evidence?.usage_source, "server");
    match(row.evidence?.request_fingerprint ?? "", /^[0-9a-f]{64}$/);
    equal(row.evidence?.unmetered_requests, 0);
    ok(row.artifact_digest !== null);

    // What Codex sent: two streamed Responses calls for the pinned model, the
    // second carrying the tool call and its output (busybox sh ran it: exit 0).
    deepEqual(
      requests.map((r) => [r.method, r.path, r.api, r.turn, r.matched, r.status]),
      [
        ["POST", "/v1/responses", "responses", 0, "rule 0", 200],
        ["POST", "/v1/responses", "responses", 1, "rule 1", 200],
      ],
    );
    const bodies = requests.map((r) => r.body as Record<string, unknown>);
    for (const body of bodies) {
      equal(body.model, MODEL);
      equal(body.stream, true);
      ok(
        (body.tools as Array<{ name?: string }>).some((tool) => tool.name === "exec_command"),
        "Codex offers its exec_command tool",
      );
    }
    const second = bodies[1].input as Array<Record<string, unknown>>;
    const call = second.find((item) => item.type === "function_call");
    const output = second.find((item) => item.type === "function_call_output");
    equal(call?.name, "exec_command");
    equal(JSON.parse(call?.arguments as string).cmd, cmd);
    equal(output?.call_id, call?.call_id);
    match(output?.output as string, /Process exited with code 0/);
    // The plan's env reached the tool's shell, and its command Codex's options.
    match(output?.output as string, /note=from-the-plan/);
    for (const body of bodies) equal((body.reasoning as { effort?: string }).effort, "low");
  },
});

Deno.test({
  name: "agent-codex under a step cap of 1: the second call is refused, the row says step_cap",
  ignore,
  async fn() {
    // The image's own command (no plan command): Codex's default reasoning settings.
    const { row, requests, errors } = await codexEpisode(() => ({
      caps: { token_cap: BYTES_BOUND_CAP, step_cap: 1 },
    }));
    deepEqual(errors, []);
    equal((requests[0].body as { reasoning?: { effort?: string } }).reasoning?.effort, undefined);
    equal(row.stop_reason, "step_cap", row.notes);
    // The one forwarded call's tool command already wrote the answer: the
    // stored workspace is verified like any other, and it passes.
    equal(row.status, "scored", row.notes);
    equal(row.resolved, true, row.notes);
    equal(row.model_calls, 1);
    equal(row.prompt_tokens, 1200);
    equal(row.completion_tokens, 30);
    equal(row.caps.step_cap, 1);
    // Only the first call reached the upstream; Codex does not retry the refusal.
    equal(requests.length, 1);
    equal(requests[0].turn, 0);
    match(row.notes ?? "", /candidate exit code 1/);
  },
});

Deno.test({
  name: "a plan whose agent env or command holds the upstream key never starts the sandbox",
  ignore,
  async fn() {
    for (
      const choose of [
        (key: string) => ({ env: { CODEX_TEST_NOTE: `k=${key}` } }),
        (key: string) => ({ command: ["codex-agent", "-c", `model_provider="${key}"`] }),
      ]
    ) {
      const { row, requests, errors, validate } = await codexEpisode(choose);
      // The harness's own refusal leaves the task without a scored attempt: `validate --plan`
      // says so (and only so), and exits 3 until it is re-run under a plan the harness accepts.
      deepEqual(errors, [
        'no_scored_attempt: task "c2-filter-sum" has 1 invalid attempt(s) and no scored one ' +
        'for agent "codex"',
        "row_count: 0 scored rows of planned agents and tasks, the plan calls for 1 (1 tasks × 1 agents)",
      ]);
      equal(validate.code, 3);
      equal(row.status, "invalid");
      equal(row.invalid_reason, "harness_error");
      match(row.notes ?? "", /Refusing to start the candidate: .* contains a forbidden value/);
      equal(row.model_calls, 0);
      equal(requests.length, 0);
    }
  },
});

Deno.test({
  name:
    "agent-codex under --token-cap 1200 --max-output-tokens 100: its first call is refused for the cap, a scored failure with zero metered calls, and the ledger passes validate --plan",
  ignore,
  async fn() {
    const run = await codexEpisode(() => ({
      caps: { token_cap: 1200 },
      model_limits: { max_output_tokens: 100 },
    }));
    const { row, requests, calls, bodies, errors, validate } = run;
    // Codex's first Responses body is 40,555 bytes and sets no max_output_tokens; the plan's
    // output policy injects `,"max_output_tokens":100` (24 bytes): 40,579 bytes forwarded. Its
    // model "m-codex" has no published tokenizer, so its prompt bound is a token a byte,
    // 40579 + 48 = 40627 (no allowance for Responses), more than the whole cap of 1200, so not
    // one output token is left: refused before the upstream.
    equal(bodies[0].request.bytes, 40_555);
    deepEqual(
      calls.map((call) => [call.index, call.forwarded, call.refusal, call.status]),
      [[1, false, "token_cap", 403]],
    );
    equal(
      calls[0].detail,
      "Token cap reached: 0 tokens used of 1200 allowed; the call's prompt may take up to " +
        "40627 (its bound from the request body), which leaves no output token",
    );
    equal(requests.length, 0);
    // The honest outcome (issue 21: "Invalid only when the harness failed"): Codex exits 1 on
    // the refusal, with no metered call; the row is the agent's scored failure and says why,
    // and its stop reason is token_cap because a call was refused for the cap. Old relay: the
    // calls were forwarded, 2,138 tokens were recorded against the 1200 cap, `validate --plan`
    // reported over_cap and exited 3, and the row said token_cap though nothing was refused.
    deepEqual(
      [row.status, row.resolved, row.invalid_reason, row.stop_reason],
      ["scored", false, null, "token_cap"],
    );
    deepEqual([row.model_calls, row.prompt_tokens, row.completion_tokens], [0, 0, 0]);
    equal(row.evidence?.max_output_tokens, 100);
    match(
      row.notes,
      /^candidate exit code 1; zero metered model calls: the relay refused all 1 request\(s\) the agent made \(1 token_cap\), a scored failure/,
    );
    // The ledger passes `validate --plan`: the function the CLI uses, and the real CLI (exit 0).
    deepEqual(errors, []);
    equal(validate.code, 0, validate.stdout);
    match(validate.stdout, /findings: none/);
    match(validate.stdout, /stop reasons: +completed 0, step_cap 0, token_cap 1,/);
  },
});
