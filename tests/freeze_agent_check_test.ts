/**
 * `freeze --agent-check FILE` and `agent check` without a Docker engine
 * (issue 21): the real CLI as a subprocess, every image digest given with
 * `--image-digest`, the agent check results written by hand through the
 * `AgentCheck` schema. A passing check is recorded in the plan; an agent
 * that failed it or is missing from it is refused (exit 3, one line); a
 * token cap below what an agent's first call requests is warned about; a
 * file that does not fit the schema is bad input (exit 2) naming file and
 * field; `agent check` needs the engine (exit 3, one line).
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { AgentCheck, type AgentCheckAgent, Plan } from "../analysis/schema/records.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { DEMO_SEED, MINI_SUITE } from "../suites/demo_suite.ts";
import { cliInProcessWithEnv, fileSha256 } from "./_cli_run.ts";

const NO_ENGINE = { DOCKER_HOST: "unix:///nonexistent/docker.sock" };
const SOLVER = "ledgerbench/agent-solver:latest";
const NOCALL = "ledgerbench/agent-nocall:latest";
const VERIFIER = "ledgerbench/verifier:latest";
const SOLVER_DIGEST = `sha256:${"a1".repeat(32)}`;
const NOCALL_DIGEST = `sha256:${"c3".repeat(32)}`;
const VERIFIER_DIGEST = `sha256:${"b2".repeat(32)}`;
const DIGESTS = [
  "--image-digest",
  `${SOLVER}=${SOLVER_DIGEST}`,
  "--image-digest",
  `${VERIFIER}=${VERIFIER_DIGEST}`,
];

function ledgerbench(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliInProcessWithEnv(NO_ENGINE, ...args);
}

/** The solver's entry as `agent check` writes it: one Chat Completions call, a 68-token prompt bound, 512 asked. */
const SOLVER_OK: AgentCheckAgent = {
  agent_id: "solver",
  image: SOLVER,
  image_digest: SOLVER_DIGEST,
  model: null,
  upstream_kind: "openai",
  verdict: "ok",
  reason: null,
  model_calls: 1,
  first_call: {
    index: 1,
    endpoint: "/v1/chat/completions",
    prompt_bound: 68,
    output_cap: 512,
    requested_output_cap: 512,
    cap_lowered: false,
  },
  refused_calls: [],
  denied_requests: [],
  episode: { status: "scored", invalid_reason: null, stop_reason: "completed", notes: "" },
};

const NOCALL_REFUSED: AgentCheckAgent = {
  ...SOLVER_OK,
  agent_id: "nocall",
  image: NOCALL,
  image_digest: NOCALL_DIGEST,
  verdict: "refused",
  reason: "no metered model call",
  model_calls: 0,
  first_call: null,
  episode: {
    status: "scored",
    invalid_reason: null,
    stop_reason: "completed",
    notes: "zero model calls: a scored failure (seed 000)",
  },
};

async function writeCheck(path: string, agents: AgentCheckAgent[]): Promise<void> {
  const check = AgentCheck.parse({
    schema_version: 1,
    checked_at: "2026-12-01T12:00:00.000Z",
    runner_version: "0.1.0+test",
    token_cap: 1_000_000_000,
    passed: agents.every((agent) => agent.verdict === "ok"),
    agents,
  });
  await Deno.writeTextFile(path, canonicalJson(check));
}

Deno.test({
  name:
    "freeze --agent-check records a passing check, refuses a failed or missing agent, warns on caps",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "freeze_agent_check_" });
    try {
      const suite = await generateSuite(MINI_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
      await writeCheck(`${dir}/check.json`, [SOLVER_OK, NOCALL_REFUSED]);
      const freeze = (out: string, ...rest: string[]) =>
        ledgerbench([
          "freeze",
          "--suite",
          suite.dir,
          "--order-seed",
          "7",
          "--out",
          `${dir}/${out}`,
          ...DIGESTS,
          // the summary's lines pinned whole, unfolded
          "--width",
          "400",
          ...rest,
        ]);

      // The solver passed: the plan records the file's SHA-256 and the check's time.
      const ok = await freeze(
        "ok.json",
        "--agent",
        `solver=${SOLVER}`,
        "--agent-check",
        `${dir}/check.json`,
      );
      equal(ok.code, 0, ok.stderr);
      const plan = Plan.parse(JSON.parse(await Deno.readTextFile(`${dir}/ok.json`)));
      deepEqual(plan.agent_check, {
        sha256: await fileSha256(`${dir}/check.json`),
        checked_at: "2026-12-01T12:00:00.000Z",
      });
      equal(ok.stderr.includes("not checked"), false, ok.stderr);
      match(ok.stdout, /^agent check: passed \(.*check\.json, sha256 [0-9a-f]{64}, 2026-12-01/m);

      // Without --agent-check, freeze runs the check itself, in the sandbox: without an
      // engine it refuses, one line, exit 3, no plan written.
      const noEngine = await freeze("no-engine.json", "--agent", `solver=${SOLVER}`);
      equal(noEngine.code, 3, noEngine.stderr);
      match(
        noEngine.stderr,
        /^error: Cannot check the agents: .*\(freeze runs the agent check in the Docker sandbox: give "--agent-check FILE" from a machine with an engine, or "--without-agent-check REASON"\)\n$/,
      );
      equal(await exists(`${dir}/no-engine.json`), false);

      // --without-agent-check REASON: one warning, the reason in the plan.
      const unchecked = await freeze(
        "unchecked.json",
        "--agent",
        `solver=${SOLVER}`,
        "--without-agent-check",
        "checked by hand on the cluster",
      );
      equal(unchecked.code, 0, unchecked.stderr);
      equal(unchecked.stderr.match(/^warning: the agents were not checked/gm)?.length, 1);
      deepEqual(JSON.parse(await Deno.readTextFile(`${dir}/unchecked.json`)).agent_check, {
        skipped: "checked by hand on the cluster",
      });
      match(unchecked.stdout, /^agent check: skipped: checked by hand on the cluster$/m);

      // The agent that made no metered call: refused, one line, exit 3, no plan written.
      const failed = await freeze(
        "failed.json",
        "--agent",
        `solver=${SOLVER}`,
        "--agent",
        `nocall=${NOCALL}`,
        "--image-digest",
        `${NOCALL}=${NOCALL_DIGEST}`,
        "--agent-check",
        `${dir}/check.json`,
      );
      equal(failed.code, 3, failed.stderr);
      equal(
        failed.stderr,
        `error: Cannot freeze plan: agent "nocall" failed the agent check "${dir}/check.json": ` +
          "no metered model call; no model call was made (episode: zero model calls: a scored " +
          "failure (seed 000))\n",
      );
      equal(await exists(`${dir}/failed.json`), false);

      // An agent id the check does not hold: refused.
      const missing = await freeze(
        "missing.json",
        "--agent",
        `other=${SOLVER}`,
        "--agent-check",
        `${dir}/check.json`,
      );
      equal(missing.code, 3, missing.stderr);
      match(
        missing.stderr,
        /^error: Cannot freeze plan: agent "other" with image sha256:a1a1.* is not in the agent check/,
      );
      equal(missing.stderr.split("\n").length, 2);

      // Token cap 500 < 68 + 512: the relay will lower the output cap (to 432).
      const lowered = await freeze(
        "lowered.json",
        "--agent",
        `solver=${SOLVER}`,
        "--agent-check",
        `${dir}/check.json`,
        "--token-cap",
        "500",
      );
      equal(lowered.code, 0, lowered.stderr);
      match(
        lowered.stderr,
        /^warning: the token cap \(500\) is below what agent "solver"'s first call requests \(prompt bound 68 \+ output cap 512 in the agent check\): the relay will lower its output cap to at most 432$/m,
      );

      // Token cap 68 < 68 + 1: every call will be refused.
      const refusing = await freeze(
        "refusing.json",
        "--agent",
        `solver=${SOLVER}`,
        "--agent-check",
        `${dir}/check.json`,
        "--token-cap",
        "68",
      );
      equal(refusing.code, 0, refusing.stderr);
      match(
        refusing.stderr,
        /^warning: the token cap \(68\) is below agent "solver"'s first call's prompt bound \+ 1 .*the relay will refuse every call/m,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "freeze --agent-check refuses a file that does not fit the schema, naming file and field",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "freeze_agent_check_bad_" });
    try {
      const suite = await generateSuite(MINI_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
      const good = JSON.parse(
        canonicalJson(
          AgentCheck.parse({
            schema_version: 1,
            checked_at: "2026-12-01T12:00:00.000Z",
            runner_version: "0.1.0+test",
            token_cap: 1_000_000_000,
            passed: true,
            agents: [SOLVER_OK],
          }),
        ),
      );
      const freezeWith = (check: string) =>
        ledgerbench([
          "freeze",
          "--suite",
          suite.dir,
          "--out",
          `${dir}/plan.json`,
          "--agent",
          `solver=${SOLVER}`,
          ...DIGESTS,
          "--agent-check",
          `${dir}/${check}`,
        ]);
      // A verdict "ok" without a metered call is a contradiction, not a pass.
      await Deno.writeTextFile(
        `${dir}/bad.json`,
        JSON.stringify({ ...good, agents: [{ ...SOLVER_OK, model_calls: 0 }] }),
      );
      const bad = await freezeWith("bad.json");
      equal(bad.code, 2, bad.stderr);
      equal(
        bad.stderr,
        `error: ${dir}/bad.json: field "agents.0.verdict": must have "verdict" "ok" exactly when ` +
          '"model_calls" is above 0\n',
      );
      // An unknown key: strict.
      await Deno.writeTextFile(`${dir}/extra.json`, JSON.stringify({ ...good, extra: 1 }));
      const extra = await freezeWith("extra.json");
      equal(extra.code, 2, extra.stderr);
      match(extra.stderr, /^error: .*extra\.json: .*"extra"/);
      equal(await exists(`${dir}/plan.json`), false);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("agent check without an engine says so on one line and exits 3", async () => {
  const result = await ledgerbench(["agent", "check", "--agent", `solver=${SOLVER}`]);
  equal(result.code, 3, result.stderr);
  match(
    result.stderr,
    /^error: Cannot check the agents: .*\(the check runs in the Docker sandbox\)\n$/,
  );
  equal(result.stdout, "");
});

Deno.test("agent check's usage errors exit 1 with its help on stderr", async () => {
  for (
    const [args, message] of [
      [["agent"], 'Missing subcommand: expected "check"'],
      [["agent", "check"], 'Missing option: "--agent" (at least one agent)'],
      [
        ["agent", "check", "--agent", `a=${SOLVER}`, "--upstream-kind", "a=google"],
        'Option "--upstream-kind" for agent "a" must be one of "openai", "anthropic", "gemini": "google"',
      ],
      [
        ["agent", "check", "--agent", `a=${SOLVER}`, "--upstream-kind", "b=anthropic"],
        'Option "--upstream-kind" names "b", which is not an --agent',
      ],
      [
        ["agent", "check", "--agent", `a=${SOLVER}`, "--agent-env", "a:LEDGERBENCH_X=1"],
        'Option "--agent-env" for agent "a"',
      ],
      [
        ["agent", "check", "--agent", `a=${SOLVER}`, "--agent-command", "a=[1]"],
        'Option "--agent-command" for agent "a" must be a JSON array of at least one string',
      ],
    ] as const
  ) {
    const result = await ledgerbench([...args]);
    equal(result.code, 1, `${args.join(" ")}: ${result.stderr}`);
    equal(result.stderr.startsWith(`error: ${message}`), true, result.stderr);
    match(result.stderr, /USAGE:\n {2}deno task ledgerbench agent check/);
  }
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
