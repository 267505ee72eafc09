/**
 * Every other command's text fits the output width too (issue 25: CLI
 * lines 114 to 289 columns wide): `validate`, `calibrate`, `import` (its
 * table and its warnings), `show`, `plan`, `errata`, `freeze`'s summary,
 * `view`'s startup line, `verify-report`, `report`'s summary and
 * `judge calibrate`, on the shipped examples and on the 14-agent imported
 * ledger (`importFieldScaleLedger`): no line of stdout or stderr wider than
 * 80 or 100 display columns (`displayLength`: an ellipsis is one column);
 * `--json` byte-identical with and without `--width`. The commands run in
 * this process (`cliInProcess`: the width comes from `--width`, not from the
 * process). The commands that need Docker (`agent check`, `suite check`,
 * `reverify`, `judge pairwise`'s run) take `--width` the same way but are not
 * run here; `show` of a runner episode is `tests/cli_width_demo_test.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { cliInProcess } from "./_cli_run.ts";
import { type Case, checkCases, checkJson } from "./_cli_width.ts";
import { importFieldScaleLedger } from "./_field_scale_ledger.ts";
import { FIELD_SCALE_MAP, FIELD_SCALE_VALUES } from "../tools/field_scale_table.ts";
import { displayLength } from "../cli/_table_layout.ts";
import { JUDGE_EXAMPLE } from "../suites/judge_example.ts";

const SYNTHETIC = "ledgers/examples/synthetic_ledger.jsonl";
const SYNTHETIC_PLAN = "ledgers/examples/synthetic_plan.json";
const SYNTHETIC_ERRATA = "ledgers/examples/synthetic_errata.jsonl";
const DEMO = "ledgers/demo/ledger.jsonl";
const INSPECT_LOG = "ledgers/examples/imported/popularity_inspect_log.json";

const EXAMPLES: Case[] = [
  { name: "validate synthetic", args: () => ["validate", SYNTHETIC, "--plan", SYNTHETIC_PLAN] },
  { name: "validate demo", args: () => ["validate", DEMO, "--plan", "ledgers/demo/plan.json"] },
  {
    name: "validate judge demo",
    args: () => [
      "validate",
      "ledgers/demo/judge/ledger.jsonl",
      "--plan",
      "ledgers/demo/judge/plan.json",
    ],
  },
  { name: "calibrate", args: () => ["calibrate", "--trials", "2000"] },
  {
    name: "calibrate --plan",
    args: () => ["calibrate", "--plan", SYNTHETIC_PLAN, "--trials", "2000"],
  },
  {
    name: "import inspect",
    args: (dir) => ["import", "inspect", INSPECT_LOG, "--out", `${dir}/ledger.jsonl`],
  },
  {
    name: "export inspect",
    args: (dir) => ["export", "inspect", DEMO, "--out", `${dir}/inspect`],
  },
  {
    name: "show synthetic",
    args: () => ["show", "synthetic-2026-09/agent-alpha/E11/1", "--ledger", SYNTHETIC],
    json: false,
  },
  {
    name: "show imported",
    args: () => [
      "show",
      "7KyCuAQSqp76qKQZEKmG6M/openai/gpt-4o-mini/popularity/1/1",
      "--ledger",
      "ledgers/examples/imported/ledger.jsonl",
    ],
    json: false,
  },
  {
    name: "plan --spend (refused)",
    args: () => ["plan", "--spend", "2700,7300,9500,3800", "--tasks", "28", "--budget", "300000"],
    codes: [3],
  },
  {
    name: "plan --pilot",
    args: () => [
      "plan",
      "--pilot",
      "ledgers/examples/sample_ledger.jsonl",
      "--tasks",
      "28",
      "--budget",
      "400000",
    ],
  },
  {
    name: "errata append",
    args: (dir) => [
      "errata",
      "append",
      `${dir}/errata.jsonl`,
      "--kind",
      "invalidate_episode",
      "--episode",
      "synthetic-2026-09/agent-alpha/E11/1",
      "--reason",
      "verifier_fault",
      "--explanation",
      "Verifier crashed in setup; not a model failure, as the stored log shows in full",
      "--ledger",
      SYNTHETIC,
      "--created-at",
      "2026-12-01T00:00:00.000Z",
    ],
  },
  {
    name: "freeze --generate demo",
    args: (dir) => [
      "freeze",
      "--without-agent-check",
      "the test freezes plans without an agent check",
      "--generate",
      "demo",
      "--new-seed-file",
      `${dir}/seed`,
      "--suite",
      `${dir}/suite`,
      "--out",
      `${dir}/plan.json`,
      "--order-seed",
      "20261107",
      "--agent",
      "solver=ledgerbench/agent-solver:latest",
      "--agent",
      "looper=ledgerbench/agent-looper:latest",
      "--image-digest",
      `ledgerbench/agent-solver:latest=sha256:${"1".repeat(64)}`,
      "--image-digest",
      `ledgerbench/agent-looper:latest=sha256:${"2".repeat(64)}`,
      "--image-digest",
      `ledgerbench/verifier:latest=sha256:${"3".repeat(64)}`,
      "--token-cap",
      "20000",
    ],
    // the plan records when it was frozen and where the suite went
    json: false,
  },
  {
    name: "view --out",
    args: (dir) => ["view", DEMO, "--out", `${dir}/site`],
    json: false,
  },
  {
    name: "report",
    args: (dir) => [
      "report",
      SYNTHETIC,
      "--plan",
      SYNTHETIC_PLAN,
      "--errata",
      SYNTHETIC_ERRATA,
      "--out",
      `${dir}/report`,
    ],
    json: false,
  },
];

Deno.test("every command's text fits 80 and 100 columns on the shipped examples", async (t) => {
  await t.step("stdout and stderr", () => checkCases(EXAMPLES));
  await t.step("--json is the same bytes with --width", () => checkJson(EXAMPLES));
});

Deno.test("verify-report and judge calibrate fit 80 and 100 columns", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-cli-width-" });
  try {
    const report = await cliInProcess(
      "report",
      SYNTHETIC,
      "--plan",
      SYNTHETIC_PLAN,
      "--out",
      `${dir}/report`,
    );
    assert.equal(report.code, 0, report.stderr);
    // calibrations are written beside the suite: a copy of it, never the shipped one
    const copy = new Deno.Command("cp", { args: ["-r", JUDGE_EXAMPLE.suite, `${dir}/suite`] });
    assert.equal((await copy.output()).code, 0);
    await checkCases([
      { name: "verify-report", args: () => ["verify-report", `${dir}/report`] },
      {
        name: "judge calibrate",
        args: () => [
          "judge",
          "calibrate",
          "--suite",
          `${dir}/suite`,
          "--judge",
          JUDGE_EXAMPLE.judge,
          "--golden",
          JUDGE_EXAMPLE.golden,
          "--judge-provider-script",
          JUDGE_EXAMPLE.script,
        ],
      },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every command's text fits 80 and 100 columns on the 14-agent ledger", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-cli-width-field-" });
  try {
    const { ledger, table } = await importFieldScaleLedger(dir);
    const first = (await Deno.readTextFile(ledger)).split("\n")[0];
    const episode = JSON.parse(first).episode_id as string;
    // a long id (agent, 100-character task) is what must fold
    assert.ok(displayLength(episode) > 100, episode);
    await checkCases([
      {
        name: "import table",
        args: (out) => [
          "import",
          "table",
          table,
          "--out",
          `${out}/ledger.jsonl`,
          "--map",
          FIELD_SCALE_MAP,
          "--values",
          FIELD_SCALE_VALUES,
        ],
      },
      { name: "show field", args: () => ["show", episode, "--ledger", ledger] },
      { name: "view --out field", args: (out) => ["view", ledger, "--out", `${out}/site`] },
    ]);
    // the old show printed the row's JSON on lines of 180 columns: the narrow one folded them
    const wide = await cliInProcess("show", episode, "--ledger", ledger, "--width", "400");
    assert.ok(wide.stdout.split("\n").some((line) => displayLength(line) > 100));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--width is in every such command's help and checked", async () => {
  for (
    const command of [
      ["validate"],
      ["calibrate"],
      ["import"],
      ["export"],
      ["show"],
      ["plan"],
      ["errata"],
      ["freeze"],
      ["view"],
      ["verify-report"],
      ["report"],
      ["reverify"],
      ["agent", "check"],
      ["judge"],
      ["suite"],
    ]
  ) {
    const help = await cliInProcess(...command, "--help");
    assert.equal(help.code, 0, command.join(" "));
    assert.match(help.stdout, /^ {2}--width N +Width of the text output in columns, at least 40$/m);
  }
  const bad = await cliInProcess("validate", SYNTHETIC, "--plan", SYNTHETIC_PLAN, "--width", "12");
  assert.equal(bad.code, 1);
  assert.ok(
    bad.stderr.startsWith('error: Option "--width" must be a whole number of at least 40: "12"'),
    bad.stderr,
  );
});
