/**
 * Bad command-line options (issue 10): repeated options, negative numbers,
 * values outside an option's documented range (plan-field options take the
 * plan schema's range), seeds read by one rule, and text options checked
 * against the schema of the field they set. Each case runs the real CLI
 * (tests/_bad_input_table.ts); a usage error exits 1 with one `error:` line
 * naming the option, then the command's help.
 *
 * Below the table, one test runs every command that records a seed with
 * `--seed 007` and `--seed 7` and checks that both record the number 7.
 */
import assert from "node:assert/strict";
import { badInputTests } from "./_bad_input_table.ts";
import { cliInProcess, SAMPLE } from "./_cli_run.ts";

const LEDGER = `{root}/${SAMPLE}`;
const SHA = "a".repeat(64);
/** `freeze`'s required options; its numeric and text options are checked before the suite is read. */
const FREEZE = ["freeze", "--suite", "{dir}/suite", "--out", "{dir}/plan.json", "--agent", "a=img"];
/** `errata append`'s required options for a void_summary. */
const VOID = [
  "errata",
  "append",
  "{dir}/errata.jsonl",
  "--kind",
  "void_summary",
  "--summary-sha256",
  SHA,
  "--explanation",
  "why",
];
/** `run`'s required options; `--parallel` is checked before any of them is read. */
const RUN = ["run", "--plan", "{dir}/p.json", "--suite", "{dir}/s", "--ledger", "{dir}/l.jsonl"];

badInputTests("options", [
  // repeated options
  {
    name: "a repeated option (--rounds 5 --rounds 6) names the option",
    args: ["summarize", LEDGER, "--rounds", "5", "--rounds", "6"],
    code: 1,
    stderr: /^error: Option "--rounds" is given more than once\n/,
  },
  {
    name: "a repeated option in the --name=value form",
    args: ["compare", LEDGER, "--band=0.1", "--band=0.2"],
    code: 1,
    stderr: /^error: Option "--band" is given more than once\n/,
  },
  {
    name: "a repeated boolean option",
    args: ["compare", LEDGER, "--paired", "--paired"],
    code: 1,
    stderr: /^error: Option "--paired" is given more than once\n/,
  },
  {
    name: "a repeated --seed",
    args: ["calibrate", "--seed", "1", "--seed", "2"],
    code: 1,
    stderr: /^error: Option "--seed" is given more than once\n/,
  },
  // negative numbers are values, refused by their range
  {
    name: "--rounds -1 is read as the value and refused by its range",
    args: ["summarize", LEDGER, "--rounds", "-1"],
    code: 1,
    stderr: /^error: Option "--rounds" must be an integer of at least 1: "-1"\n/,
  },
  {
    name: "--rounds=-1 is refused by the same range",
    args: ["summarize", LEDGER, "--rounds=-1"],
    code: 1,
    stderr: /^error: Option "--rounds" must be an integer of at least 1: "-1"\n/,
  },
  {
    name: "--band -0.5 is read as the value",
    args: ["compare", LEDGER, "--band", "-0.5"],
    code: 1,
    stderr: /^error: Option "--band" must be a number of at least 0: "-0.5"\n/,
  },
  {
    name: "--alpha -.1 (no leading digit) is read as the value",
    args: ["calibrate", "--alpha", "-.1"],
    code: 1,
    stderr: /^error: Option "--alpha" must be a number above 0: "-.1"\n/,
  },
  {
    name: "a negative number after -- stays a positional",
    args: ["summarize", LEDGER, "--", "-1"],
    code: 1,
    stderr: /^error: Unexpected argument: "-1"\n/,
  },
  {
    name: "an option at the end without its value",
    args: ["summarize", LEDGER, "--rounds"],
    code: 1,
    stderr: /^error: Option "--rounds" needs a value\n/,
  },
  // ranges that keep a run finite and memory-safe
  {
    name: "--rounds 1e12 is above the bootstrap's 1..1000000",
    args: ["summarize", LEDGER, "--rounds", "1e12"],
    code: 1,
    stderr: /^error: Option "--rounds" must be an integer of at most 1000000: "1e12"\n/,
  },
  {
    name: "compare --rounds 1.5 is not an integer",
    args: ["compare", LEDGER, "--rounds", "1.5"],
    code: 1,
    stderr: /^error: Option "--rounds" must be an integer: "1.5"\n/,
  },
  {
    name: "calibrate --trials 1e12 is above 1..1000000",
    args: ["calibrate", "--trials", "1e12"],
    code: 1,
    stderr: /^error: Option "--trials" must be an integer of at most 1000000: "1e12"\n/,
  },
  {
    name: "calibrate --n-cap 1e9 is above 1..10000",
    args: ["calibrate", "--n-cap", "1e9"],
    code: 1,
    stderr: /^error: Option "--n-cap" must be an integer of at most 10000: "1e9"\n/,
  },
  {
    name: "sprt --n-cap 1e9 is refused by the same range",
    args: ["sprt", LEDGER, "--agent", "a", "--n-cap", "1e9"],
    code: 1,
    stderr: /^error: Option "--n-cap" must be an integer of at most 10000: "1e9"\n/,
  },
  {
    name: "calibrate: trials x n_cap x rates above 1e9 simulated steps",
    args: ["calibrate", "--trials", "1000000", "--n-cap", "10000", "--rates", "0.5"],
    code: 1,
    stderr: /^error: Options "--trials" \(1000000\) x n_cap \(10000\) x rates \(1\) allow/,
  },
  {
    name: "calibrate: more than 101 rates",
    args: ["calibrate", "--rates", Array(102).fill("0.5").join(",")],
    code: 1,
    stderr: /^error: Option "--rates" must list at most 101 rates: got 102\n/,
  },
  {
    name: "calibrate: a rate above 1",
    args: ["calibrate", "--rates", "0.5,1.5"],
    code: 1,
    stderr: /^error: Option "--rates" must be a number of at most 1: "1.5"\n/,
  },
  {
    name: "calibrate: --tolerance-z 0 is not above 0",
    args: ["calibrate", "--tolerance-z", "0"],
    code: 1,
    stderr: /^error: Option "--tolerance-z" must be a number above 0: "0"\n/,
  },
  {
    name: "calibrate: --p-adopt 1 is not below 1 (the plan schema's range)",
    args: ["calibrate", "--p-adopt", "1"],
    code: 1,
    stderr: /^error: Option "--p-adopt" must be a number below 1: "1"\n/,
  },
  {
    name: "calibrate: --trials Infinity is not a finite number",
    args: ["calibrate", "--trials", "Infinity"],
    code: 1,
    stderr: /^error: Option "--trials" must be an integer: "Infinity"\n/,
  },
  // options that mirror a plan field take the schema's range
  {
    name: "compare --band 2 takes the plan's tie_band range 0..1",
    args: ["compare", LEDGER, "--band", "2"],
    code: 1,
    stderr: /^error: Option "--band" must be a number of at most 1: "2"\n/,
  },
  {
    name: "freeze --tie-band 2 takes the same range",
    args: [...FREEZE, "--tie-band", "2"],
    code: 1,
    stderr: /^error: Option "--tie-band" must be a number of at most 1: "2"\n/,
  },
  {
    name: "censoring --headline-max 1.5 takes the plan's 0..1",
    args: ["censoring", LEDGER, "--headline-max", "1.5"],
    code: 1,
    stderr: /^error: Option "--headline-max" must be a number of at most 1: "1.5"\n/,
  },
  {
    name: "censoring --labelled-max -0.1 takes the plan's 0..1",
    args: ["censoring", LEDGER, "--labelled-max", "-0.1"],
    code: 1,
    stderr: /^error: Option "--labelled-max" must be a number of at least 0: "-0.1"\n/,
  },
  {
    name: "freeze --headline-max above the default --labelled-max names both options",
    args: [...FREEZE, "--headline-max", "0.5"],
    code: 1,
    stderr: /^error: Option "--headline-max" \(0.5\) must not exceed "--labelled-max" \(0.1\)\n/,
  },
  {
    name: "freeze --wall-ms above setTimeout's 2147483647 ms",
    args: [...FREEZE, "--wall-ms", "3e9"],
    code: 1,
    stderr: /^error: Option "--wall-ms" must be an integer of at most 2147483647: "3e9"\n/,
  },
  {
    name: "freeze --max-attempts 0 (the plan's positive integer)",
    args: [...FREEZE, "--max-attempts", "0"],
    code: 1,
    stderr: /^error: Option "--max-attempts" must be an integer of at least 1: "0"\n/,
  },
  {
    name: "freeze --max-output-tokens 0 (the plan's positive integer)",
    args: [...FREEZE, "--max-output-tokens", "0"],
    code: 1,
    stderr: /^error: Option "--max-output-tokens" must be an integer of at least 1: "0"\n/,
  },
  {
    name: "freeze --rounds 1e12",
    args: [...FREEZE, "--rounds", "1e12"],
    code: 1,
    stderr: /^error: Option "--rounds" must be an integer of at most 1000000: "1e12"\n/,
  },
  {
    name: "freeze --sprt --n-cap 0",
    args: [...FREEZE, "--sprt", "--n-cap", "0"],
    code: 1,
    stderr: /^error: Option "--n-cap" must be an integer of at least 1: "0"\n/,
  },
  // the other commands' numeric options
  {
    name: "validate --max-findings -1",
    args: ["validate", LEDGER, "--plan", "{dir}/plan.json", "--max-findings", "-1"],
    code: 1,
    stderr: /^error: Option "--max-findings" must be an integer of at least 0: "-1"\n/,
  },
  {
    name: "report --png-scale 9 is above 8",
    args: ["report", LEDGER, "--out", "{dir}/report", "--png-scale", "9"],
    code: 1,
    stderr: /^error: Option "--png-scale" must be a number of at most 8: "9"\n/,
  },
  {
    name: "report --max-findings 1e7 is above 1000000",
    args: ["report", LEDGER, "--out", "{dir}/report", "--max-findings", "1e7"],
    code: 1,
    stderr: /^error: Option "--max-findings" must be an integer of at most 1000000: "1e7"\n/,
  },
  {
    name: "plan --tasks 0",
    args: ["plan", "--spend", "1,2", "--tasks", "0", "--budget", "10"],
    code: 1,
    stderr: /^error: Option "--tasks" must be an integer of at least 1: "0"\n/,
  },
  {
    name: "plan --spend with a negative item",
    args: ["plan", "--spend", "1,-2", "--tasks", "3", "--budget", "10"],
    code: 1,
    stderr: /^error: Option "--spend" must be a number of at least 0: "-2"\n/,
  },
  {
    name: "plan --budget -5 is read as the value",
    args: ["plan", "--spend", "1,2", "--tasks", "3", "--budget", "-5"],
    code: 1,
    stderr: /^error: Option "--budget" must be a number of at least 0: "-5"\n/,
  },
  {
    name: "plan --safety 0 is not above 0",
    args: ["plan", "--spend", "1,2", "--tasks", "3", "--budget", "10", "--safety", "0"],
    code: 1,
    stderr: /^error: Option "--safety" must be a number above 0: "0"\n/,
  },
  {
    name: "summarize --interval-method bca is not a method",
    args: ["summarize", LEDGER, "--interval-method", "bca"],
    code: 1,
    stderr:
      /^error: Option "--interval-method" must be one of "percentile-bootstrap", "wilson", "clopper-pearson": "bca"\n/,
  },
  {
    name:
      "censoring --interval-method wilson conflicts with the plan's (absent: percentile-bootstrap)",
    args: [
      "censoring",
      "{root}/ledgers/examples/synthetic_ledger.jsonl",
      "--plan",
      "{root}/ledgers/examples/synthetic_plan.json",
      "--interval-method",
      "wilson",
    ],
    code: 1,
    stderr:
      /^error: Option "--interval-method" \("wilson"\) conflicts with the plan's interval_method \("percentile-bootstrap"\)/,
  },
  {
    name: "freeze --interval-method exact is not a method",
    args: [...FREEZE, "--interval-method", "exact"],
    code: 1,
    stderr: /^error: Option "--interval-method" must be one of "percentile-bootstrap", /,
  },
  {
    name: "run --parallel 65 is above 1..64",
    args: [...RUN, "--parallel", "65"],
    code: 1,
    stderr: /^error: Option "--parallel" must be an integer of at most 64: "65"\n/,
  },
  {
    name: "demo --parallel 0",
    args: ["demo", "--parallel", "0"],
    code: 1,
    stderr: /^error: Option "--parallel" must be an integer of at least 1: "0"\n/,
  },
  // seeds
  {
    name: "an empty --seed",
    args: ["summarize", LEDGER, "--seed="],
    code: 1,
    stderr: /^error: Option "--seed" must not be empty\n/,
  },
  {
    name: "an empty --bootstrap-seed",
    args: [...FREEZE, "--bootstrap-seed="],
    code: 1,
    stderr: /^error: Option "--bootstrap-seed" must not be empty\n/,
  },
  {
    name: "summarize --seed 007 records the number 7",
    args: ["summarize", LEDGER, "--seed", "007", "--json"],
    code: 0,
    stderr: /^$/,
    stdout: /"seed": 7,\n\s*"seed_source": "flag"/,
  },
  {
    name: "compare --seed -0 records the number 0",
    args: ["compare", LEDGER, "--seed", "-0", "--json"],
    code: 0,
    stderr: /^$/,
    stdout: /"seed": 0,\n\s*"seed_source": "flag"/,
  },
  {
    name: "a seed that is not a safe integer stays the text given",
    args: ["summarize", LEDGER, "--seed", "99999999999999999999", "--json"],
    code: 0,
    stderr: /^$/,
    stdout: /"seed": "99999999999999999999",/,
  },
  {
    name: "calibrate --seed abc stays a string",
    args: ["calibrate", "--seed", "abc", "--trials", "100", "--rates", "0.5", "--json"],
    code: 0,
    stderr: /^$/,
    stdout: /"stream": "abc\/p_true=0.5"/,
  },
  // text options checked against the schema of the field they set
  {
    name: "errata append --created-at yesterday names the option and the form",
    args: [...VOID, "--created-at", "yesterday"],
    code: 1,
    stderr:
      /^error: Option "--created-at" must be an ISO 8601 UTC datetime such as 2026-12-01T09:30:00Z: "yesterday"\n/,
  },
  {
    name: "errata append --created-at with an offset is not UTC",
    args: [...VOID, "--created-at", "2026-12-01T10:00:00+02:00"],
    code: 1,
    stderr: /^error: Option "--created-at" must be an ISO 8601 UTC datetime/,
  },
  {
    name: "errata append --summary-sha256 that is not 64 hex digits",
    args: [...VOID.slice(0, 5), "--summary-sha256", "xyz", "--explanation", "why"],
    code: 1,
    stderr:
      /^error: Option "--summary-sha256" must be a lower-case hex SHA-256 \(64 digits\): "xyz"\n/,
  },
  {
    name: "errata append --artifact-digest without sha256:",
    args: [
      "errata",
      "append",
      "{dir}/errata.jsonl",
      "--kind",
      "rescore_episode",
      "--episode",
      "r1/a/t1/1",
      "--resolved",
      "true",
      "--artifact-digest",
      SHA,
      "--explanation",
      "why",
    ],
    code: 1,
    stderr: /^error: Option "--artifact-digest" must be a digest "sha256:<64 hex>"/,
  },
  {
    name: "errata append --id= (empty)",
    args: [...VOID, "--id="],
    code: 1,
    stderr: /^error: Option "--id" must be a non-empty id: ""\n/,
  },
  {
    name: "errata append --explanation= (empty)",
    args: [...VOID.slice(0, -2), "--explanation="],
    code: 1,
    stderr: /^error: Option "--explanation" must be a non-empty text: ""\n/,
  },
  {
    name: "errata append --kind that is not a kind",
    args: ["errata", "append", "{dir}/errata.jsonl", "--kind", "delete_row", "--explanation", "x"],
    code: 1,
    stderr:
      /^error: Option "--kind" must be one of "invalidate_episode", "rescore_episode", "void_summary": "delete_row"\n/,
  },
  {
    name: "freeze --plan-id= (empty) is a usage error, not a plan problem",
    args: [...FREEZE, "--plan-id="],
    code: 1,
    stderr: /^error: Option "--plan-id" must be a non-empty id: ""\n/,
  },
  {
    name: "freeze --price-table-id= (empty)",
    args: [...FREEZE, "--price-table-id="],
    code: 1,
    stderr: /^error: Option "--price-table-id" must be a non-empty id: ""\n/,
  },
  {
    name: "freeze --invalid-policy that is not a policy",
    args: [...FREEZE, "--invalid-policy", "retry"],
    code: 1,
    stderr: /^error: Option "--invalid-policy" must be one of "halt", "rerun-task": "retry"\n/,
  },
  {
    name: "run --run-id= (empty) is refused before the plan is read",
    args: [...RUN, "--run-id="],
    code: 1,
    stderr: /^error: Option "--run-id" must be a non-empty id: ""\n/,
  },
  {
    name: "reverify --reason= (empty) is refused before the Docker engine is asked",
    args: ["reverify", LEDGER, "--errata", "{dir}/e.jsonl", "--suite", "{dir}/s", "--reason="],
    code: 1,
    stderr: /^error: Option "--reason" must be a non-empty text: ""\n/,
  },
  {
    name: "reverify --episodes with an empty item",
    args: [
      "reverify",
      LEDGER,
      "--errata",
      "{dir}/e.jsonl",
      "--suite",
      "{dir}/s",
      "--episodes",
      "a,,b",
    ],
    code: 1,
    stderr: /^error: Option "--episodes" must be a comma-separated list of names: "a,,b"\n/,
  },
  {
    name: "compare --task-rule that is not a rule",
    args: ["compare", LEDGER, "--paired", "--task-rule", "all"],
    code: 1,
    stderr: /^error: Option "--task-rule" must be one of "majority", "any": "all"\n/,
  },
]);

/** The JSON a command printed, with the key `seed` found wherever it is nested. */
function seedsIn(stdout: string): unknown[] {
  const seeds: unknown[] = [];
  JSON.parse(stdout, (key, value) => {
    if (key === "seed" || key === "order_seed") seeds.push(value);
    return value;
  });
  return seeds;
}

Deno.test("options: --seed 007 and --seed 7 record the same number 7 in every command", async () => {
  const commands: [string[], string][] = [
    [["summarize", SAMPLE, "--json"], "--seed"],
    [["compare", SAMPLE, "--json", "--paired"], "--seed"],
    [["calibrate", "--trials", "200", "--rates", "0.5", "--json"], "--seed"],
  ];
  for (const [args, flag] of commands) {
    const padded = await cliInProcess(...args, flag, "007");
    const plain = await cliInProcess(...args, flag, "7");
    assert.equal(padded.code, 0, `${args[0]}: ${padded.stderr}`);
    assert.equal(padded.stdout, plain.stdout, `${args[0]}: same bytes for 007 and 7`);
    const seeds = seedsIn(plain.stdout);
    assert.ok(seeds.length > 0 && seeds.every((seed) => seed === 7), `${args[0]}: ${seeds}`);
  }
});

Deno.test("options: freeze records --bootstrap-seed 007 and --order-seed 007 as 7", async () => {
  const dir = await Deno.makeTempDir({ prefix: "lb-seed-" });
  try {
    const digest = `sha256:${"a".repeat(64)}`;
    const result = await cliInProcess(
      "freeze",
      "--generate",
      "demo",
      "--new-seed-file",
      `${dir}/seed`,
      "--suite",
      `${dir}/suite`,
      "--out",
      `${dir}/plan.json`,
      "--agent",
      "a=img:1",
      "--image-digest",
      `img:1=${digest}`,
      "--image-digest",
      `ledgerbench/verifier:latest=${digest}`,
      "--bootstrap-seed",
      "007",
      "--order-seed",
      "007",
      "--without-agent-check",
      "the test freezes plans without an agent check",
    );
    assert.equal(result.code, 0, result.stderr);
    const plan = JSON.parse(await Deno.readTextFile(`${dir}/plan.json`));
    assert.equal(plan.bootstrap.seed, 7);
    assert.equal(plan.order_seed, 7);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
