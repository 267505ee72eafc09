import assert from "node:assert/strict";
import { join } from "node:path";
import {
  CWD_VARIABLE,
  ParameterError,
  Parameters,
  REPOSITORY_ROOT,
  userDirectory,
} from "./parameters.ts";

const env = (entries: Record<string, string>) => new Map(Object.entries(entries));

Deno.test("userDirectory() prefers LEDGERBENCH_CWD, then an absolute PWD, then the kernel's directory", () => {
  assert.deepEqual(userDirectory(env({ PWD: "/data", [CWD_VARIABLE]: "/work" })), {
    path: "/work",
    from: CWD_VARIABLE,
  });
  assert.deepEqual(userDirectory(env({ PWD: "/data/" })), { path: "/data", from: "PWD" });
  assert.deepEqual(userDirectory(env({ PWD: "relative" })), { path: Deno.cwd(), from: "kernel" });
  assert.deepEqual(userDirectory(env({})), { path: Deno.cwd(), from: "kernel" });
});

Deno.test("Parameters.path() resolves a given path from the user's directory, a default from the repository", () => {
  const p = new Parameters(
    env({ PWD: REPOSITORY_ROOT, LEDGER: "ledgers/examples/sample_ledger.jsonl" }),
  );
  assert.equal(
    p.path("LEDGER", { example: "x.jsonl", required: true }),
    join(REPOSITORY_ROOT, "ledgers/examples/sample_ledger.jsonl"),
  );
  assert.equal(
    p.path("SAMPLE", { default: "ledgers/examples/sample_ledger.jsonl" }),
    join(REPOSITORY_ROOT, "ledgers/examples/sample_ledger.jsonl"),
  );
  // LEDGER is set: the example's plan does not apply to it.
  assert.equal(p.path("PLAN", { example: "ledgers/examples/synthetic_plan.json" }), null);
  assert.deepEqual(p.inputs.map((r) => [r.name, r.source]), [
    ["LEDGER", "environment"],
    ["SAMPLE", "default"],
    ["PLAN", "none"],
  ]);
  assert.match(p.inputs[2].note, /goes with the example ledger only/);
});

Deno.test("Parameters.path(): unset with the example ledger gives the example; empty gives none", () => {
  const p = new Parameters(env({ PWD: "/", ERRATA: "" }));
  assert.equal(
    p.path("LEDGER", { example: "ledgers/examples/synthetic_ledger.jsonl" }),
    join(REPOSITORY_ROOT, "ledgers/examples/synthetic_ledger.jsonl"),
  );
  assert.equal(
    p.path("PLAN", { example: "ledgers/examples/synthetic_plan.json" }),
    join(REPOSITORY_ROOT, "ledgers/examples/synthetic_plan.json"),
  );
  assert.equal(p.path("ERRATA", { example: "ledgers/examples/synthetic_errata.jsonl" }), null);
});

Deno.test("Parameters.path() refuses a missing file in one sentence naming the variable, the path and the directory", () => {
  const p = new Parameters(env({ PWD: "/tmp", LEDGER: "out/nowhere.jsonl" }));
  assert.throws(() => p.path("LEDGER", { example: "x" }), (error: Error) => {
    assert.ok(error instanceof ParameterError);
    assert.equal(
      error.message,
      'Cannot read LEDGER: "out/nowhere.jsonl" resolved from /tmp (PWD, the directory Jupyter ' +
        "was started from) is /tmp/out/nowhere.jsonl, which does not exist",
    );
    // No stack trace under the sentence: the notebook's cell error is the sentence alone.
    assert.equal(error.stack, `ParameterError: ${error.message}`);
    return true;
  });
  const empty = new Parameters(env({ LEDGER: "" }));
  assert.throws(
    () => empty.path("LEDGER", { required: true }),
    /^ParameterError: Cannot run without LEDGER/,
  );
});

Deno.test("Parameters.taskList() finds the task list beside an imported ledger, unless a plan is the denominator", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/run.jsonl`, "");
    await Deno.writeTextFile(`${dir}/run.tasks.json`, '{"tasks": [{"task_id": "a"}]}');
    await Deno.writeTextFile(`${dir}/plan.json`, "{}");
    const p = new Parameters(env({ PWD: dir, LEDGER: "run.jsonl" }));
    const ledger = p.path("LEDGER")!;
    assert.equal(
      await p.taskList(ledger, p.path("PLAN", { example: "x" })),
      `${dir}/run.tasks.json`,
    );
    assert.equal(p.inputs.at(-1)!.source, "beside the ledger");

    const planned = new Parameters(env({ PWD: dir, LEDGER: "run.jsonl", PLAN: "plan.json" }));
    assert.equal(await planned.taskList(ledger, planned.path("PLAN")), null);
    assert.equal(planned.inputs.at(-1)!.note, "the plan's tasks are the denominator");

    const none = new Parameters(env({ PWD: dir, LEDGER: "run.jsonl", TASKS: "" }));
    assert.equal(await none.taskList(ledger, null), null);

    const both = new Parameters(env({ PWD: dir, PLAN: "plan.json", TASKS: "run.tasks.json" }));
    const plan = both.path("PLAN");
    await assert.rejects(() => both.taskList(ledger, plan), /Cannot use both PLAN and TASKS/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Parameters.number() and text(): unset the default, empty none, a bad number refused", () => {
  const p = new Parameters(env({ TRIALS: "500", SEED: "", BUDGET: "lots", LEDGER: "x" }));
  assert.equal(p.number("TRIALS", 20000), 500);
  assert.equal(p.number("PILOT_SIZE", 24), 24);
  assert.equal(p.text("SEED", "7"), null);
  assert.equal(p.text("RUN_ID", "example-table", { example: p.exampleLedger }), null);
  assert.equal(p.text("COLUMNS", "agent_id=model", { example: true }), "agent_id=model");
  assert.deepEqual(p.inputs.slice(-2).map((r) => r.source), ["none", "example default"]);
  assert.throws(() => p.number("BUDGET", 1), /Cannot read BUDGET: "lots" is not a number/);
});
