/**
 * `ledgerbench freeze` without a Docker engine: every image digest given with
 * `--image-digest` (as containers/build_images.sh prints them) freezes the
 * plan offline; a missing one is refused, naming the image. `--agent-env` and
 * `--agent-command` give one image several configurations in the plan.
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { Plan } from "../analysis/schema/records.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { DEMO_SEED, DEMO_SUITE } from "../suites/demo_suite.ts";
import { cliInProcessWithEnv } from "./_cli_run.ts";

const NO_ENGINE = { DOCKER_HOST: "unix:///nonexistent/docker.sock" };
const SOLVER = "ledgerbench/agent-solver:latest";
const VERIFIER = "ledgerbench/verifier:latest";
const SOLVER_DIGEST = `sha256:${"a1".repeat(32)}`;
const VERIFIER_DIGEST = `sha256:${"b2".repeat(32)}`;

function freeze(args: string[]): Promise<{ code: number; stderr: string }> {
  return cliInProcessWithEnv(
    NO_ENGINE,
    "freeze",
    "--without-agent-check",
    "no engine in this test",
    ...args,
  );
}

Deno.test("freeze takes every image digest from --image-digest without a Docker engine", async () => {
  const dir = await Deno.makeTempDir({ prefix: "freeze_offline_" });
  try {
    const suite = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
    const common = ["--suite", suite.dir, "--order-seed", "7", "--agent", `solver=${SOLVER}`];

    const written = await freeze([
      ...common,
      "--out",
      `${dir}/plan.json`,
      "--image-digest",
      `${SOLVER}=${SOLVER_DIGEST}`,
      "--image-digest",
      `${VERIFIER}=${VERIFIER_DIGEST}`,
    ]);
    equal(written.code, 0, written.stderr);
    const plan = Plan.parse(JSON.parse(await Deno.readTextFile(`${dir}/plan.json`)));
    deepEqual(plan.agents.map((a) => [a.agent_id, a.image, a.image_digest]), [
      ["solver", SOLVER, SOLVER_DIGEST],
    ]);
    equal(plan.environment.verifier_image_digest, VERIFIER_DIGEST);

    // The verifier's digest missing: the engine is needed, and there is none (exit 3).
    const missing = await freeze([
      ...common,
      "--out",
      `${dir}/plan2.json`,
      "--image-digest",
      `${SOLVER}=${SOLVER_DIGEST}`,
    ]);
    equal(missing.code, 3, missing.stderr);
    match(
      missing.stderr,
      /Cannot resolve image digests: .*give each with --image-digest: "ledgerbench\/verifier:latest"/,
    );

    // Usage errors (exit 1): a malformed digest, a digest for an image nobody uses.
    const malformed = await freeze([
      ...common,
      "--out",
      `${dir}/plan3.json`,
      "--image-digest",
      `${SOLVER}=sha256:xyz`,
    ]);
    equal(malformed.code, 1, malformed.stderr);
    match(malformed.stderr, /digest must look like "sha256:<64 hex>", got "sha256:xyz"/);
    const unused = await freeze([
      ...common,
      "--out",
      `${dir}/plan4.json`,
      "--image-digest",
      `other:latest=${SOLVER_DIGEST}`,
    ]);
    equal(unused.code, 1, unused.stderr);
    match(unused.stderr, /names image "other:latest", which no agent nor the verifier uses/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("freeze --agent-env and --agent-command put one image's configurations in the plan", async () => {
  const dir = await Deno.makeTempDir({ prefix: "freeze_offline_" });
  try {
    const suite = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
    const codex = "ledgerbench/agent-codex:latest";
    const common = [
      "--suite",
      suite.dir,
      "--order-seed",
      "7",
      "--agent",
      `codex=${codex}`,
      "--agent",
      `codex-low=${codex}`,
      "--image-digest",
      `${codex}=${SOLVER_DIGEST}`,
      "--image-digest",
      `${VERIFIER}=${VERIFIER_DIGEST}`,
    ];
    const written = await freeze([
      ...common,
      "--out",
      `${dir}/plan.json`,
      "--agent-command",
      'codex-low=["codex-agent", "-c", "model_reasoning_effort=\\"low\\""]',
      "--agent-env",
      "codex-low:RUST_LOG=warn",
      "--agent-env",
      "codex-low:NOTE=a:b=c",
    ]);
    equal(written.code, 0, written.stderr);
    const plan = Plan.parse(JSON.parse(await Deno.readTextFile(`${dir}/plan.json`)));
    deepEqual(plan.agents.map((a) => [a.agent_id, a.env, a.command]), [
      ["codex", undefined, undefined],
      ["codex-low", { NOTE: "a:b=c", RUST_LOG: "warn" }, [
        "codex-agent",
        "-c",
        'model_reasoning_effort="low"',
      ]],
    ]);

    // Usage errors (exit 1), each naming the option and what is wrong.
    const refused: Array<[string[], RegExp]> = [
      [["--agent-env", "codex:OPENAI_BASE_URL=http://x"], /"OPENAI_BASE_URL" is set by the runner/],
      [["--agent-env", "codex:LEDGERBENCH_MODEL=m"], /"LEDGERBENCH_MODEL" is set by the runner/],
      [["--agent-env", "other:A=1"], /"--agent-env" names "other", which is not an --agent/],
      [["--agent-env", "codex=A"], /"--agent-env" must look like ID:NAME=VALUE: "codex=A"/],
      [["--agent-env", "codex:A=1", "--agent-env", "codex:A=2"], /sets "A" of agent "codex" twice/],
      [["--agent-command", "codex=codex-agent"], /must be a JSON array of at least one string/],
      [["--agent-command", "codex=[]"], /must be a JSON array of at least one string: "\[\]"/],
      [["--agent-command", 'other=["x"]'], /"--agent-command" names "other", which is not/],
    ];
    for (const [i, [args, expected]] of refused.entries()) {
      const result = await freeze([...common, "--out", `${dir}/refused${i}.json`, ...args]);
      equal(result.code, 1, result.stderr);
      match(result.stderr, expected);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("freeze --upstream-timeout-ms records a timeout below every wall cap and refuses one that is not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "freeze_offline_" });
  try {
    const suite = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
    const common = [
      ...["--suite", suite.dir, "--order-seed", "7", "--agent", `solver=${SOLVER}`],
      ...["--image-digest", `${SOLVER}=${SOLVER_DIGEST}`],
      ...["--image-digest", `${VERIFIER}=${VERIFIER_DIGEST}`],
    ];
    const written = await freeze([
      ...common,
      ...["--out", `${dir}/plan.json`, "--wall-ms", "10000", "--upstream-timeout-ms", "5000"],
    ]);
    equal(written.code, 0, written.stderr);
    const plan = Plan.parse(JSON.parse(await Deno.readTextFile(`${dir}/plan.json`)));
    equal(plan.upstream_timeout_ms, 5000);
    // Not below the plan's wall cap: bad input (exit 2), one line, nothing written.
    const refused = await freeze([
      ...common,
      ...["--out", `${dir}/plan2.json`, "--wall-ms", "10000", "--upstream-timeout-ms", "10000"],
    ]);
    equal(refused.code, 2, refused.stderr);
    equal(
      refused.stderr,
      "error: Cannot freeze plan: the upstream timeout of 10000 ms must be below the smallest wall cap, 10000 ms\n",
    );
    equal(await Deno.stat(`${dir}/plan2.json`).then(() => true, () => false), false);
    // Without --wall-ms the demo tasks' own caps apply, the smallest 60000 ms.
    const tasks = await freeze([
      ...common,
      ...["--out", `${dir}/plan3.json`, "--upstream-timeout-ms", "60000"],
    ]);
    equal(tasks.code, 2, tasks.stderr);
    match(tasks.stderr, /must be below the smallest wall cap, 60000 ms\n$/);
    const zero = await freeze([
      ...common,
      "--out",
      `${dir}/plan4.json`,
      "--upstream-timeout-ms",
      "0",
    ]);
    equal(zero.code, 1, zero.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("freeze --missing-labelled-max records the plan's missing policy; absent, the plan has none", async () => {
  const dir = await Deno.makeTempDir({ prefix: "freeze_offline_" });
  try {
    const suite = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
    const common = [
      "--suite",
      suite.dir,
      "--order-seed",
      "7",
      "--agent",
      `solver=${SOLVER}`,
      "--image-digest",
      `${SOLVER}=${SOLVER_DIGEST}`,
      "--image-digest",
      `${VERIFIER}=${VERIFIER_DIGEST}`,
    ];
    const read = async (file: string) =>
      Plan.parse(JSON.parse(await Deno.readTextFile(`${dir}/${file}`)));
    equal(
      (await freeze([...common, "--out", `${dir}/a.json`, "--missing-labelled-max", "0.2"])).code,
      0,
    );
    // The headline threshold not given: the censoring one (2%) applies to missing tasks too.
    deepEqual((await read("a.json")).missing_policy, { headline_max: 0.02, labelled_max: 0.2 });
    equal((await freeze([...common, "--out", `${dir}/b.json`])).code, 0);
    equal((await read("b.json")).missing_policy, undefined);
    const inverted = await freeze([
      ...common,
      "--out",
      `${dir}/c.json`,
      "--missing-headline-max",
      "0.3",
      "--missing-labelled-max",
      "0.2",
    ]);
    equal(inverted.code, 1);
    match(
      inverted.stderr,
      /^error: Option "--missing-headline-max" \(0\.3\) must not exceed "--missing-labelled-max" \(0\.2\)\n/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
