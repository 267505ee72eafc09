import { deepEqual, equal, rejects } from "node:assert/strict";
import { createHash } from "node:crypto";
import { LedgerError } from "../../analysis/ledger_error.ts";
import { Provenance } from "../../analysis/schema/records.ts";
import { importSwebenchReport, SWEBENCH_IMPORTER_VERSION } from "./swebench.ts";

const FIXTURES = new URL("../../tests/fixtures/import/swebench/", import.meta.url).pathname;
const NIGHTLY = `${FIXTURES}nightly/openai__gpt-4.1.nightly.json`;
const TREE = "logs/run_evaluation/nightly/openai__gpt-4.1";

/** sha256sum of a fixture, computed here (not by the importer). */
async function sha256Of(path: string): Promise<string> {
  return createHash("sha256").update(await Deno.readFile(path)).digest("hex");
}

/** The first problem of the LedgerError `run` throws. */
async function problemOf(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return error.problems[0];
  }
  throw new Error("expected a LedgerError");
}

// The nightly fixture as written: 3 resolved, 3 unresolved (one also an
// infrastructure failure, one also ambiguous), 1 empty patch, 2 errors (one
// also an infrastructure failure), 1 incomplete.
const NIGHTLY_ROWS = [
  ["astropy__astropy-12907", "resolved_ids[0]", "scored", true],
  ["django__django-11099", "resolved_ids[1]", "scored", true],
  ["sympy__sympy-20590", "resolved_ids[2]", "scored", true],
  ["django__django-11133", "unresolved_ids[0]", "scored", false],
  ["matplotlib__matplotlib-23314", "infra_failure_ids[0]", "invalid", "harness_error"],
  ["pytest-dev__pytest-5227", "ambiguous_failure_ids[0]", "invalid", "harness_error"],
  ["psf__requests-2317", "empty_patch_ids[0]", "scored", false],
  ["scikit-learn__scikit-learn-13142", "error_ids[0]", "invalid", "harness_error"],
  ["sphinx-doc__sphinx-8713", "infra_failure_ids[1]", "invalid", "harness_error"],
];

Deno.test("importSwebenchReport() maps every list of a 5.0 report", async () => {
  const batch = await importSwebenchReport(NIGHTLY, {});
  deepEqual(
    batch.attempts.map((row) => [
      row.task_id,
      row.provenance.position,
      row.outcome.status,
      row.outcome.status === "scored" ? row.outcome.resolved : row.outcome.invalid_reason,
    ]),
    NIGHTLY_ROWS,
  );
  // Planned: the 9 ids with an outcome, then the incomplete one.
  deepEqual(batch.planned_tasks, [...NIGHTLY_ROWS.map((row) => row[0]), "pylint-dev__pylint-7080"]);
  equal(batch.attempts_per_task, 1);
  const sha = await sha256Of(NIGHTLY);
  for (const row of batch.attempts) {
    equal(row.run_id, "nightly");
    equal(row.agent_id, "openai/gpt-4.1");
    equal(row.attempt, 1);
    equal(row.stop_reason, "completed");
    deepEqual(
      [row.prompt_tokens, row.completion_tokens, row.tool_calls, row.model_calls, row.wall_ms],
      [null, null, null, null, null],
    );
    deepEqual([row.started_at, row.finished_at], [null, null]);
    Provenance.parse(row.provenance);
    deepEqual({ ...row.provenance, position: "" }, {
      evidence_kind: "imported",
      format: "swebench",
      importer_version: SWEBENCH_IMPORTER_VERSION,
      source: NIGHTLY,
      source_sha256: sha,
      position: "",
      tokens_reported_by: "not_recorded",
      model: "openai/gpt-4.1",
      reported_cost_usd: null,
    });
  }
});

Deno.test("importSwebenchReport() notes empty patches, signatures and the list an overlay id is also in", async () => {
  const notes = Object.fromEntries(
    (await importSwebenchReport(NIGHTLY, {})).attempts.map((row) => [row.task_id, row.notes]),
  );
  equal(notes["django__django-11099"], "");
  equal(notes["psf__requests-2317"], "empty patch");
  equal(
    notes["matplotlib__matplotlib-23314"],
    "infrastructure failure: display_unavailable; also in unresolved_ids[1]",
  );
  equal(
    notes["pytest-dev__pytest-5227"],
    "ambiguous failure (a broken environment or a bad patch; not counted against the agent): " +
      "tests_timed_out; also in unresolved_ids[2]",
  );
  equal(
    notes["scikit-learn__scikit-learn-13142"],
    "harness error: the evaluation left no usable report.json",
  );
  equal(
    notes["sphinx-doc__sphinx-8713"],
    "infrastructure failure: container_unavailable; also in error_ids[1]",
  );
});

Deno.test("importSwebenchReport() warns that a two-dot file name was split at its last dot", async () => {
  const batch = await importSwebenchReport(NIGHTLY, {});
  deepEqual(batch.warnings, [
    `${NIGHTLY}: the file name splits into model "openai__gpt-4.1" and run id "nightly" at its ` +
    "last dot; pass the run id if it holds a dot",
  ]);
  // Given the run id, or the predictions' model, the split is certain.
  deepEqual((await importSwebenchReport(NIGHTLY, { runId: "nightly" })).warnings, []);
  const withPredictions = await importSwebenchReport(NIGHTLY, {
    predictions: `${FIXTURES}nightly/predictions.jsonl`,
  });
  deepEqual(withPredictions.warnings, []);
  equal(withPredictions.attempts[0].run_id, "nightly");
});

Deno.test("importSwebenchReport() takes agent and run ids from its options first", async () => {
  const batch = await importSwebenchReport(NIGHTLY, { agentId: "swe-agent", runId: "n1" });
  equal(batch.attempts[0].agent_id, "swe-agent");
  equal(batch.attempts[0].run_id, "n1");
  // The model stays what the source names.
  equal(batch.attempts[0].provenance.model, "openai/gpt-4.1");
});

Deno.test("importSwebenchReport() adds the report tree's test counts and keeps agreeing verdicts", async () => {
  const batch = await importSwebenchReport(NIGHTLY, { reportTree: `${FIXTURES}nightly/${TREE}` });
  const notes = Object.fromEntries(batch.attempts.map((row) => [row.task_id, row.notes]));
  // astropy-12907/report.json: 2 FAIL_TO_PASS and 3 PASS_TO_PASS tests, all passing.
  equal(
    notes["astropy__astropy-12907"],
    "tests: FAIL_TO_PASS 2 passed 0 failed, PASS_TO_PASS 3 passed 0 failed",
  );
  // django-11099: 3 and 20 passing.
  equal(
    notes["django__django-11099"],
    "tests: FAIL_TO_PASS 3 passed 0 failed, PASS_TO_PASS 20 passed 0 failed",
  );
  // django-11133: FAIL_TO_PASS 0 of 1, PASS_TO_PASS 64 passed and 1 failed.
  equal(
    notes["django__django-11133"],
    "tests: FAIL_TO_PASS 0 passed 1 failed, PASS_TO_PASS 64 passed 1 failed",
  );
  equal(
    notes["matplotlib__matplotlib-23314"],
    "infrastructure failure: display_unavailable; also in unresolved_ids[1]; patch did not apply",
  );
  // An empty report.json is what puts scikit-learn-13142 in error_ids.
  equal(
    notes["scikit-learn__scikit-learn-13142"],
    "harness error: the evaluation left no usable report.json; report.json unreadable",
  );
  // sphinx-8713 has no report.json, as an error id may; psf-2317 (empty patch) neither.
  equal(
    notes["sphinx-doc__sphinx-8713"],
    "infrastructure failure: container_unavailable; also in error_ids[1]",
  );
  equal(notes["psf__requests-2317"], "empty patch");
  deepEqual(
    batch.attempts.map((row) => row.outcome),
    (await importSwebenchReport(NIGHTLY, {})).attempts.map((row) => row.outcome),
  );
});

Deno.test("importSwebenchReport() refuses a report.json that disagrees, naming both files", async () => {
  const tree = `${FIXTURES}disagree/${TREE}`;
  const problem = await problemOf(() => importSwebenchReport(NIGHTLY, { reportTree: tree }));
  equal(problem.file, `${tree}/django__django-11133/report.json`);
  equal(problem.field, "django__django-11133.resolved");
  equal(problem.message, `is true, but ${NIGHTLY} lists the instance in unresolved_ids[0]`);
  const errorTree = `${FIXTURES}disagree_error/${TREE}`;
  const graded = await problemOf(() => importSwebenchReport(NIGHTLY, { reportTree: errorTree }));
  equal(graded.file, `${errorTree}/scikit-learn__scikit-learn-13142/report.json`);
  equal(
    graded.message,
    `grades the instance (resolved: false), but ${NIGHTLY} lists it in error_ids[0] (no usable report.json)`,
  );
});

Deno.test("importSwebenchReport() counts graded instances without a report.json", async () => {
  const tree = `${FIXTURES}lite_v2`;
  const batch = await importSwebenchReport(NIGHTLY, { runId: "nightly", reportTree: tree });
  // 3 resolved + 3 unresolved ids, none under a tree that holds no instance directory.
  deepEqual(batch.warnings, [
    `${tree}: 6 graded instances (resolved or unresolved) have no report.json`,
  ]);
});

Deno.test("importSwebenchReport() checks the predictions: an empty patch is empty, others are not", async () => {
  const clean = await importSwebenchReport(NIGHTLY, {
    predictions: `${FIXTURES}nightly/predictions.jsonl`,
  });
  equal(clean.attempts.length, 9);
  const file = `${FIXTURES}nightly/predictions_nonempty.jsonl`;
  const problem = await problemOf(() => importSwebenchReport(NIGHTLY, { predictions: file }));
  // psf__requests-2317 is the 5th of the sorted submitted ids.
  deepEqual([problem.file, problem.line, problem.field], [file, 5, "model_patch"]);
  equal(problem.message, `is not empty, but ${NIGHTLY} lists it in empty_patch_ids[0]`);
});

Deno.test("importSwebenchReport() warns about predictions the report does not name", async () => {
  const file = `${FIXTURES}nightly/predictions_extra.jsonl`;
  const batch = await importSwebenchReport(NIGHTLY, { predictions: file });
  deepEqual(batch.warnings, [`${file}: 1 predictions name instances the report does not name`]);
});

Deno.test("importSwebenchReport() refuses predictions that contradict the report", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const line = (id: string, patch: string | null) =>
      JSON.stringify({ instance_id: id, model_name_or_path: "openai/gpt-4.1", model_patch: patch });
    const base = (await Deno.readTextFile(`${FIXTURES}nightly/predictions.jsonl`)).trimEnd().split(
      "\n",
    );
    const cases: [string, string[], number, string, string][] = [
      // The incomplete instance had no prediction in the harness.
      [
        "incomplete",
        [...base, line("pylint-dev__pylint-7080", "diff")],
        10,
        "instance_id",
        `predicts "pylint-dev__pylint-7080", but ${NIGHTLY} lists it in incomplete_ids[0] (instances without a prediction)`,
      ],
      // A resolved instance cannot have had an empty patch (line 2 is django-11099).
      [
        "empty",
        base.map((text, i) => i === 1 ? line("django__django-11099", null) : text),
        2,
        "model_patch",
        `is empty, but ${NIGHTLY} lists it in resolved_ids[1]`,
      ],
      // A graded instance without a prediction.
      [
        "absent",
        base.slice(1),
        0,
        "",
        `holds no prediction of "astropy__astropy-12907"; ${NIGHTLY} lists it in resolved_ids[0]`,
      ],
      // Two models in one file.
      [
        "models",
        [...base.slice(0, 3), base[3].replace("openai/gpt-4.1", "openai/gpt-4o"), ...base.slice(4)],
        4,
        "model_name_or_path",
        'is "openai/gpt-4o" but line 1 says "openai/gpt-4.1": one import is one agent',
      ],
      ["twice", [...base, base[0]], 10, "instance_id", "repeats the prediction of line 1"],
    ];
    for (const [name, lines, lineNo, field, message] of cases) {
      const file = `${dir}/${name}.jsonl`;
      await Deno.writeTextFile(file, lines.join("\n") + "\n");
      const problem = await problemOf(() => importSwebenchReport(NIGHTLY, { predictions: file }));
      deepEqual([problem.file, problem.line, problem.field, problem.message], [
        file,
        lineNo,
        field,
        message,
      ], name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importSwebenchReport() warns when total_instances exceeds the ids named (release 2.0.0 keys)", async () => {
  const path = `${FIXTURES}lite_v2/princeton-nlp__SWE-Llama-13b.lite_v2.json`;
  const batch = await importSwebenchReport(path, {});
  // 300 Lite instances, 4 named (1 resolved, 2 unresolved, 1 error).
  deepEqual(batch.warnings, [
    `${path}: total_instances is 300 but the report names 4 instance ids: 296 dataset ` +
    "instances are not named; pass the dataset's task list",
  ]);
  deepEqual(batch.planned_tasks, [
    "django__django-11179",
    "django__django-12286",
    "sympy__sympy-24152",
    "astropy__astropy-14365",
  ]);
  equal(batch.attempts[0].agent_id, "princeton-nlp/SWE-Llama-13b");
  equal(batch.attempts[0].run_id, "lite_v2");
});

Deno.test("importSwebenchReport() warns of a schema_version it does not know", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // The nightly fixture says schema_version 2 (reporting.py at 5.0.2); lite_v2 (release 2.0.0
    // keys) has none: both known, neither warns (see the tests above).
    const path = `${dir}/openai__gpt-4.1.nightly.json`;
    const report = JSON.parse(await Deno.readTextFile(NIGHTLY));
    report.schema_version = 3;
    await Deno.writeTextFile(path, JSON.stringify(report));
    const batch = await importSwebenchReport(path, { runId: "nightly" });
    deepEqual(batch.warnings, [
      `${path}: schema_version is 3, not a SWE-bench report version this importer knows (2, ` +
      "or none before release 2.0.10): read by the version 2 rules",
    ]);
    equal(batch.attempts.length, NIGHTLY_ROWS.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importSwebenchReport() refuses an id in two outcome lists, naming both", async () => {
  const path = `${FIXTURES}bad/two_lists.nightly.json`;
  const problem = await problemOf(() => importSwebenchReport(path, {}));
  deepEqual([problem.code, problem.file, problem.line, problem.field], [
    "schema_violation",
    path,
    0,
    "unresolved_ids[0]",
  ]);
  equal(
    problem.message,
    'instance "django__django-11099" is also in resolved_ids[0]: an instance has one outcome',
  );
});

Deno.test("importSwebenchReport() refuses the other contradictions of a report", async () => {
  const cases: [string, string, string][] = [
    [
      "overlay_resolved",
      "infra_failure_ids[0]",
      'instance "django__django-11099" is also in resolved_ids[0]: an instance has one outcome',
    ],
    ["count_mismatch", "resolved_instances", "is 2 but resolved_ids holds 1 ids"],
    [
      "twice",
      "unresolved_ids[2]",
      'instance "sympy__sympy-20590" is listed twice (also unresolved_ids[0])',
    ],
    ["total_below", "total_instances", "is 1 but the outcome lists name 2 instances"],
  ];
  for (const [name, field, message] of cases) {
    const problem = await problemOf(() =>
      importSwebenchReport(`${FIXTURES}bad/${name}.nightly.json`, {})
    );
    deepEqual([problem.field, problem.message], [field, message], name);
  }
  const notReport = await problemOf(() =>
    importSwebenchReport(`${FIXTURES}bad/not_a_report.json`, {})
  );
  deepEqual([notReport.field, notReport.message], [
    "resolved_ids",
    "missing (required; expected array)",
  ]);
  const absent = await problemOf(() => importSwebenchReport(`${FIXTURES}bad/absent.json`, {}));
  equal(absent.code, "io_error");
});

Deno.test("importSwebenchReport() needs an agent id when a renamed file names no model", async () => {
  const path = `${FIXTURES}renamed/final_report.json`;
  const problem = await problemOf(() => importSwebenchReport(path, {}));
  equal(
    problem.message,
    'the file name is not "<model>.<run_id>.json" and no predictions name the model: pass an agent id',
  );
  const batch = await importSwebenchReport(path, { agentId: "my-agent" });
  // Fallback run id: "swebench-" and the first 12 hex digits of the file's SHA-256.
  const runId = `swebench-${(await sha256Of(path)).slice(0, 12)}`;
  equal(batch.attempts[0].run_id, runId);
  equal(batch.attempts[0].provenance.model, null);
  deepEqual(batch.warnings, [`${path}: the file name names no run id; rows get run id ${runId}`]);
});

Deno.test("importSwebenchReport() rejects a directory as the report", async () => {
  await rejects(() => importSwebenchReport(FIXTURES, {}), LedgerError);
});
