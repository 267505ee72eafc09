import { deepEqual, equal, match, rejects, throws } from "node:assert/strict";
import { createHash } from "node:crypto";
import { generateSuite } from "./generate_suite.ts";
import { freezePlan, writePlan } from "./freeze_plan.ts";
import { loadPlan } from "../inputs/plan.ts";
import { shuffleOnce } from "../analysis/shuffle_once.ts";
import { DEMO_SEED, DEMO_SUITE } from "../suites/demo_suite.ts";
import { tempDir } from "./_temp_dir_for_test.ts";

const DIGEST = `sha256:${"ab".repeat(32)}`;

Deno.test("freezePlan() records the suite hash, the shuffled order and every frozen choice", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const suite = await generateSuite(DEMO_SUITE, {
    seed: DEMO_SEED,
    dir: `${dir}/suite`,
    publicSeed: true,
  });
  const plan = freezePlan(suite, {
    plan_id: "p1",
    created_at: "2026-11-30T00:00:00.000Z",
    agents: [{
      agent_id: "solver",
      image: "ledgerbench/agent-solver:latest",
      image_digest: DIGEST,
    }],
    order_seed: 20261107,
    caps: { token_cap: 5000 },
    price_table_id: "demo",
    stopping: {
      kind: "sprt",
      params: { p_adopt: 0.6, p_drop: 0.4, alpha: 0.1, beta: 0.1, n_cap: 60 },
    },
    invalid_policy: "rerun-task",
    runner_version: "0.1.0+src.test",
    verifier_image: "ledgerbench/verifier:latest",
    verifier_image_digest: DIGEST,
  });
  equal(plan.suite_sha256, suite.sha256);
  deepEqual(
    plan.tasks.map((t) => t.task_id),
    shuffleOnce(suite.manifest.tasks.map((t) => t.task_id), 20261107),
  );
  deepEqual(plan.caps, { token_cap: 5000, step_cap: null, wall_ms_cap: null });
  equal(plan.max_attempts, 3);
  deepEqual(plan.lane_weights, { A: 8, B: 24, C: 12 });
  deepEqual(plan.agents, [{
    agent_id: "solver",
    image: "ledgerbench/agent-solver:latest",
    image_digest: DIGEST,
    model: null,
  }]);
  equal(plan.environment.verifier_image_digest, DIGEST);
  throws(
    () =>
      freezePlan(suite, {
        ...baseOptions(),
        agents: [{ agent_id: "x", image: "i", image_digest: "nope" }],
      }),
    /field "agents.0.image_digest": must look like "sha256:<64 hex>"/,
  );

  const path = `${dir}/plan.json`;
  const written = await writePlan(path, plan);
  const text = await Deno.readTextFile(path);
  equal(written.sha256, createHash("sha256").update(text).digest("hex"));
  equal(await Deno.readTextFile(`${path}.sha256`), `${written.sha256}  plan.json\n`);
  deepEqual((await loadPlan(path, { frozen: true })).value, plan);
  await rejects(writePlan(path, plan), /a frozen plan is never rewritten/);
  await rejects(
    loadPlan(path, { frozen: true, expectedSha256: "0".repeat(64) }),
    /its SHA-256 is [0-9a-f]{64}, but --plan-sha256 publishes 0{64}: the plan was changed after it was frozen/,
  );
  await Deno.writeTextFile(path, text.replace('"token_cap": 5000', '"token_cap": 9000'));
  await rejects(loadPlan(path, { frozen: true }), /its SHA-256 is/);
  // Same meaning, other bytes: refused even with a matching published hash.
  const reformatted = JSON.stringify(JSON.parse(text));
  await Deno.writeTextFile(path, reformatted);
  const hash = createHash("sha256").update(reformatted).digest("hex");
  await rejects(
    loadPlan(path, { frozen: true, expectedSha256: hash }),
    /not in the canonical form/,
  );
});

function baseOptions() {
  return {
    plan_id: "p",
    created_at: "2026-11-30T00:00:00.000Z",
    order_seed: 1,
    price_table_id: "x",
    runner_version: "v",
    verifier_image: "v",
    verifier_image_digest: DIGEST,
  };
}

Deno.test("loadPlan() asks for the published hash when no sidecar is beside the plan", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  await Deno.writeTextFile(`${dir}/plan.json`, "{}");
  await rejects(loadPlan(`${dir}/plan.json`, { frozen: true }), (error: Error) => {
    match(
      error.message,
      /no ".*plan.json.sha256" beside it to check its hash; pass the published hash with --plan-sha256/,
    );
    return true;
  });
});

Deno.test("freezePlan() records model_limits only when given, and loadPlan() keeps them", async () => {
  await using temp = await tempDir();
  const suite = await generateSuite(DEMO_SUITE, {
    seed: DEMO_SEED,
    dir: `${temp.path}/suite`,
    publicSeed: true,
  });
  const agents = [{ agent_id: "solver", image: "i", image_digest: DIGEST }];
  // Not given: no model_limits member, so the plan's bytes are what they were before it existed.
  const plain = freezePlan(suite, { ...baseOptions(), agents });
  equal(Object.hasOwn(plain, "model_limits"), false);
  // Given in part: the other limit is null.
  const limited = freezePlan(suite, {
    ...baseOptions(),
    agents,
    model_limits: { max_output_tokens: 1024 },
  });
  deepEqual(limited.model_limits, { max_output_tokens: 1024, context_limit_tokens: null });
  const path = `${temp.path}/plan.json`;
  await writePlan(path, limited);
  match(await Deno.readTextFile(path), /"model_limits": \{\n {4}"context_limit_tokens": null,/);
  deepEqual((await loadPlan(path, { frozen: true })).value.model_limits, limited.model_limits);
  throws(
    () => freezePlan(suite, { ...baseOptions(), agents, model_limits: { max_output_tokens: 0 } }),
    /field "model_limits.max_output_tokens": /,
  );
});

Deno.test("freezePlan() records upstream_timeout_ms below every wall cap, 90% of the smallest by default", async () => {
  await using temp = await tempDir();
  const suite = await generateSuite(DEMO_SUITE, {
    seed: DEMO_SEED,
    dir: `${temp.path}/suite`,
    publicSeed: true,
  });
  const agents = [{ agent_id: "solver", image: "i", image_digest: DIGEST }];
  // The demo tasks' own wall caps are 60000 ms (a1, a2, c1, c2) and 90000 ms (b1, b2, b3).
  // Not given: 90% of the smallest, 0.9 x 60000 = 54000 ms.
  equal(freezePlan(suite, { ...baseOptions(), agents }).upstream_timeout_ms, 54_000);
  const timed = freezePlan(suite, { ...baseOptions(), agents, upstream_timeout_ms: 59_999 });
  equal(timed.upstream_timeout_ms, 59_999);
  const path = `${temp.path}/plan.json`;
  await writePlan(path, timed);
  match(await Deno.readTextFile(path), /\n {2}"upstream_timeout_ms": 59999\n/);
  equal((await loadPlan(path, { frozen: true })).value.upstream_timeout_ms, 59_999);
  throws(
    () => freezePlan(suite, { ...baseOptions(), agents, upstream_timeout_ms: 60_000 }),
    /^Error: Cannot freeze plan: the upstream timeout of 60000 ms must be below the smallest wall cap, 60000 ms$/,
  );
  // The plan's wall cap replaces every task's; a large one is held to the relay's 300000 ms.
  const capped = { ...baseOptions(), agents, caps: { wall_ms_cap: 5000 } };
  equal(freezePlan(suite, capped).upstream_timeout_ms, 4500);
  const long = { ...baseOptions(), agents, caps: { wall_ms_cap: 3_600_000 } };
  equal(freezePlan(suite, long).upstream_timeout_ms, 300_000);
  equal(freezePlan(suite, { ...capped, upstream_timeout_ms: 4999 }).upstream_timeout_ms, 4999);
  throws(
    () => freezePlan(suite, { ...capped, upstream_timeout_ms: 5000 }),
    /must be below the smallest wall cap, 5000 ms$/,
  );
  throws(
    () => freezePlan(suite, { ...baseOptions(), agents, upstream_timeout_ms: 0.5 }),
    /field "upstream_timeout_ms": /,
  );
});

Deno.test("freezePlan() records an agent's env and command only when given, and loadPlan() keeps them", async () => {
  await using temp = await tempDir();
  const suite = await generateSuite(DEMO_SUITE, {
    seed: DEMO_SEED,
    dir: `${temp.path}/suite`,
    publicSeed: true,
  });
  const codex = {
    agent_id: "codex",
    image: "ledgerbench/agent-codex:latest",
    image_digest: DIGEST,
  };
  // Not given: no env or command member, so the plan's bytes are what they were before they existed.
  const plain = freezePlan(suite, { ...baseOptions(), agents: [codex] });
  deepEqual(Object.keys(plain.agents[0]).sort(), ["agent_id", "image", "image_digest", "model"]);
  const configured = freezePlan(suite, {
    ...baseOptions(),
    agents: [codex, {
      ...codex,
      agent_id: "codex-low",
      env: { RUST_LOG: "warn", CODEX_NOTE: "a=b:c" },
      command: ["codex-agent", "-c", 'model_reasoning_effort="low"'],
    }],
  });
  const path = `${temp.path}/plan.json`;
  const written = await writePlan(path, configured);
  match(
    await Deno.readTextFile(path),
    /"command": \[\n {8}"codex-agent",\n {8}"-c",\n {8}"model_reasoning_effort=\\"low\\""\n {6}\],\n {6}"env": \{\n {8}"CODEX_NOTE": "a=b:c",\n {8}"RUST_LOG": "warn"\n {6}\},/,
  );
  const loaded = await loadPlan(path, { frozen: true });
  equal(loaded.sha256, written.sha256);
  deepEqual(loaded.value.agents, configured.agents);
  // The runner's own variables and its LEDGERBENCH_ prefix are refused, naming the field.
  for (
    const name of ["OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "LEDGERBENCH_MODEL", "LEDGERBENCH_X"]
  ) {
    throws(
      () => freezePlan(suite, { ...baseOptions(), agents: [{ ...codex, env: { [name]: "x" } }] }),
      new RegExp(`field "agents\\.0\\.env\\.${name}": is set by the runner`),
    );
  }
  throws(
    () => freezePlan(suite, { ...baseOptions(), agents: [{ ...codex, env: { "A-B": "x" } }] }),
    /field "agents\.0\.env\.A-B": must be an environment variable name/,
  );
  throws(
    () => freezePlan(suite, { ...baseOptions(), agents: [{ ...codex, command: [] }] }),
    /field "agents\.0\.command": /,
  );
});

Deno.test("loadPlan() still loads the committed demo plan, frozen before env and command existed, byte for byte", async () => {
  const path = new URL("../ledgers/demo/plan.json", import.meta.url).pathname;
  // loadPlan() checks the sidecar hash and that the bytes are the canonical form of the parse.
  const { value: plan } = await loadPlan(path, { frozen: true });
  for (const agent of plan.agents) {
    equal(Object.hasOwn(agent, "env") || Object.hasOwn(agent, "command"), false);
  }
});
