/**
 * Issue 21's attacks on the budget and on the provider, on the real Docker
 * engine: a hostile agent (`containers/agents/relay_attacker.ts`) inside the
 * sandbox, the runner's own path (`runPlan` → Docker executor → relay →
 * in-namespace forwarder), each agent with its own scripted upstream, so
 * that what reached the upstream is known per attack.
 *
 * Three plans: one with a token cap of 2000, no output policy and
 * `web_search` allowed (the cap, the uncapped Responses call, the provider
 * features); one with a wall cap of 8 s and no token cap (the call still
 * being answered when the wall cap falls); one allowing every provider
 * feature (the same feature requests, all forwarded). Every ledger is
 * checked against its plan by the validator the CLI runs.
 *
 * Skipped when no engine answers (CI has one: .ci/install_docker.sh).
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { ScriptedProvider } from "../runner/relay/scripted_provider.ts";
import type { RelayCallRecord } from "../analysis/schema/relay_call_record.ts";
import { ProviderFeature } from "../analysis/schema/records.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { type Attack, type AttackOutcome, runAttackerPlan } from "./_relay_attacker_plan.ts";

const ENGINE = await requireDockerEngine("tests/budget_attacks_test.ts");
const SEED = "b0d9e700".repeat(8);

/** The first plan's attacks (token cap 2000, `web_search` allowed). */
const CAP_ATTACKS: Record<string, Attack> = {
  // Each answer reports 100,000 prompt tokens (a 400 kB prompt at 4 bytes a token) + 1.
  "cap-flood": {
    script: { default: { content: "x", usage: { prompt_tokens: 100_000, completion_tokens: 1 } } },
  },
  // The answer would report 16 + 100,000 tokens if the model were not stopped at its cap.
  "uncapped-responses": {
    script: { default: { content: "x", usage: { prompt_tokens: 16, completion_tokens: 100_000 } } },
  },
  features: { script: {} },
  "features-messages": { script: {}, kind: "anthropic" },
};

/** The second plan's attack (wall cap 8 s): a stream of 30 events, 0.5 s apart. */
const WALL_ATTACKS: Record<string, Attack> = {
  "slow-call": {
    script: {
      default: {
        content: Array.from({ length: 27 }, (_, i) => `w${i}`).join(" "),
        usage: { prompt_tokens: 31, completion_tokens: 2000 },
      },
    },
    provider: { beforeStreamEvent: () => new Promise((done) => setTimeout(done, 500)) },
  },
};

/**
 * The first two plans' outcomes, merged (their agent ids differ), and the
 * third's apart: the provider-feature attacks again under a plan that allows
 * every feature.
 */
type Outcome = AttackOutcome & { allowed: AttackOutcome };

let ran: Promise<Outcome> | null = null;
/** Runs the three plans once (the tests below read the one outcome). */
function attacks(): Promise<Outcome> {
  ran ??= (async () => {
    const cap = await runAttackerPlan(CAP_ATTACKS, {
      plan_id: "budget-attacks",
      seed: SEED,
      caps: { token_cap: 2000, wall_ms_cap: 120_000 },
      provider_features: ["web_search"],
    });
    const wall = await runAttackerPlan(WALL_ATTACKS, {
      plan_id: "wall-attacks",
      seed: SEED,
      caps: { wall_ms_cap: 8_000 },
    });
    const allowed = await runAttackerPlan({
      features: CAP_ATTACKS.features,
      "features-messages": CAP_ATTACKS["features-messages"],
    }, {
      plan_id: "features-allowed",
      seed: SEED,
      // The task's own step cap (10) would stop the 16 calls before the last.
      caps: { token_cap: 5000, step_cap: 40, wall_ms_cap: 120_000 },
      provider_features: [...ProviderFeature.options],
    });
    return {
      allowed,
      rows: { ...cap.rows, ...wall.rows },
      calls: { ...cap.calls, ...wall.calls },
      denied: { ...cap.denied, ...wall.denied },
      reports: { ...cap.reports, ...wall.reports },
      upstream: { ...cap.upstream, ...wall.upstream },
      errors: [...cap.errors, ...wall.errors, ...allowed.errors],
    };
  })();
  return ran;
}

/** Tokens an upstream's answers reported (what it billed). */
function billed(provider: ScriptedProvider, calls: readonly RelayCallRecord[]): number {
  equal(provider.requests().filter((r) => r.call !== null).length, calls.length);
  return calls.reduce(
    (sum, call) => sum + (call.usage?.prompt_tokens ?? 0) + (call.usage?.completion_tokens ?? 0),
    0,
  );
}

const forwarded = (calls: readonly RelayCallRecord[]) => calls.filter((call) => call.forwarded);

const engineTest = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: !ENGINE.available, sanitizeResources: false, sanitizeOps: false, fn });

engineTest("budget attacks: every runner-written ledger passes validate --plan", async () => {
  const { errors } = await attacks();
  deepEqual(errors, []);
});

engineTest(
  "budget attack cap-flood: 60 concurrent 400 kB prompts at max_tokens 1 under a cap of 2000",
  async () => {
    const { reports, calls, upstream, rows } = await attacks();
    // Each prompt's bound is over 133,000 tokens: every one is refused, none reaches the
    // upstream. Before: 10 forwarded and 1,000,250 tokens billed.
    deepEqual(reports["cap-flood"]["cap-flood"], { 403: 60 });
    const flood = calls["cap-flood"].filter((call) => call.refusal === "token_cap");
    equal(flood.length, 60);
    // The final ordinary call fits and is forwarded with what is left as its output cap.
    const sent = forwarded(calls["cap-flood"]);
    equal(sent.length, 1);
    const spent = billed(upstream["cap-flood"], sent);
    ok(spent <= 2000 + (rows["cap-flood"].evidence?.prompt_bound_excess ?? 0), `${spent}`);
    equal(rows["cap-flood"].stop_reason, "token_cap");
  },
);

engineTest(
  "budget attack uncapped-responses: a Responses call without max_output_tokens is lowered to what is left",
  async () => {
    const { calls, upstream, rows } = await attacks();
    const [call] = forwarded(calls["uncapped-responses"]);
    // Before: forwarded uncapped and billed 100,016.
    const body = upstream["uncapped-responses"].requests()[0].body as Record<string, unknown>;
    equal(body.max_output_tokens, call.output_cap);
    equal(body.store, false);
    equal(call.cap_lowered, true);
    equal(call.output_cap, 2000 - call.prompt_bound!);
    // The scripted model stops at its cap, as a model does: 16 + the cap.
    deepEqual(call.usage, { prompt_tokens: 16, completion_tokens: call.output_cap });
    const row = rows["uncapped-responses"];
    ok(row.prompt_tokens! + row.completion_tokens! <= 2000);
    // The cap shortened the call: token_cap.
    equal(row.stop_reason, "token_cap");
  },
);

engineTest(
  "budget attack features: provider features are refused unless the plan allows them",
  async () => {
    const { reports, upstream, rows } = await attacks();
    // Before: every one was forwarded unchanged.
    deepEqual(reports.features.features, {
      web_search: "200 -",
      web_search_preview: "200 -",
      file_search: "403 provider_feature",
      code_interpreter: "403 provider_feature",
      image_generation: "403 provider_feature",
      mcp: "403 provider_feature",
      web_search_options: "200 -",
      store: "403 provider_feature",
      previous_response_id: "403 provider_feature",
      conversation: "403 provider_feature",
      prompt: "403 provider_feature",
      image_url: "403 provider_feature",
      input_file: "403 provider_feature",
      input_image: "403 provider_feature",
      data_url: "200 -",
    });
    // Nothing the attacker named reached the upstream but what the plan allows.
    const sent = JSON.stringify(upstream.features.requests().map((r) => r.body));
    equal(sent.includes("attacker.example"), false);
    deepEqual(rows.features.evidence?.provider_features, ["web_search"]);
    deepEqual(reports["features-messages"]["features-messages"], {
      web_search: "200 -",
      web_fetch: "403 provider_feature",
      code_execution: "403 provider_feature",
      mcp_servers: "403 provider_feature",
      container: "403 provider_feature",
      beta_header: "403 provider_feature",
      plain: "200 -",
    });
    deepEqual(rows["features-messages"].evidence?.provider_features, ["web_search"]);
    equal(rows["features-messages"].status, "scored");
  },
);

engineTest(
  "budget attack features: every provider feature is forwarded when the plan allows it",
  async () => {
    const { allowed } = await attacks();
    const forwardedAll = (report: unknown) =>
      Object.fromEntries(Object.keys(report as object).map((name) => [name, "200 -"]));
    const openai = allowed.reports.features.features;
    deepEqual(openai, forwardedAll(openai));
    const messages = allowed.reports["features-messages"]["features-messages"];
    deepEqual(messages, forwardedAll(messages));
    deepEqual(allowed.rows.features.evidence?.provider_features, [
      "code_execution",
      "file_search",
      "image_generation",
      "mcp",
      "remote_urls",
      "stored_state",
      "web_search",
    ]);
    deepEqual(allowed.rows["features-messages"].evidence?.provider_features, [
      "code_execution",
      "mcp",
      "stored_state",
      "web_fetch",
      "web_search",
    ]);
    // Allowed, stored state goes as the agent sent it: no store false added.
    const stored = allowed.upstream.features.requests()
      .map((request) => request.body as Record<string, unknown>)
      .filter((body) => "input" in body && !("tools" in body));
    ok(stored.some((body) => body.store === true));
    ok(stored.every((body) => body.store !== false));
  },
);

engineTest(
  "budget attack slow-call: a call still being answered when the wall cap falls keeps its spend",
  async () => {
    const { rows, calls } = await attacks();
    const row = rows["slow-call"];
    // Before: invalid provider_fault with 0 tokens, while the upstream billed 2,031.
    deepEqual(
      [row.status, row.stop_reason, row.prompt_tokens, row.completion_tokens],
      ["scored", "wall_cap", 31, 2000],
    );
    const [call] = calls["slow-call"];
    deepEqual([call.fault, call.spend_unknown], [null, undefined]);
    ok(call.latency_ms > 8_000, `${call.latency_ms}`);
  },
);
