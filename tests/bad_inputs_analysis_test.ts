/**
 * The CLI's answer when the analysis must say no (issue 10): a ledger whose
 * SPRT walk has not decided does not fit its plan (`validate`, exit 3), and a
 * price table whose cost overflows is refused in one line naming the table,
 * the agent and the episode (`summarize --price-table`, exit 2, with and
 * without `--json`). The exit-2 cases run through the shared bad-input
 * table; the exit-3 cases print their verdict on stdout, so they are checked
 * here with the same subprocess.
 */
import assert from "node:assert/strict";
import { type BadInputCase, badInputTests } from "./_bad_input_table.ts";
import { cliInProcess, row, writeJsonl } from "./_cli_run.ts";

const jsonl = (rows: Record<string, unknown>[]) =>
  rows.map((r) => JSON.stringify(r) + "\n").join("");
const tasks = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `t${from + i}`);

/** Seed 002's defaults: LLR = ln 1.5 per net pass, boundaries ±ln 9 = ±2.1972. */
const SPRT_PLAN = {
  plan_id: "sprt-10",
  tasks: tasks(1, 10).map((task_id) => ({ task_id })),
  agents: [{ agent_id: "a" }, { agent_id: "b" }],
  stopping: { kind: "sprt", params: {} },
};

const huge = (prompt: number) =>
  JSON.stringify({
    price_table_id: "local-0",
    currency: "USD",
    default_rate: { prompt_per_million: prompt, completion_per_million: 0 },
  });

const ONE_ROW = jsonl([row({})]);

const CASES: BadInputCase[] = [
  {
    name: "a price table whose cost overflows, --json",
    files: { "l.jsonl": ONE_ROW, "prices.json": huge(1e308) },
    args: ["summarize", "{dir}/l.jsonl", "--price-table", "{dir}/prices.json", "--json"],
    code: 2,
    // 100 prompt tokens × 1e308 = Infinity before the division by 1e6
    stderr:
      /^error: Cannot price episode "r1\/a\/t1\/1" for agent "a" under price table "local-0": the cost is Infinity, not a finite number \(rates 1e\+308 and 0 per million prompt and completion tokens\)\n$/,
    stdout: /^$/,
  },
  {
    name: "a price table whose cost overflows, table output",
    files: { "l.jsonl": ONE_ROW, "prices.json": huge(1e308) },
    args: ["summarize", "{dir}/l.jsonl", "--price-table", "{dir}/prices.json"],
    code: 2,
    stderr: /^error: Cannot price episode "r1\/a\/t1\/1" .*price table "local-0".*\n$/,
    stdout: /^(?![\s\S]*Infinity)/,
  },
  {
    name: "finite episode costs whose sum overflows",
    files: {
      // each 1e7 × 1e300 / 1e6 = 1e301; the running total overflows at the 18th (1.8e308)
      "l.jsonl": jsonl(tasks(1, 18).map((task_id) => row({ task_id, prompt_tokens: 1e7 }))),
      "prices.json": huge(1e300),
    },
    args: ["summarize", "{dir}/l.jsonl", "--price-table", "{dir}/prices.json", "--json"],
    code: 2,
    stderr:
      /^error: Cannot price the episodes of agent "a" up to episode "r1\/a\/t18\/1" under price table "local-0": the cost is Infinity, not a finite number/,
    stdout: /^$/,
  },
];

badInputTests("analysis", CASES);

/** Runs `validate LEDGER --plan PLAN` on rows in a fresh directory. */
async function validate(rows: Record<string, unknown>[]) {
  const dir = await Deno.makeTempDir({ prefix: "lb-analysis-" });
  try {
    const ledger = await writeJsonl(`${dir}/l.jsonl`, rows);
    await Deno.writeTextFile(`${dir}/plan.json`, JSON.stringify(SPRT_PLAN));
    // --width 400: a finding's code, where and message pinned on one row
    return await cliInProcess("validate", ledger, "--plan", `${dir}/plan.json`, "--width", "400");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("bad input (analysis): validate refuses a truncated SPRT ledger, naming the missing tasks", async () => {
  // a: five passes, LLR 5 ln 1.5 = 2.027 < ln 9 = 2.197: undecided. b: six passes, 2.433: adopt at t6.
  const rows = [
    ...tasks(1, 5).map((task_id) => row({ task_id })),
    ...tasks(1, 6).map((task_id) => row({ agent_id: "b", task_id })),
  ];
  const result = await validate(rows);
  assert.equal(result.code, 3, result.stderr);
  assert.equal(result.stderr, "");
  for (const task of tasks(6, 10)) {
    assert.match(
      result.stdout,
      new RegExp(
        `missing_task +a ${task} +task "${task}" has no row for agent "a" \\(the SPRT is undecided after 5 valid results\\)`,
      ),
    );
  }
  assert.match(
    result.stdout,
    /not_reached +b t7 +task "t7" was not reached by agent "b": the SPRT decided "adopt" at task "t6"/,
  );
  assert.match(
    result.stdout,
    /verdict: the ledger does NOT fit the plan \(5 error findings listed\)/,
  );
});

Deno.test("bad input (analysis): validate refuses a ledger whose rows never reach an agent's tasks", async () => {
  // a decided (adopt at t6); b has no row at all: its walk never started, so all 10 are missing
  const result = await validate(tasks(1, 6).map((task_id) => row({ task_id })));
  assert.equal(result.code, 3, result.stderr);
  assert.equal(result.stderr, "");
  assert.match(result.stdout, /findings: 14 \(not_reached 4, missing_task 10\)/);
  assert.match(
    result.stdout,
    /missing_task +b t1 +task "t1" has no row for agent "b" \(the SPRT is undecided after 0 valid results\)/,
  );
  assert.match(result.stdout, /verdict: the ledger does NOT fit the plan/);
});
