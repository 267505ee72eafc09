/**
 * opencode (`ledgerbench/agent-opencode`, containers/agents/opencode.sh) in
 * the sandbox on the real engine, against the scripted provider as an OpenAI
 * upstream through the relay: on a demo task (c2, a sum over a CSV) the
 * script asks for one `bash` tool call that writes the answer, then finishes;
 * opencode runs the command with busybox `sh`, and the row is scored and
 * resolved with both streamed Chat Completions calls, their tokens exactly
 * what the upstream served, and nothing else tried (no models catalogue, no
 * npm install, no title call: the row's `unmetered_requests` is 0, and the
 * upstream saw the two calls only).
 *
 * Skipped when no engine answers (CI has one: .ci/install_docker.sh).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { requireDockerEngine } from "./_docker_engine.ts";
import { realAgentEpisode } from "./_real_agent_episode.ts";

const ENGINE = await requireDockerEngine("tests/opencode_test.ts");
const MODEL = "m-opencode";

Deno.test({
  name:
    "agent-opencode solves a demo task through the relay: two streamed Chat Completions calls, tokens as served, no other request",
  ignore: !ENGINE.available,
  async fn() {
    const { row, requests, arrivals, cmd, errors, calls } = await realAgentEpisode({
      agentId: "opencode",
      image: "ledgerbench/agent-opencode",
      model: MODEL,
      toolCall: (cmd) => ({
        name: "bash",
        arguments: JSON.stringify({ command: cmd, description: "Write the answer" }),
      }),
      then: 'echo "shell=ok"',
      usage: "scripted",
      // "m-opencode" has no published tokenizer: its prompts are bounded by their bytes.
      plan: () => ({ caps: { token_cap: 200_000 } }),
      logArrivals: true,
    });
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
    deepEqual(arrivals.map((a) => [a.method, a.path]), [
      ["POST", "/v1/chat/completions"],
      ["POST", "/v1/chat/completions"],
    ]);
    deepEqual(
      requests.map((r) => [r.api, r.turn, r.matched, r.status]),
      [["chat", 0, "rule 0", 200], ["chat", 1, "rule 1", 200]],
    );
    for (const request of requests) {
      const body = request.body as {
        model: string;
        stream: boolean;
        tools: { function: { name: string } }[];
      };
      deepEqual([body.model, body.stream], [MODEL, true]);
      ok(body.tools.some((tool) => tool.function.name === "bash"), "opencode offers its bash tool");
      ok(!body.tools.some((tool) => tool.function.name === "webfetch"), "webfetch is denied");
    }
    equal(calls.every((call) => call.prompt_bound_source === "bytes"), true);
    // Its tool call ran and succeeded.
    const second = (requests[1].body as {
      messages: {
        role: string;
        content: unknown;
        tool_calls?: { function: { arguments: string } }[];
      }[];
    }).messages;
    const call = second.findLast((message) => message.tool_calls !== undefined);
    equal(JSON.parse(call!.tool_calls![0].function.arguments).command, cmd);
    match(JSON.stringify(second.at(-1)?.content), /shell=ok/);
    console.log(
      `opencode: first request body ${arrivals[0].bytes} bytes, second ${arrivals[1].bytes}`,
    );
  },
});
