import { deepEqual, equal, match } from "node:assert/strict";
import { agentsAgainstCheck, whatToFix } from "./agents_against_check.ts";
import { AgentCheck, type AgentCheckAgent } from "./schema/records.ts";

const DIGEST = `sha256:${"a1".repeat(32)}`;
const OTHER = `sha256:${"b2".repeat(32)}`;

/** A checked agent that passed, its first call asking for `asked` output tokens after a prompt bound of `bound`. */
function checked(
  overrides: Partial<AgentCheckAgent> = {},
  bound = 900,
  asked: number | null = 32000,
) {
  return {
    agent_id: "claude",
    image: "ledgerbench/agent-claude:latest",
    image_digest: DIGEST,
    model: null,
    upstream_kind: "anthropic" as const,
    verdict: "ok" as const,
    reason: null,
    model_calls: 1,
    first_call: {
      index: 1,
      endpoint: "/v1/messages",
      prompt_bound: bound,
      output_cap: asked ?? 999_999_100,
      requested_output_cap: asked,
      cap_lowered: asked === null,
    },
    refused_calls: [],
    denied_requests: [],
    episode: null,
    ...overrides,
  };
}

function check(...agents: ReturnType<typeof checked>[]): AgentCheck {
  return AgentCheck.parse({
    schema_version: 1,
    checked_at: "2026-12-01T00:00:00.000Z",
    runner_version: "0.1.0",
    token_cap: 1_000_000_000,
    passed: agents.every((a) => a.verdict === "ok"),
    agents,
  });
}

const PLANNED = { agent_id: "claude", image_digest: DIGEST, model: null };
const OPTIONS = { tokenCap: null, maxOutputTokens: null, file: "check.json" };

Deno.test("agentsAgainstCheck() passes a checked agent without a token cap silently", () => {
  deepEqual(agentsAgainstCheck([PLANNED], check(checked()), OPTIONS), {
    refused: null,
    warnings: [],
  });
});

Deno.test("agentsAgainstCheck() refuses an agent missing from the check, by id and by digest", () => {
  const byId = agentsAgainstCheck([{ ...PLANNED, agent_id: "codex" }], check(checked()), OPTIONS);
  equal(
    byId.refused,
    `Cannot freeze plan: agent "codex" with image ${DIGEST} is not in the agent check ` +
      `"check.json" (run "ledgerbench agent check" for it)`,
  );
  // The same id with another image digest was not checked.
  const byDigest = agentsAgainstCheck(
    [{ ...PLANNED, image_digest: OTHER }],
    check(checked()),
    OPTIONS,
  );
  match(byDigest.refused ?? "", new RegExp(`agent "claude" with image ${OTHER} is not in`));
});

Deno.test("agentsAgainstCheck() refuses an agent that failed the check, naming the reason", () => {
  const failed = checked({
    verdict: "refused",
    reason: "no metered model call",
    model_calls: 0,
    first_call: null,
  });
  deepEqual(agentsAgainstCheck([PLANNED], check(failed), OPTIONS), {
    refused: 'Cannot freeze plan: agent "claude" failed the agent check "check.json": ' +
      "no metered model call; no model call was made (episode: no row)",
    warnings: [],
  });
});

Deno.test("agentsAgainstCheck() names the first refused agent in plan order", () => {
  const failed = checked({
    agent_id: "nocall",
    verdict: "refused",
    reason: "no metered model call",
    model_calls: 0,
    first_call: null,
  });
  const said = agentsAgainstCheck(
    [{ ...PLANNED, agent_id: "nocall" }, { ...PLANNED, agent_id: "absent" }],
    check(checked(), failed),
    OPTIONS,
  );
  match(said.refused ?? "", /^Cannot freeze plan: agent "nocall" failed/);
});

Deno.test("agentsAgainstCheck() warns that the relay lowers the output cap below bound + asked", () => {
  // Claude Code under freeze --help's --token-cap 20000 (issue 21, finding 2): 900 + 32000 > 20000.
  const said = agentsAgainstCheck([PLANNED], check(checked()), { ...OPTIONS, tokenCap: 20000 });
  deepEqual(said.warnings, [
    'the token cap (20000) is below what agent "claude"\'s first call requests (prompt bound ' +
    "900 + output cap 32000 in the agent check): the relay will lower its output cap to at " +
    "most 19100",
  ]);
  equal(said.refused, null);
  // Exactly bound + asked (900 + 32000 = 32900) fits: no warning.
  deepEqual(
    agentsAgainstCheck([PLANNED], check(checked()), { ...OPTIONS, tokenCap: 32900 }).warnings,
    [],
  );
  deepEqual(
    agentsAgainstCheck([PLANNED], check(checked()), { ...OPTIONS, tokenCap: 32899 }).warnings
      .length,
    1,
  );
});

Deno.test("agentsAgainstCheck() warns that every call is refused below bound + 1", () => {
  // token_budget.ts refuses when used + p + 1 > cap: with p = 900, cap 900 refuses, cap 901 admits.
  const refusing = agentsAgainstCheck([PLANNED], check(checked()), { ...OPTIONS, tokenCap: 900 });
  deepEqual(refusing.warnings, [
    "the token cap (900) is below agent \"claude\"'s first call's prompt bound + 1 (900 + 1 " +
    "in the agent check): the relay will refuse every call, and each episode will be a scored " +
    "failure without a model call",
  ]);
  const admitting = agentsAgainstCheck([PLANNED], check(checked()), { ...OPTIONS, tokenCap: 901 });
  match(admitting.warnings[0], /will lower its output cap to at most 1$/);
});

Deno.test("agentsAgainstCheck() applies the plan's output policy before the cap", () => {
  // Policy 4096: the call is forwarded with 4096, and 900 + 4096 = 4996 fits a 20000 cap.
  deepEqual(
    agentsAgainstCheck([PLANNED], check(checked()), {
      ...OPTIONS,
      tokenCap: 20000,
      maxOutputTokens: 4096,
    }).warnings,
    [],
  );
  // A call that asked for no cap gets the policy's: 900 + 4096 > 4000.
  const none = agentsAgainstCheck([PLANNED], check(checked({}, 900, null)), {
    ...OPTIONS,
    tokenCap: 4000,
    maxOutputTokens: 4096,
  });
  match(none.warnings[0], /prompt bound 900 \+ output cap 4096 .* at most 3100$/);
  // Without a policy a call that asked for none is always given what is left: no warning.
  deepEqual(
    agentsAgainstCheck([PLANNED], check(checked({}, 900, null)), { ...OPTIONS, tokenCap: 4000 })
      .warnings,
    [],
  );
});

Deno.test("agentsAgainstCheck() warns when the check ran another model, env or command", () => {
  const said = agentsAgainstCheck(
    [{ ...PLANNED, model: "m-2", env: { A: "1" }, command: ["x"] }],
    check(checked({ env: { A: "2" }, command: ["x"] })),
    OPTIONS,
  );
  deepEqual(said.warnings, [
    'agent "claude" was checked with another model, env than the plan\'s ("check.json"): the ' +
    "check may not hold for this configuration",
  ]);
  // The same env in another key order is the same configuration.
  deepEqual(
    agentsAgainstCheck(
      [{ ...PLANNED, env: { B: "2", A: "1" } }],
      check(checked({ env: { A: "1", B: "2" } })),
      OPTIONS,
    ).warnings,
    [],
  );
});

Deno.test("AgentCheck refuses a verdict that disagrees with the metered calls", () => {
  const parsed = AgentCheck.safeParse({
    ...check(checked()),
    agents: [checked({ model_calls: 0 })],
  });
  equal(parsed.success, false);
  deepEqual(parsed.error?.issues.map((i) => i.path.join(".")), ["agents.0.verdict"]);
  const passed = AgentCheck.safeParse({ ...check(checked()), passed: false });
  deepEqual(passed.error?.issues.map((i) => i.path.join(".")), ["passed"]);
});

Deno.test("whatToFix() names the relay's refusal and the option that fixes it", () => {
  const refusedWith = (
    refused_calls: AgentCheckAgent["refused_calls"],
    denied_requests: AgentCheckAgent["denied_requests"] = [],
  ): AgentCheckAgent => ({
    agent_id: "codex",
    image: "i",
    image_digest: `sha256:${"a".repeat(64)}`,
    model: null,
    upstream_kind: "openai",
    verdict: "refused",
    reason: "no metered model call",
    model_calls: 0,
    first_call: null,
    refused_calls,
    denied_requests,
    episode: null,
  });
  const call = (refusal: AgentCheckAgent["refused_calls"][number]["refusal"], detail: string) => ({
    index: 1,
    endpoint: "/v1/responses",
    refusal,
    status: 403,
    detail,
  });
  const web = 'Provider feature not allowed: "web_search" at tools[3].type "web_search"; ' +
    "allow it with freeze --allow-provider-feature web_search";
  equal(
    whatToFix(refusedWith([call("provider_feature", web)])),
    `call #1 POST /v1/responses refused provider_feature: ${web}`,
  );
  equal(
    whatToFix(refusedWith([call("model_not_allowed", 'Model not allowed: "gpt-5"')])),
    'call #1 POST /v1/responses refused model_not_allowed: Model not allowed: "gpt-5"; ' +
      "name its model: --model codex=MODEL",
  );
  equal(
    whatToFix(
      refusedWith([{
        ...call("unsupported", "x"),
        endpoint: "/v1beta/models/g:streamGenerateContent",
      }]),
    ),
    "call #1 POST /v1beta/models/g:streamGenerateContent refused unsupported: give its upstream kind: --upstream-kind codex=gemini",
  );
  equal(
    whatToFix(
      refusedWith([], [{ method: "GET", target: "/api/hello", status: 404, code: "not_found" }]),
    ),
    "its first request went outside the relay's model APIs (GET /api/hello: 404): point it at " +
      "the relay's base URL as its recipe does (docs/agents.md)",
  );
});
