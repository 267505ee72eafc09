/**
 * Claude Code (`ledgerbench/agent-claude`, containers/agents/claude.sh) in
 * the sandbox on the real engine (issue 21: "Claude Code (Messages, from its
 * native npm binary)", and docs/agents.md's recipe), against the scripted
 * provider as an Anthropic upstream through the relay: on a demo task (c2, a
 * sum over a CSV) the script asks for one `Bash` tool call that writes the
 * answer, then finishes; Claude Code runs the command with the image's bash,
 * and the row is scored and resolved with both Messages calls, their tokens
 * exactly what the upstream served.
 *
 * A logging proxy between the relay and the scripted provider records what
 * reaches the upstream, byte for byte (the relay forwards a Messages body
 * unchanged when the plan sets no output cap), which pins what Claude Code
 * asks for: `max_tokens` 32,000 on every call (the figure a token cap must
 * leave room for, issue 21 item 2), its first body's size (about 49 kB: the
 * system prompt and 12 tool definitions before the task's text), and no
 * request of its own besides the two model calls (the relay's count of each
 * prompt, for the token cap, goes before it; with
 * `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`, its `HEAD /api/hello`
 * connectivity check is not made; the row's `unmetered_requests` is 0). The
 * numbers are printed for the record.
 *
 * Under a token cap (issue 21, "Claude Code under `--token-cap 20000`
 * resolves its task with its calls clamped"), with the provider's
 * byte-derived usage: the relay bounds each prompt by the provider's own
 * count (it asks the upstream's `count_tokens` first; the scripted provider
 * counts a prompt as it bills it), so at 20,000 (the `freeze --help`
 * example) both calls are forwarded with `max_tokens` lowered from 32,000 to
 * what is left beside their bounds, and the row is resolved and `completed`
 * (with a bound of a third of the bytes, about 17,000 tokens, the second
 * call was refused). The smallest cap under which Claude Code finishes is
 * the first call's tokens + the second's bound + 3: both calls clamped,
 * `completed`. Claude Code's system prompt carries the date (its weekday's
 * name), so its bodies differ by a few bytes from day to day: these figures
 * are measured by a first episode under a large cap and the formulas checked
 * against them (on Saturday 2026-12-05: bounds 4,330 and 4,335). Every
 * ledger here passes `validate --plan`.
 *
 * Skipped when no engine answers (CI has one: .ci/install_docker.sh).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { requireDockerEngine } from "./_docker_engine.ts";
import { type Arrival, realAgentEpisode, type RealAgentRun } from "./_real_agent_episode.ts";

const ENGINE = await requireDockerEngine("tests/claude_code_test.ts");
const ignore = !ENGINE.available;
const MODEL = "m-claude";

/** The output cap Claude Code 2.1.328 asks for on every call (issue 21 item 2). */
const CLAUDE_CODE_MAX_TOKENS = 32_000;

/**
 * A token cap that admits both calls, each reserving its prompt bound and
 * its full output cap (about 17,000 + 32,000 each; see `promptBound`).
 */
const TOKEN_CAP = 100_000;

/**
 * One Claude Code episode on the c2 task against an Anthropic upstream,
 * under `tokenCap`, through the logging proxy; its one tool call is `Bash`,
 * which writes the answer and echoes `$BASH_VERSION`. With `usage`
 * "scripted" each reply reports the script's usage, with "derived" the
 * scripted provider's byte-derived usage (`derivedUsage`: a quarter of the
 * prompt text's bytes, of the reply's). Returns the row, what the scripted
 * provider received, what reached the upstream (bytes included), the tool
 * command, the relay's call records and the ledger's validation errors.
 */
function claudeEpisode(
  tokenCap: number,
  usage: "scripted" | "derived",
): Promise<RealAgentRun> {
  return realAgentEpisode({
    agentId: "claude",
    image: "ledgerbench/agent-claude",
    model: MODEL,
    kind: "anthropic",
    toolCall: (cmd) => ({
      name: "Bash",
      arguments: JSON.stringify({ command: cmd, description: "Write the answer" }),
    }),
    then: 'echo "shell=$BASH_VERSION"',
    usage,
    // The first test's TOKEN_CAP leaves room for Claude Code's 32,000-token output cap on
    // each of its two calls (forwarded unchanged); under a smaller cap
    // the relay lowers it (the tests below; the old relay refused the
    // first call under 20,000, issue 21 item 2).
    plan: () => ({ caps: { token_cap: tokenCap } }),
    logArrivals: true,
  });
}

Deno.test({
  name:
    "agent-claude solves a demo task through the relay: two streamed Messages calls, max_tokens 32000, tokens as served, no other request",
  ignore,
  async fn() {
    const { row, requests, arrivals, cmd, errors, calls } = await claudeEpisode(
      TOKEN_CAP,
      "scripted",
    );
    // The runner's ledger passes `validate --plan` (issue 21).
    deepEqual(errors, []);
    // Both calls fit with their full 32,000: bounds reserved (the provider's count of each
    // prompt, asked first), nothing lowered.
    deepEqual(
      calls.map((call) => [call.prompt_bound_source, call.output_cap, call.cap_lowered === true]),
      [["count", 32_000, false], ["count", 32_000, false]],
    );
    equal(row.status, "scored", row.notes);
    equal(row.resolved, true, row.notes);
    equal(row.stop_reason, "completed", row.notes);
    equal(row.model_calls, 2);
    equal(row.caps.token_cap, TOKEN_CAP);
    // Both calls forwarded; the one tool call is within them (tool_calls = max of the two).
    equal(row.tool_calls, 2);
    // The script's usage: 1200 + 1300 prompt, 30 + 5 completion tokens.
    equal(row.prompt_tokens, 2500);
    equal(row.completion_tokens, 35);
    equal(row.evidence?.server_model_id, MODEL);
    equal(row.evidence?.usage_source, "server");
    match(row.evidence?.request_fingerprint ?? "", /^[0-9a-f]{64}$/);
    // Nothing besides the model calls: no HEAD /api/hello, no telemetry.
    equal(row.evidence?.unmetered_requests, 0);
    equal(row.evidence?.read_requests, 0);
    ok(row.artifact_digest !== null);

    // What reached the upstream: the two model calls, each after the relay's count of its
    // prompt (the token cap's bound, with Claude Code's beta header), nothing else.
    deepEqual(
      arrivals.map((a) => [a.method, a.path]),
      [
        ["POST", "/v1/messages/count_tokens"],
        ["POST", "/v1/messages?beta=true"],
        ["POST", "/v1/messages/count_tokens"],
        ["POST", "/v1/messages?beta=true"],
      ],
    );
    equal(arrivals[0].beta, arrivals[1].beta);
    deepEqual(
      requests.map((r) => [r.method, r.path, r.api, r.turn, r.matched, r.status]),
      [
        ["POST", "/v1/messages/count_tokens", "messages", null, null, 200],
        ["POST", "/v1/messages", "messages", 0, "rule 0", 200],
        ["POST", "/v1/messages/count_tokens", "messages", null, null, 200],
        ["POST", "/v1/messages", "messages", 1, "rule 1", 200],
      ],
    );
    const models = modelArrivals(arrivals);
    const bodies = requests.filter((r) => r.call !== null).map((r) =>
      r.body as Record<string, unknown>
    );
    for (const body of bodies) {
      equal(body.model, MODEL);
      equal(body.stream, true);
      equal(body.max_tokens, CLAUDE_CODE_MAX_TOKENS);
      ok(
        (body.tools as Array<{ name?: string }>).some((tool) => tool.name === "Bash"),
        "Claude Code offers its Bash tool",
      );
    }
    // The first body: the system prompt and tool definitions come to about
    // 49 kB (49,000 ± 10,000 bytes pins the order of magnitude, which a
    // token-cap bound needs, without pinning Claude Code's prompt text).
    const first = models[0].bytes;
    ok(first > 39_000 && first < 59_000, `first request body ${first} bytes`);
    ok(models[1].bytes > first, "the second call carries the first turn too");
    // Its tool call ran in the image's bash and succeeded.
    const second = bodies[1].messages as Array<{ role: string; content: unknown }>;
    const use = (second.at(-2)?.content as Array<Record<string, unknown>>)
      .find((block) => block.type === "tool_use");
    const result = (second.at(-1)?.content as Array<Record<string, unknown>>)
      .find((block) => block.type === "tool_result");
    equal(use?.name, "Bash");
    equal((use?.input as { command?: string }).command, cmd);
    equal(result?.tool_use_id, use?.id);
    equal(result?.is_error ?? false, false, JSON.stringify(result));
    match(JSON.stringify(result?.content), /shell=5\./);
    console.log(
      `Claude Code: first request body ${first} bytes, max_tokens ${bodies[0].max_tokens}, ` +
        `second body ${models[1].bytes} bytes, ${
          (bodies[0].tools as unknown[]).length
        } tools, anthropic-beta ${models[0].beta}`,
    );
  },
});

/**
 * The prompt bound of a Claude Code call whose prompt the provider counts as
 * `counted` tokens (`boundPrompt`, `prompt_token_bound.ts`: the relay asks
 * the upstream's count_tokens first): counted + 32 + ceil(counted / 50). The
 * scripted provider counts a prompt as it bills it (`derivedUsage`), so under
 * derived usage `counted` is the call's prompt tokens. On 2026-12-05:
 * 4212 + 32 + 85 = 4329.
 */
function promptBound(counted: number): number {
  return counted + 32 + Math.ceil(counted / 50);
}

/** The model calls among what reached the upstream (the relay's count requests left out). */
function modelArrivals(arrivals: Arrival[]): Arrival[] {
  return arrivals.filter((arrival) => !arrival.path.startsWith("/v1/messages/count_tokens"));
}

/** What one episode under a large cap measures of Claude Code's two calls on c2. */
interface Measured {
  /** The bodies' bytes as received (before any cap rewrites `max_tokens`). */
  bytes: number[];
  /** Their prompt bounds. */
  bounds: number[];
  /**
   * The scripted provider's derived usage of each (`derivedUsage`: ceil(bytes
   * / 4) of the system prompt's and messages' text, and of the reply; the 12
   * tool definitions are not in that text, so a real provider bills more,
   * and the bounds still cover the whole body). On 2026-12-01: 4212 + 41 and 4218 + 2.
   */
  usage: { prompt_tokens: number; completion_tokens: number }[];
}

/** Claude Code's two calls under a cap that clamps neither, with derived usage. */
async function measure(): Promise<Measured> {
  const run = await claudeEpisode(TOKEN_CAP, "derived");
  deepEqual(run.errors, []);
  const calls = run.calls.filter((call) => call.forwarded);
  equal(calls.length, 2);
  const bytes = modelArrivals(run.arrivals).map((arrival) => arrival.bytes);
  const bounds = calls.map((call) => promptBound(call.usage!.prompt_tokens));
  deepEqual(calls.map((call) => call.prompt_bound), bounds);
  return { bytes, bounds, usage: calls.map((call) => call.usage!) };
}

/** Tokens a call's usage counts. */
const spent = (usage: { prompt_tokens: number; completion_tokens: number }) =>
  usage.prompt_tokens + usage.completion_tokens;

/**
 * Checks that Claude Code's forwarded calls were clamped by `tokenCap`: each
 * record has its prompt bound, `cap_lowered` and `output_cap` = the cap
 * minus the tokens of the calls before it minus its bound (below the
 * 32,000 it asked for), the usage as derived, and what reached the upstream
 * is the body as received with only `max_tokens` rewritten (32000 → the
 * lowered cap, `5 - digits` bytes shorter).
 */
function assertClamped(
  run: RealAgentRun,
  measured: Measured,
  tokenCap: number,
  forwarded: number,
): number[] {
  const calls = run.calls.filter((call) => call.forwarded);
  equal(calls.length, forwarded);
  const requests = run.requests.filter((request) => request.call !== null);
  const arrivals = modelArrivals(run.arrivals);
  let used = 0;
  const caps: number[] = [];
  for (const [i, call] of calls.entries()) {
    equal(call.prompt_bound, measured.bounds[i], `call ${i + 1}`);
    equal(call.cap_lowered, true, `call ${i + 1}`);
    const outputCap = tokenCap - used - measured.bounds[i];
    equal(call.output_cap, outputCap, `call ${i + 1}`);
    ok(outputCap < CLAUDE_CODE_MAX_TOKENS);
    deepEqual(call.usage, measured.usage[i], `call ${i + 1}`);
    equal((requests[i].body as { max_tokens?: number }).max_tokens, outputCap);
    equal(
      arrivals[i].bytes,
      measured.bytes[i] - (String(CLAUDE_CODE_MAX_TOKENS).length - String(outputCap).length),
    );
    used += spent(call.usage!);
    caps.push(outputCap);
  }
  equal(arrivals.length, forwarded);
  return caps;
}

Deno.test({
  name:
    "agent-claude under token cap 20000 (freeze --help's example) finishes: both calls clamped to what their counted prompts leave, resolved, completed",
  ignore,
  async fn() {
    const measured = await measure();
    const run = await claudeEpisode(20_000, "derived");
    const { row, errors } = run;
    deepEqual(errors, []);
    // Call 1: 20000 - 0 used - its bound; call 2: 20000 - call 1's tokens - its bound. With the
    // provider's count as the bound (about 4,330 tokens for Claude Code's 49 kB first body)
    // both fit; with a third of the bytes (about 17,000) the second was refused, and before the
    // cap was a ceiling the first was (issue 21 item 2).
    deepEqual(assertClamped(run, measured, 20_000, 2), [
      20_000 - measured.bounds[0],
      20_000 - spent(measured.usage[0]) - measured.bounds[1],
    ]);
    equal(row.status, "scored", row.notes);
    equal(row.resolved, true, row.notes);
    equal(row.stop_reason, "completed", row.notes);
    deepEqual([row.model_calls, row.prompt_tokens, row.completion_tokens], [
      2,
      measured.usage[0].prompt_tokens + measured.usage[1].prompt_tokens,
      measured.usage[0].completion_tokens + measured.usage[1].completion_tokens,
    ]);
    equal(row.evidence?.prompt_bound_excess, 0);
  },
});

Deno.test({
  name:
    "agent-claude under the smallest token cap it finishes under (call 1's tokens + call 2's bound + 3): both calls clamped, the second to 3 output tokens, resolved, completed",
  ignore,
  async fn() {
    // The smallest cap at which Claude Code's second call is forwarded and not shortened:
    // call 1's tokens + the bound of call 2 + 3, so that its lowered cap (3) is above the 2
    // tokens of "Done." (a call that uses all of a lowered cap counts as shortened by it,
    // relay_stop_reason.ts). One less and "Done." fills its cap of 2: forwarded, resolved,
    // but stop_reason token_cap. (21,334 on 2026-12-01.)
    const measured = await measure();
    const smallest = spent(measured.usage[0]) + measured.bounds[1] + 3;
    const tight = await claudeEpisode(smallest - 1, "derived");
    deepEqual(tight.errors, []);
    deepEqual(assertClamped(tight, measured, smallest - 1, 2), [
      smallest - 1 - measured.bounds[0],
      2,
    ]);
    deepEqual([tight.row.status, tight.row.resolved, tight.row.stop_reason], [
      "scored",
      true,
      "token_cap",
    ]);

    const run = await claudeEpisode(smallest, "derived");
    const { row, errors } = run;
    deepEqual(errors, []);
    // Call 1: smallest - 0 - its bound; call 2: smallest - call 1's tokens - its bound = 3.
    deepEqual(assertClamped(run, measured, smallest, 2), [smallest - measured.bounds[0], 3]);
    equal(row.status, "scored", row.notes);
    equal(row.resolved, true, row.notes);
    equal(row.stop_reason, "completed", row.notes);
    equal(row.notes, "");
    equal(row.caps.token_cap, smallest);
    // Both calls' derived usage, within the cap (the bounds, not the spend, decide what is
    // forwarded); no prompt passed its bound.
    deepEqual([row.model_calls, row.prompt_tokens, row.completion_tokens], [
      2,
      measured.usage[0].prompt_tokens + measured.usage[1].prompt_tokens,
      measured.usage[0].completion_tokens + measured.usage[1].completion_tokens,
    ]);
    ok(row.prompt_tokens! + row.completion_tokens! <= smallest);
    equal(row.evidence?.prompt_bound_excess, 0);
    equal(row.evidence?.unmetered_requests, 0);
  },
});
