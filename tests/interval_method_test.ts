/**
 * The plan's `interval_method` (issue 13) through the CLI: `freeze
 * --interval-method` records it, a plan without it keeps its bytes, and
 * `summarize` and `censoring` read it from the plan (a conflicting flag is a
 * usage error) or from the flag when there is no plan, and say which.
 */
import assert from "node:assert/strict";
import { Plan } from "../analysis/schema/records.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { DEMO_SEED, DEMO_SUITE } from "../suites/demo_suite.ts";
import { cliInProcess, cliInProcessWithEnv, SAMPLE } from "./_cli_run.ts";

const NO_ENGINE = { DOCKER_HOST: "unix:///nonexistent/docker.sock" };
const SOLVER = "ledgerbench/agent-solver:latest";
const DIGESTS = [
  "--image-digest",
  `${SOLVER}=sha256:${"a1".repeat(32)}`,
  "--image-digest",
  `ledgerbench/verifier:latest=sha256:${"b2".repeat(32)}`,
];

function freeze(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliInProcessWithEnv(
    NO_ENGINE,
    "freeze",
    "--without-agent-check",
    "no engine in this test",
    ...args,
    ...DIGESTS,
  );
}

Deno.test("freeze records --interval-method; without it the plan has no such key", async () => {
  const dir = await Deno.makeTempDir({ prefix: "interval_method_" });
  try {
    const suite = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
    const common = ["--suite", suite.dir, "--order-seed", "7", "--agent", `solver=${SOLVER}`];
    const chosen = await freeze([
      ...common,
      "--out",
      `${dir}/cp.json`,
      "--interval-method",
      "clopper-pearson",
    ]);
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.ok(chosen.stdout.includes("interval method: clopper-pearson\n"), chosen.stdout);
    const plan = Plan.parse(JSON.parse(await Deno.readTextFile(`${dir}/cp.json`)));
    assert.equal(plan.interval_method, "clopper-pearson");
    const plain = await freeze([...common, "--out", `${dir}/plain.json`]);
    assert.equal(plain.code, 0, plain.stderr);
    const text = await Deno.readTextFile(`${dir}/plain.json`);
    assert.ok(!text.includes("interval_method"), "absent means percentile-bootstrap, no key");

    // summarize reads the plan's method; the same flag agrees, another is a usage error.
    const withPlan = await cliInProcess("summarize", SAMPLE, "--plan", `${dir}/cp.json`, "--json");
    // The sample's tasks are not the plan's: the denominator differs, the method is read.
    const json = JSON.parse(withPlan.stdout);
    assert.deepEqual(
      [json.parameters.interval_method, json.parameters.interval_method_source],
      ["clopper-pearson", "plan"],
    );
    // Agent a, 3/4: scipy.stats.binomtest(3, 4).proportion_ci(method="exact") ->
    // (0.19412044968324338, 0.9936905367902901); canonical JSON keeps 12 digits.
    assert.equal(json.agents[0].interval.lower, 0.194120449683);
    assert.equal(json.agents[0].interval.upper, 0.99369053679);
    assert.equal(json.agents[0].coverage_warning, null);
    const agrees = await cliInProcess(
      "summarize",
      SAMPLE,
      "--plan",
      `${dir}/cp.json`,
      "--interval-method",
      "clopper-pearson",
    );
    assert.equal(agrees.code, 0, agrees.stderr);
    assert.ok(agrees.stdout.includes("interval: clopper-pearson, 95% (plan)\n"), agrees.stdout);
    const conflict = await cliInProcess(
      "summarize",
      SAMPLE,
      "--plan",
      `${dir}/plain.json`,
      "--interval-method",
      "wilson",
    );
    assert.equal(conflict.code, 1);
    assert.match(
      conflict.stderr,
      /^error: Option "--interval-method" \("wilson"\) conflicts with the plan's interval_method \("percentile-bootstrap"\)/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("summarize without a plan takes --interval-method and says which interval it printed", async () => {
  // Default: the percentile bootstrap, with the coverage warning and Wilson beside it at n = 4.
  const plain = await cliInProcess("summarize", SAMPLE, "--width", "200");
  assert.equal(plain.code, 0, plain.stderr);
  assert.ok(plain.stdout.includes("interval: percentile-bootstrap (seed 001), 95% (default)\n"));
  // scipy.stats.binomtest(3, 4).proportion_ci(method="wilson") -> (0.3006, 0.9544)
  assert.ok(
    plain.stdout.includes(
      'warning: agent "a" (3/4): n = 4 < 30, 1 unresolved (fewer than 5): the percentile ' +
        "bootstrap interval covers well below 95% here; Wilson 95% interval [30.1%, 95.4%]\n",
    ),
    plain.stdout,
  );
  const wilson = await cliInProcess("summarize", SAMPLE, "--interval-method", "wilson");
  assert.ok(wilson.stdout.includes("interval: wilson, 95% (flag)\n"));
  assert.ok(wilson.stdout.includes("[30.1%, 95.4%]"));
  assert.ok(!wilson.stdout.includes("warning:"));
  assert.ok(!wilson.stdout.includes("bootstrap: 2000 rounds"));
  const censoring = JSON.parse(
    (await cliInProcess("censoring", SAMPLE, "--interval-method", "wilson", "--json")).stdout,
  );
  assert.deepEqual(
    [censoring.parameters.interval_method, censoring.parameters.interval_method_source],
    ["wilson", "flag"],
  );
});
