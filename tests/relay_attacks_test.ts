/**
 * Issue 7's relay attacks on the real Docker engine: a hostile agent
 * (`containers/agents/relay_attacker.ts`) inside the sandbox, the runner's
 * own path (`runPlan` → Docker executor → relay → in-namespace forwarder),
 * one agent per attack in one plan (token cap 2000; `model_limits` of 1000
 * output and 8192 context tokens), each with its own scripted upstream, so
 * that what reached the upstream is known per attack.
 *
 * Skipped when no engine answers (CI has one: .ci/install_docker.sh).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { spendEvidenceFlags } from "../analysis/spend_evidence.ts";
import type { ProviderScriptInput } from "../analysis/schema/provider_script.ts";
import type { ScriptedProvider } from "../runner/relay/scripted_provider.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { type AttackOutcome, runAttackerPlan } from "./_relay_attacker_plan.ts";

const ENGINE = await requireDockerEngine("tests/relay_attacks_test.ts");
const SEED = "7e1a7000".repeat(8);

/** One attack: the agent's name, its upstream's script. */
const ATTACKS: Record<string, ProviderScriptInput> = {
  "big-body": {},
  paths: {},
  idle: {},
  // Each answer reports 25 prompt + 1000 completion tokens, after 300 ms (so calls overlap).
  concurrent: {
    default: { content: "x", usage: { prompt_tokens: 25, completion_tokens: 1000 }, delay_ms: 300 },
  },
  shape: {},
  // The prompt "HUGE PROMPT" is reported as 9000 prompt tokens, over the declared 8192.
  "huge-prompt": {
    rules: [{
      contains: "HUGE PROMPT",
      reply: { content: "x", usage: { prompt_tokens: 9000, completion_tokens: 1 } },
    }],
  },
  "foreign-api": {},
};

let ran: Promise<AttackOutcome> | null = null;
/** Runs every attack once (the tests below read the one outcome). */
function attacks(): Promise<AttackOutcome> {
  ran ??= runAttackerPlan(
    Object.fromEntries(Object.entries(ATTACKS).map(([name, script]) => [name, { script }])),
    {
      plan_id: "relay-attacks",
      seed: SEED,
      caps: { token_cap: 2000, wall_ms_cap: 120_000 },
      model_limits: { max_output_tokens: 1000, context_limit_tokens: 8192 },
    },
  );
  return ran;
}

/** `METHOD path` of every request an upstream received. */
const received = (provider: ScriptedProvider) =>
  provider.requests().map((r) => `${r.method} ${r.path}`);

const engineTest = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: !ENGINE.available, sanitizeResources: false, sanitizeOps: false, fn });

engineTest(
  "relay attack big-body: a 64 MiB body is refused 413 after 32 MiB and what buffers hold",
  async () => {
    const { reports, upstream, rows } = await attacks();
    const report = reports["big-body"]["big-body"] as Record<string, number>;
    equal(report.status, 413);
    equal(report.body_bytes, 64 * 1024 * 1024);
    // The answer came after the relay's 32 MiB limit plus what buffers on the way hold; old
    // relay: only after reading the whole body (offered_at_answer 67108864). How much the
    // buffers hold when the 413 is read depends on the machine's load (up to 41.9 MiB seen on
    // a clean-clone CI run), so the bound proves only what matters: far from the whole body.
    ok(
      report.offered_at_answer > 32 * 1024 * 1024 && report.offered_at_answer < 48 * 1024 * 1024,
      `the answer came after ${report.offered_at_answer} bytes`,
    );
    // Only the final ordinary call reached the upstream.
    deepEqual(received(upstream["big-body"]), ["POST /v1/chat/completions"]);
    equal(rows["big-body"].model_calls, 1);
  },
);

engineTest("relay attack paths: nothing outside the allow-list reaches the upstream", async () => {
  const { reports, upstream, rows } = await attacks();
  deepEqual(reports.paths.paths, {
    "DELETE /v1/files/file-abc123": 404,
    "POST /v1/files": 404,
    "GET /v1/organization/admin_api_keys": 404,
    "POST /v1/chat%2Fcompletions": 400,
    "POST /v1//chat/completions": 400,
    "POST /v1/chat/completions/": 400,
    "POST /v1/chat/completions?x=1": 400,
  });
  // Old relay: all seven were forwarded with the key (the upstream answered them 404 or 200).
  deepEqual(received(upstream.paths), ["POST /v1/chat/completions"]);
  // Issue 8: with a metered call beside them, the refusals are counted and flagged, but the
  // attempt stays scored (a stray request cannot make it invalid).
  const row = rows.paths;
  deepEqual([row.status, row.evidence?.unmetered_requests], ["scored", 7]);
  deepEqual(spendEvidenceFlags(row).map((f) => f.code), ["unmetered_requests"]);
});

engineTest(
  "relay attack foreign-api: an agent on APIs the relay does not meter is a scored failure that says why",
  async () => {
    const { reports, upstream, rows, calls, denied } = await attacks();
    // Issue 8: a Codex on the Responses API had every request refused and was scored a failure.
    deepEqual(reports["foreign-api"]["foreign-api"], { embeddings: 404, messages: 404 });
    deepEqual(received(upstream["foreign-api"]), []);
    // Both refusals are in the episode log: the Messages call as a model-call record refused
    // "unsupported" (an OpenAI upstream), the embeddings request with its method and target.
    deepEqual(calls["foreign-api"].map((call) => [call.endpoint, call.refusal, call.status]), [
      ["/v1/messages", "unsupported", 404],
    ]);
    deepEqual(denied["foreign-api"], ["POST /v1/embeddings"]);
    const row = rows["foreign-api"];
    // Issue 21, "Invalid only when the harness failed": what an agent sends is its choice, so
    // zero metered calls is its scored failure. Old relay: invalid, unsupported_api (and under
    // `halt` it stopped the batch), so the candidate chose that its attempt did not count.
    deepEqual(
      [row.status, row.resolved, row.invalid_reason, row.model_calls, row.stop_reason],
      ["scored", false, null, 0, "completed"],
    );
    equal(
      row.notes,
      "zero metered model calls: the relay refused all 2 request(s) the agent made (1 outside " +
        "the relay's surface, 1 unsupported), a scored failure: what an agent sends is its " +
        "choice (issue 21); `ledgerbench agent check` finds an agent the relay cannot serve " +
        "before a batch",
    );
    equal(row.evidence?.unmetered_requests, 2);
  },
);

engineTest(
  "relay attack idle: 200 half-sent requests are all closed, and the relay still serves",
  async () => {
    const { reports } = await attacks();
    // 136 beyond the 64-connection bound at once, the other 64 at the 10 s header deadline.
    // Old forwarder: none closed within the agent's 30 s wait.
    deepEqual(reports.idle.idle, { opened: 200, closed_by_relay: 200 });
    equal(reports.idle.final_call, 200);
  },
);

engineTest(
  "relay attack concurrent: 30 calls at max_tokens 1000 under a 2000-token cap forward 2, the second's cap lowered to 826; 1876 tokens",
  async () => {
    const { reports, upstream, rows, calls } = await attacks();
    const statuses = (reports.concurrent.concurrent as { statuses: number[] }).statuses;
    equal(statuses.filter((s) => s === 200).length, 2);
    equal(statuses.filter((s) => s === 403).length, 28);
    equal(upstream.concurrent.requests().length, 2);
    // Each body is 101 bytes (`{"model":"relay-attack:concurrent","messages":[...],"max_tokens":1000}`,
    // within the plan's output cap of 1000, forwarded unchanged), of a model without a
    // published tokenizer: prompt bound a token a byte, 101 + 48 = 149. The first call
    // reserves 149 + 1000 and goes at once; the next would pass 2000 beside it, so it is held
    // until the first settles (25 + 1000 = 1025 used), then forwarded with max_tokens lowered
    // to 2000 - 1025 - 149 = 826, which the scripted model uses whole (a shortened call:
    // token_cap). After 1025 + 25 + 826 = 1876 used, 2000 - 1876 = 124 is below a bound of
    // 149: the other 28, and the final call, are
    // refused for the cap. Old relay: 30 forwarded, 30 x 1025 = 30750 tokens spent; then
    // (reserving output caps only) 2 forwarded at 1000 each, 2050 tokens, over the cap.
    const forwarded = calls.concurrent.filter((call) => call.forwarded);
    deepEqual(
      forwarded.map((call) => [call.prompt_bound, call.output_cap, call.cap_lowered, call.usage]),
      [
        [149, 1000, false, { prompt_tokens: 25, completion_tokens: 1000 }],
        [149, 826, true, { prompt_tokens: 25, completion_tokens: 826 }],
      ],
    );
    const refused = calls.concurrent.filter((call) => !call.forwarded);
    equal(refused.length, 29);
    for (const call of refused) {
      deepEqual([call.refusal, call.status], ["token_cap", 403]);
      // 149, or 148 for the final call, whose body is a byte shorter.
      match(
        call.detail,
        /^Token cap reached: 1876 tokens used of 2000 allowed; the call's prompt may take up to 14[89] \(its bound from the request body\), which leaves no output token$/,
      );
    }
    equal(reports.concurrent.final_call, 403);
    const row = rows.concurrent;
    deepEqual([row.model_calls, row.completion_tokens, row.prompt_tokens], [2, 1826, 50]);
    ok(row.prompt_tokens! + row.completion_tokens! <= 2000);
    equal(row.evidence?.prompt_bound_excess, 0);
    equal(row.stop_reason, "token_cap");
    equal(row.status, "scored");
  },
);

engineTest(
  "relay attack shape: another model, a string stream and n 4 are refused locally",
  async () => {
    const { reports, upstream, rows } = await attacks();
    deepEqual(reports.shape.shape, { other_model: 403, stream_string: 400, n_4: 400 });
    // Old relay: all three were forwarded (the upstream saw "gpt-4o-expensive", "true" and n 4).
    deepEqual(upstream.shape.requests().map((r) => (r.body as { model: string }).model), [
      "relay-attack:shape",
    ]);
    equal(rows.shape.evidence?.server_model_id, "scripted-model-1");
  },
);

engineTest(
  "relay attack huge-prompt: a prompt over the declared context is the agent's scored failure",
  async () => {
    const { rows } = await attacks();
    const row = rows["huge-prompt"];
    // Old gate: invalid, evidence_missing (context_limit_unproven), so the candidate chose invalid.
    deepEqual([row.status, row.resolved, row.invalid_reason], ["scored", false, null]);
    ok(
      row.notes.includes("prompt_over_context_limit: Call 1 sent a prompt of 9000 tokens"),
      row.notes,
    );
  },
);

engineTest("relay attacker's self-reported tool_calls 999 never reach a row", async () => {
  const { rows } = await attacks();
  for (const row of Object.values(rows)) {
    // Old row: max(model calls, relay tool calls, 999) = 999.
    equal(row.tool_calls, row.model_calls, row.agent_id);
  }
  equal(Object.keys(rows).length, 7);
});

engineTest("the relay attacks' runner-written ledger passes validate --plan", async () => {
  // Issue 21 item 3: every row's tokens within its cap plus its prompt bound excess (0 here),
  // stop reasons known, one scored row per agent (foreign-api no longer invalid).
  const { errors, rows } = await attacks();
  deepEqual(errors, []);
  deepEqual(Object.values(rows).filter((row) => row.status !== "scored"), []);
});
