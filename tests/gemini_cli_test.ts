/**
 * Google's Gemini CLI (`ledgerbench/agent-gemini`, containers/agents/gemini.sh)
 * in the sandbox on the real engine, against the scripted provider as a
 * Gemini upstream through the relay: on a demo task (c2, a sum over a CSV)
 * the script asks for one `run_shell_command` call that writes the answer,
 * then finishes; the CLI runs the command with the image's bash, and the row
 * is scored and resolved with both `streamGenerateContent` calls, their
 * tokens exactly what the upstream served, and nothing else tried (no usage
 * statistics, no telemetry: the row's `unmetered_requests` is 0).
 *
 * Under a token cap the relay first asks the upstream's `countTokens` for each
 * call's prompt (the bound is the provider's own count), and sets the CLI's
 * `generationConfig.maxOutputTokens` (it sends none) to what the cap leaves:
 * the tokens recorded never pass the cap.
 *
 * Skipped when no engine answers (CI has one: .ci/install_docker.sh).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { requireDockerEngine } from "./_docker_engine.ts";
import { realAgentEpisode } from "./_real_agent_episode.ts";

const ENGINE = await requireDockerEngine("tests/gemini_cli_test.ts");
const ignore = !ENGINE.available;
const MODEL = "gemini-2.5-flash";

/** One Gemini CLI episode on the c2 task, under `tokenCap`, through the logging proxy. */
function geminiEpisode(tokenCap: number, usage: "scripted" | "derived") {
  return realAgentEpisode({
    agentId: "gemini",
    image: "ledgerbench/agent-gemini",
    model: MODEL,
    kind: "gemini",
    toolCall: (cmd) => ({
      name: "run_shell_command",
      arguments: JSON.stringify({ command: cmd, description: "Write the answer" }),
    }),
    then: 'echo "shell=$BASH_VERSION"',
    usage,
    plan: () => ({ caps: { token_cap: tokenCap } }),
    logArrivals: true,
  });
}

Deno.test({
  name:
    "agent-gemini solves a demo task through the relay: two streamed Gemini calls, tokens as served, no other request",
  ignore,
  async fn() {
    const { row, requests, arrivals, cmd, errors, calls } = await geminiEpisode(
      100_000,
      "scripted",
    );
    deepEqual(errors, []);
    equal(row.status, "scored", row.notes);
    equal(row.resolved, true, row.notes);
    equal(row.stop_reason, "completed", row.notes);
    equal(row.model_calls, 2);
    // The script's usage: 1200 + 1300 prompt, 30 + 5 completion tokens.
    deepEqual([row.prompt_tokens, row.completion_tokens], [2500, 35]);
    equal(row.evidence?.server_model_id, MODEL);
    equal(row.evidence?.unmetered_requests, 0);
    equal(row.evidence?.read_requests, 0);
    // What reached the upstream: the two model calls, as server-sent streams, each after the
    // relay's count of its prompt for the plan's default token cap; nothing else.
    const stream = `/v1/models/${MODEL}:streamGenerateContent?alt=sse`;
    const count = `/v1/models/${MODEL}:countTokens`;
    deepEqual(arrivals.map((a) => [a.method, a.path]), [
      ["POST", count],
      ["POST", stream],
      ["POST", count],
      ["POST", stream],
    ]);
    deepEqual(
      calls.map((call) => [call.endpoint, call.tool_calls, call.fault]),
      [
        [`/v1beta/models/${MODEL}:streamGenerateContent`, 1, null],
        [`/v1beta/models/${MODEL}:streamGenerateContent`, 0, null],
      ],
    );
    deepEqual(
      requests.map((r) => [r.api, r.turn, r.matched, r.status]),
      [
        ["gemini", null, null, 200],
        ["gemini", 0, "rule 0", 200],
        ["gemini", null, null, 200],
        ["gemini", 1, "rule 1", 200],
      ],
    );
    // Its tool call ran in the image's bash and succeeded; the key the relay sent is the relay's.
    const forwarded = requests.filter((request) => request.call !== null);
    const second = forwarded[1].body as {
      contents: { role: string; parts: Record<string, unknown>[] }[];
    };
    const call = second.contents.at(-2)?.parts.find((part) => part.functionCall !== undefined)
      ?.functionCall as { name: string; args: { command: string } };
    const response = second.contents.at(-1)?.parts.find((part) =>
      part.functionResponse !== undefined
    )?.functionResponse as { response: unknown };
    deepEqual([call.name, call.args.command], ["run_shell_command", cmd]);
    match(JSON.stringify(response.response), /shell=5\./);
    ok(requests.every((request) => request.googleKey !== "sandbox"));
    console.log(
      `Gemini CLI: first request body ${arrivals[1].bytes} bytes, second ${arrivals[3].bytes}`,
    );
  },
});

Deno.test({
  name:
    "agent-gemini under a token cap: each prompt bounded by the provider's countTokens, maxOutputTokens set to what is left",
  ignore,
  async fn() {
    const cap = 60_000;
    const { row, requests, arrivals, errors, calls } = await geminiEpisode(cap, "derived");
    deepEqual(errors, []);
    equal(row.resolved, true, row.notes);
    // A countTokens before each model call: the relay's own request, not the agent's.
    deepEqual(arrivals.map((a) => a.path.split(":")[1]), [
      "countTokens",
      "streamGenerateContent?alt=sse",
      "countTokens",
      "streamGenerateContent?alt=sse",
    ]);
    const forwarded = requests.filter((request) => request.call !== null);
    for (const [i, call] of calls.entries()) {
      equal(call.prompt_bound_source, "count");
      const config = (forwarded[i].body as { generationConfig: { maxOutputTokens: number } })
        .generationConfig;
      equal(config.maxOutputTokens, call.output_cap);
    }
    ok(row.prompt_tokens! + row.completion_tokens! <= cap);
    equal(row.evidence?.prompt_bound_excess ?? 0, 0);
  },
});
