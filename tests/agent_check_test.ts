/**
 * `ledgerbench agent check` on the real engine (issue 21, "Invalid only
 * when the harness failed"), through the real CLI as a subprocess, with the
 * offline images: `agent-solver` makes one metered call (ok);
 * `agent-nocall` makes none (refused); `agent-relay_attacker` in its
 * `foreign-api` mode (chosen by its model name, since a plan may not set a
 * `LEDGERBENCH_*` variable) makes only requests the relay refuses (refused,
 * every refusal listed). Then `freeze --agent-check` with the result: the
 * solver is planned, the two others refused, each naming what the relay
 * refused and what fixes it; and `freeze` without it runs the check itself.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { AgentCheck, Plan } from "../analysis/schema/records.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { DEMO_SEED, MINI_SUITE } from "../suites/demo_suite.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli, fileSha256 } from "./_cli_run.ts";
import { displayLength } from "../cli/_table_layout.ts";

const ENGINE = await requireDockerEngine("tests/agent_check_test.ts");

const SOLVER = "ledgerbench/agent-solver:latest";
const NOCALL = "ledgerbench/agent-nocall:latest";
const ATTACKER = "ledgerbench/agent-relay_attacker:latest";

Deno.test({
  name:
    "agent check: the solver passes, no-call and foreign-API agents are refused, freeze follows",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-agent-check-test-" });
    try {
      const check = await cli(
        "agent",
        "check",
        "--agent",
        `solver=${SOLVER}`,
        "--agent",
        `nocall=${NOCALL}`,
        "--agent",
        `foreign=${ATTACKER}`,
        "--model",
        "foreign=relay-attack:foreign-api",
        "--out",
        `${dir}/check.json`,
        "--width",
        "80",
      );
      equal(check.code, 3, check.stderr + check.stdout);
      // issue 25: the text fits the width (an ellipsis is one column)
      for (const line of check.stdout.split("\n")) ok(displayLength(line) <= 80, line);
      const result = AgentCheck.parse(JSON.parse(await Deno.readTextFile(`${dir}/check.json`)));
      equal(result.passed, false);
      equal(result.token_cap, 1_000_000_000);
      const [solver, nocall, foreign] = result.agents;
      deepEqual(result.agents.map((a) => [a.agent_id, a.verdict, a.reason, a.model_calls]), [
        ["solver", "ok", null, 1],
        ["nocall", "refused", "no metered model call", 0],
        ["foreign", "refused", "no metered model call", 0],
      ]);

      // The solver's one Chat Completions call, recorded under the large cap: it asks for no
      // output cap (containers/agents/_model.ts sends none), so the relay set what was left.
      equal(solver.first_call?.endpoint, "/v1/chat/completions");
      equal(solver.first_call?.cap_lowered, true);
      equal(solver.first_call?.requested_output_cap, null);
      const bound = solver.first_call!.prompt_bound!;
      equal(solver.first_call?.output_cap, 1_000_000_000 - bound);
      deepEqual(solver.refused_calls, []);
      deepEqual(solver.denied_requests, []);
      equal(solver.episode?.status, "scored");

      equal(nocall.first_call, null);
      deepEqual(nocall.refused_calls, []);
      deepEqual(nocall.denied_requests, []);
      equal(nocall.episode?.status, "scored");

      // foreign-api (containers/agents/relay_attacker.ts): POST /v1/embeddings, outside the
      // relay's surface, and POST /v1/messages, of an API the openai upstream does not serve.
      deepEqual(foreign.denied_requests, [
        { method: "POST", target: "/v1/embeddings", status: 404, code: "not_found" },
      ]);
      deepEqual(
        foreign.refused_calls.map((c) => [c.endpoint, c.refusal, c.status]),
        [["/v1/messages", "unsupported", 404]],
      );
      equal(foreign.model, "relay-attack:foreign-api");
      // The row is a scored failure: what an agent sends is its choice.
      deepEqual(foreign.episode && [foreign.episode.status, foreign.episode.invalid_reason], [
        "scored",
        null,
      ]);

      // The text report: a verdict per agent, the refusals, and the summary line.
      match(check.stdout, /^agent solver: ok$/m);
      match(check.stdout, /^agent nocall: refused: no metered model call$/m);
      match(check.stdout, /^ {4}POST \/v1\/embeddings: 404 not_found$/m);
      match(check.stdout, /^ {4}#1 POST \/v1\/messages: unsupported \(404\)/m);
      match(check.stdout, /^REFUSED: 1 of 3 agents made a metered model call/m);

      // The solver alone passes: exit 0, and --json prints the same record.
      const alone = await cli("agent", "check", "--agent", `solver=${SOLVER}`, "--json");
      equal(alone.code, 0, alone.stderr);
      const printed = AgentCheck.parse(JSON.parse(alone.stdout));
      equal(printed.passed, true);
      equal(printed.agents[0].first_call?.prompt_bound, bound);

      // freeze holds the plan's agents to the check, by id and image digest.
      const suite = await generateSuite(MINI_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
      const freeze = (out: string, ...agents: string[]) =>
        cli(
          "freeze",
          "--suite",
          suite.dir,
          "--out",
          `${dir}/${out}`,
          "--order-seed",
          "1",
          ...agents.flatMap((agent) => ["--agent", agent]),
          "--agent-check",
          `${dir}/check.json`,
        );
      const planned = await freeze("plan.json", `solver=${SOLVER}`);
      equal(planned.code, 0, planned.stderr);
      const plan = Plan.parse(JSON.parse(await Deno.readTextFile(`${dir}/plan.json`)));
      deepEqual(plan.agent_check, {
        sha256: await fileSha256(`${dir}/check.json`),
        checked_at: result.checked_at,
      });
      // Each refusal names what the relay refused and what fixes it.
      const fixes = {
        nocall: "no model call was made (episode: zero model calls: a scored failure (seed 000))",
        foreign: `call #${foreign.refused_calls[0].index} POST /v1/messages refused ` +
          "unsupported: give its upstream kind: --upstream-kind foreign=anthropic",
      };
      for (const [id, image] of [["nocall", NOCALL], ["foreign", ATTACKER]] as const) {
        const refused = await freeze(`${id}.json`, `solver=${SOLVER}`, `${id}=${image}`);
        equal(refused.code, 3, refused.stderr);
        equal(
          refused.stderr,
          `error: Cannot freeze plan: agent "${id}" failed the agent check "${dir}/check.json": ` +
            `no metered model call; ${fixes[id]}\n`,
        );
      }

      // Without --agent-check, freeze runs the check itself and keeps its result beside the plan.
      const own = await cli(
        "freeze",
        "--suite",
        suite.dir,
        "--out",
        `${dir}/own.json`,
        "--agent",
        `solver=${SOLVER}`,
      );
      equal(own.code, 0, own.stderr);
      const ownPlan = Plan.parse(JSON.parse(await Deno.readTextFile(`${dir}/own.json`)));
      const ownCheck = AgentCheck.parse(
        JSON.parse(await Deno.readTextFile(`${dir}/own.json.agent-check.json`)),
      );
      deepEqual(ownPlan.agent_check, {
        sha256: await fileSha256(`${dir}/own.json.agent-check.json`),
        checked_at: ownCheck.checked_at,
      });
      equal(ownCheck.agents[0].verdict, "ok");
      const ownRefused = await cli(
        "freeze",
        "--suite",
        suite.dir,
        "--out",
        `${dir}/own-refused.json`,
        "--agent",
        `nocall=${NOCALL}`,
      );
      equal(ownRefused.code, 3, ownRefused.stderr);
      match(
        ownRefused.stderr,
        /^error: Cannot freeze plan: agent "nocall" failed the agent check ".*own-refused\.json\.agent-check\.json": no metered model call; /m,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "agent check passes the real agents built here, each against a provider of its API",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const check = await cli(
      "agent",
      "check",
      "--agent",
      "gemini=ledgerbench/agent-gemini:latest",
      "--upstream-kind",
      "gemini=gemini",
      "--model",
      "gemini=gemini-2.5-flash",
      "--agent",
      "opencode=ledgerbench/agent-opencode:latest",
      "--json",
    );
    equal(check.code, 0, check.stderr + check.stdout);
    const result = AgentCheck.parse(JSON.parse(check.stdout));
    deepEqual(
      result.agents.map((agent) => [agent.agent_id, agent.verdict, agent.first_call?.endpoint]),
      [
        ["gemini", "ok", "/v1beta/models/gemini-2.5-flash:streamGenerateContent"],
        ["opencode", "ok", "/v1/chat/completions"],
      ],
    );
    for (const agent of result.agents) {
      deepEqual([agent.refused_calls, agent.denied_requests], [[], []], agent.agent_id);
    }
  },
});
