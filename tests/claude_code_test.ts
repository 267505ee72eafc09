/**
 * Claude Code (`ledgerbench/agent-claude`, containers/agents/claude.sh) in
 * the sandbox on the real engine (issue 21: "Claude Code (Messages, from its
 * native npm binary)", and the README's recipe), against the scripted
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
 * request besides the two model calls (with
 * `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`, its `HEAD /api/hello`
 * connectivity check is not made; the row's `unmetered_requests` is 0). The
 * numbers are printed for the record.
 *
 * Skipped when no engine answers (CI has one: .ci/install_docker.sh).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { Buffer } from "node:buffer";
import { loadLedger } from "../inputs/ledger.ts";
import type { Episode } from "../analysis/schema.ts";
import { fileBlocks } from "../containers/agents/_model.ts";
import { buildImages, type ImageName } from "../runner/docker/build_images.ts";
import { freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import type { ProviderScriptInput } from "../runner/relay/provider_script.ts";
import { type ProviderRequest, startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import { runPlan } from "../runner/run_plan.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { taskPaths } from "../runner/suite_manifest.ts";
import { c2FilterSum } from "../suites/templates/c2_filter_sum.ts";
import { requireDockerEngine } from "./_docker_engine.ts";

const ENGINE = await requireDockerEngine("tests/claude_code_test.ts");
const ignore = !ENGINE.available;
const SEED = "5eed0000".repeat(8);
const MODEL = "m-claude";
const TASK = "c2-filter-sum";
let built: Promise<Record<ImageName, string>> | null = null;
const images = () => (built ??= buildImages());

/** The output cap Claude Code 2.1.328 asks for on every call (issue 21 item 2). */
const CLAUDE_CODE_MAX_TOKENS = 32_000;

/** A token cap that admits both calls, each reserving its full output cap. */
const TOKEN_CAP = 100_000;

/**
 * The shell command that writes each file block of `answer` (`base64 -d`,
 * so no content needs quoting).
 */
function writeCommand(answer: string): string {
  return fileBlocks(answer).map((block) => {
    const b64 = Buffer.from(block.content, "utf8").toString("base64");
    return `mkdir -p "$(dirname '${block.path}')" && echo '${b64}' | base64 -d > '${block.path}'`;
  }).join(" && ");
}

/** One request as it reached the upstream, through the logging proxy. */
interface Arrival {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** The body's length in bytes, as sent. */
  bytes: number;
  /** The `anthropic-beta` header, or null. */
  beta: string | null;
}

/**
 * A loopback proxy in front of `target` (an upstream base URL ending in
 * `/v1`) that logs each request's method, path and body size, and passes the
 * request and the (possibly streamed) answer through unchanged.
 */
function loggingProxy(target: string) {
  const origin = new URL(target).origin;
  const arrivals: Arrival[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    const body = new Uint8Array(await request.arrayBuffer());
    arrivals.push({
      method: request.method,
      path: url.pathname + url.search,
      bytes: body.length,
      beta: request.headers.get("anthropic-beta"),
    });
    const headers = new Headers(request.headers);
    headers.delete("host");
    headers.delete("content-length");
    const answer = await fetch(origin + url.pathname + url.search, {
      method: request.method,
      headers,
      body: request.method === "GET" || request.method === "HEAD" ? undefined : body,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    arrivals: () => [...arrivals],
    close: () => server.shutdown(),
  };
}

/**
 * One Claude Code episode on the c2 task against an Anthropic upstream.
 * Returns the row, what the scripted provider received, what reached the
 * upstream (bytes included) and the tool command.
 */
async function claudeEpisode(): Promise<{
  row: Episode;
  requests: ProviderRequest[];
  arrivals: Arrival[];
  cmd: string;
}> {
  const ids = await images();
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-claude-test-" });
  const key = crypto.randomUUID();
  try {
    const suite = await generateSuite({
      suite_id: "claude-test",
      lane_weights: { A: 8, B: 24, C: 12 },
      templates: [c2FilterSum],
    }, { seed: SEED, dir: `${dir}/suite` });
    const answer = await Deno.readTextFile(taskPaths(suite.dir, TASK).answer);
    const cmd = `${writeCommand(answer)} && echo "shell=$BASH_VERSION"`;
    const frozen = await writePlan(
      `${dir}/plan.json`,
      freezePlan(suite, {
        plan_id: "claude",
        created_at: new Date().toISOString(),
        agents: [{
          agent_id: "claude",
          image: "ledgerbench/agent-claude:latest",
          image_digest: ids["ledgerbench/agent-claude"],
          model: MODEL,
        }],
        order_seed: 1,
        // Room for Claude Code's 32,000-token output cap on each of its two
        // calls: under the default cap of 20,000 the relay refuses its first
        // call (issue 21 item 2).
        caps: { token_cap: TOKEN_CAP },
        price_table_id: "test",
        runner_version: await runnerVersion(),
        verifier_image: "ledgerbench/verifier:latest",
        verifier_image_digest: ids["ledgerbench/verifier"],
      }),
    );
    const script: ProviderScriptInput = {
      model: MODEL,
      rules: [
        {
          turn: 0,
          contains: `ledgerbench-task: ${TASK}\n`,
          reply: {
            tool_calls: [{
              name: "Bash",
              arguments: JSON.stringify({ command: cmd, description: "Write the answer" }),
            }],
            usage: { prompt_tokens: 1200, completion_tokens: 30 },
          },
        },
        {
          turn: 1,
          last: "tool_result",
          reply: { content: "Done.", usage: { prompt_tokens: 1300, completion_tokens: 5 } },
        },
      ],
      default: { content: "" },
    };
    const provider = await startScriptedProvider(script, { apiKey: key });
    const proxy = loggingProxy(provider.baseUrl);
    try {
      await runPlan({
        plan: frozen,
        suite: suite.dir,
        ledger: `${dir}/ledger.jsonl`,
        upstream: () => ({ baseUrl: proxy.baseUrl, kind: "anthropic", key }),
      });
    } finally {
      await proxy.close();
      await provider.close();
    }
    const { rows } = await loadLedger(`${dir}/ledger.jsonl`);
    equal(rows.length, 1);
    return { row: rows[0], requests: provider.requests(), arrivals: proxy.arrivals(), cmd };
  } finally {
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name:
    "agent-claude solves a demo task through the relay: two streamed Messages calls, max_tokens 32000, tokens as served, no other request",
  ignore,
  async fn() {
    const { row, requests, arrivals, cmd } = await claudeEpisode();
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

    // What reached the upstream: the two model calls, nothing else.
    deepEqual(
      arrivals.map((a) => [a.method, a.path]),
      [["POST", "/v1/messages?beta=true"], ["POST", "/v1/messages?beta=true"]],
    );
    deepEqual(
      requests.map((r) => [r.method, r.path, r.api, r.turn, r.matched, r.status]),
      [
        ["POST", "/v1/messages", "messages", 0, "rule 0", 200],
        ["POST", "/v1/messages", "messages", 1, "rule 1", 200],
      ],
    );
    const bodies = requests.map((r) => r.body as Record<string, unknown>);
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
    const first = arrivals[0].bytes;
    ok(first > 39_000 && first < 59_000, `first request body ${first} bytes`);
    ok(arrivals[1].bytes > first, "the second call carries the first turn too");
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
        `second body ${arrivals[1].bytes} bytes, ${
          (bodies[0].tools as unknown[]).length
        } tools, anthropic-beta ${arrivals[0].beta}`,
    );
  },
});
