import assert from "node:assert/strict";
import { DEMO_SEED, MINI_SUITE } from "../suites/demo_suite.ts";
import { freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { cliCommand } from "../tests/_cli_run.ts";
import { upstreamKindOf } from "./_upstream_options.ts";

Deno.test("upstreamKindOf() reads a known kind before + and defaults to openai", () => {
  assert.deepEqual(upstreamKindOf("anthropic+https://api.anthropic.com/v1"), {
    kind: "anthropic",
    target: "https://api.anthropic.com/v1",
  });
  assert.deepEqual(upstreamKindOf("openai+http://127.0.0.1:4000/v1"), {
    kind: "openai",
    target: "http://127.0.0.1:4000/v1",
  });
  assert.deepEqual(upstreamKindOf("https://api.example.com/v1"), {
    kind: "openai",
    target: "https://api.example.com/v1",
  });
  // an unknown prefix is part of the target (a file may have + in its name)
  assert.deepEqual(upstreamKindOf("a+b.json"), { kind: "openai", target: "a+b.json" });
});

Deno.test("run --unsandboxed refuses a plan its environment does not match with exit status 3, as its help says", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const suite = await generateSuite(MINI_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
  const digest = `sha256:${"0".repeat(64)}`;
  const frozen = await writePlan(
    `${dir}/plan.json`,
    freezePlan(suite, {
      plan_id: "host",
      created_at: "2026-12-01T00:00:00.000Z",
      agents: [{ agent_id: "h", image: null, image_digest: digest }],
      order_seed: 1,
      price_table_id: "test",
      runner_version: "0.0.0+src.other",
      verifier_image: "none",
      verifier_image_digest: digest,
    }),
  );
  // No engine is needed, nor asked, for an unsandboxed run: the check alone refuses it.
  // Its own TMPDIR: a runner sweeps what gone runners left there, and tests run side by side.
  const result = await cliCommand([
    "run",
    "--plan",
    frozen.path,
    "--suite",
    suite.dir,
    "--ledger",
    `${dir}/ledger.jsonl`,
    "--upstream",
    "http://127.0.0.1:9/v1",
    "--unsandboxed",
    "--agent-command",
    "h=true",
  ], {
    env: {
      DOCKER_HOST: "unix:///nonexistent/docker.sock",
      LEDGERBENCH_UPSTREAM_KEY: "k",
      TMPDIR: dir,
    },
  })
    .output();
  const stderr = new TextDecoder().decode(result.stderr);
  // cli/run.ts help, EXIT STATUS: "3 refused or halted (... environment differs from the plan ...)".
  assert.equal(result.code, 3, stderr);
  assert.match(
    stderr,
    new RegExp(
      `^error: Cannot run the plan: the environment does not match it: runner version is "[^"]+", ` +
        `the plan froze "0\\.0\\.0\\+src\\.other"\\n$`,
    ),
  );
  assert.equal(await Deno.stat(`${dir}/ledger.jsonl`).then(() => true, () => false), false);
});
