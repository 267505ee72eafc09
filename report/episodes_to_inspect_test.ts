import { deepEqual, equal, ok } from "node:assert/strict";
import { inMemoryLedger } from "../analysis/_ledger_for_test.ts";
import { applyErrata, type ErrataFile } from "../analysis/errata.ts";
import { Episode, Erratum } from "../analysis/schema/records.ts";
import { buildReport } from "./build_report.ts";
import { episodesToInspect } from "./episodes_to_inspect.ts";
import { reportHtml } from "./report_html.ts";

const DIGEST = `sha256:${"ab".repeat(32)}`;

function episode(task: string, extra: Record<string, unknown>): Episode {
  return Episode.parse({
    run_id: "r1",
    agent_id: "a",
    task_id: task,
    seed: 1,
    prompt_tokens: 100,
    completion_tokens: 50,
    tool_calls: 1,
    wall_ms: 1000,
    price_table_id: "p",
    ...extra,
  });
}

const ROWS = [
  episode("t1", { resolved: true }),
  episode("t2", { resolved: false, stop_reason: "error", episode_log_digest: DIGEST }),
  episode("t3", { status: "invalid", resolved: null, invalid_reason: "verifier_fault" }),
];

function inputsOf(rows: Episode[], file = "runs/r1/ledger.jsonl") {
  return {
    ledger: inMemoryLedger(rows, file),
  };
}

Deno.test("episodesToInspect() lists failed and invalid rows in ledger order", () => {
  deepEqual(episodesToInspect(ROWS), [
    {
      episode_id: "r1/a/t2/1",
      agent_id: "a",
      task_id: "t2",
      outcome: "failed",
      invalid_reason: null,
      stop_reason: "error",
      episode_log_digest: DIGEST,
    },
    {
      episode_id: "r1/a/t3/1",
      agent_id: "a",
      task_id: "t3",
      outcome: "invalid",
      invalid_reason: "verifier_fault",
      stop_reason: "completed",
      episode_log_digest: null,
    },
  ]);
});

Deno.test("episodesToInspect() follows the errata: a re-verified episode is no longer failed", () => {
  const rescore = Erratum.parse({
    kind: "rescore_episode",
    erratum_id: "e1",
    created_at: "2026-12-01T00:00:00Z",
    episode_id: "r1/a/t2/1",
    resolved: true,
    explanation: "fixed verifier",
  });
  const errata: ErrataFile = {
    file: "errata.jsonl",
    sha256: "0".repeat(64),
    lines: 1,
    problems: [],
    entries: [{ line: 1, erratum: rescore }],
  };
  const { rows } = applyErrata(ROWS, errata);
  deepEqual(episodesToInspect(rows).map((e) => e.episode_id), ["r1/a/t3/1"]);
});

Deno.test("buildReport() links each failed and invalid episode to its show command", () => {
  const report = buildReport(inputsOf(ROWS));
  deepEqual(report.summary.episodes_to_inspect, episodesToInspect(ROWS));
  ok(
    report.markdown.includes(
      "## Failed and invalid episodes\n\n" +
        "2 episodes failed or were invalid; per agent, the first 5 in ledger order are listed " +
        "below, and summary.json lists every one (`episodes_to_inspect`). " +
        "`deno task ledgerbench show EPISODE --ledger runs/r1/ledger.jsonl` prints an episode's " +
        "row, each model call the relay recorded (model, usage, latency, status, refusal or " +
        "fault) and the candidate's stdout and stderr tails, read from the episode log stored " +
        "beside its workspace artifact and checked against the row's digest (add " +
        "`--artifacts DIR` when the store is not `artifacts/` beside the ledger; a row without " +
        'a stored log is printed with "no stored log"); ' +
        "`deno task ledgerbench view runs/r1/ledger.jsonl` browses and filters them all.\n\n" +
        "| agent | failed | invalid | listed |\n" +
        "| --- | ---: | ---: | ---: |\n" +
        "| a | 1 | 1 | 2 |\n\n" +
        "| episode | outcome | stop reason | log | open with |\n" +
        "| --- | --- | --- | --- | --- |\n" +
        "| `r1/a/t2/1` | failed | `error` | stored | " +
        "`deno task ledgerbench show r1/a/t2/1 --ledger runs/r1/ledger.jsonl` |\n" +
        "| `r1/a/t3/1` | invalid (`verifier_fault`) | `completed` | none | " +
        "`deno task ledgerbench show r1/a/t3/1 --ledger runs/r1/ledger.jsonl` |\n",
    ),
    report.markdown,
  );
});

Deno.test("buildReport() says when no episode failed or was invalid", () => {
  const report = buildReport(inputsOf([ROWS[0]]));
  deepEqual(report.summary.episodes_to_inspect, []);
  ok(
    report.markdown.includes(
      "## Failed and invalid episodes\n\nNo attempt failed or was invalid.\n",
    ),
  );
});

Deno.test("buildReport() quotes and escapes untrusted ids in the show command", () => {
  const hostile = episode("t9", {
    run_id: "r1",
    agent_id: "<b>x</b>'$(id)",
    resolved: false,
  });
  const bidi = episode("t\u202e9", { resolved: false });
  const report = buildReport(inputsOf([hostile, bidi], "my runs/ledger.jsonl"));
  // Markdown: one shell word per id and per path; the id's quote closed and reopened.
  ok(
    report.markdown.includes(
      "`deno task ledgerbench show 'r1/<b>x</b>'\\''$(id)/t9/1' --ledger 'my runs/ledger.jsonl'`",
    ),
    report.markdown,
  );
  // A bidirectional override shows as its UTF-8 bytes, never reorders the command.
  ok(
    report.markdown.includes(
      "`deno task ledgerbench show $'r1/a/t\\342\\200\\2569/1' --ledger 'my runs/ledger.jsonl'`",
    ),
  );
  const svgs = Object.fromEntries(report.figures.map((f) => [f.name, "<svg></svg>"]));
  const html = reportHtml(report, svgs);
  ok(!html.includes("<b>x</b>"));
  ok(
    html.includes(
      "<code>deno task ledgerbench show 'r1/&lt;b&gt;x&lt;/b&gt;'\\''$(id)/t9/1' " +
        "--ledger 'my runs/ledger.jsonl'</code>",
    ),
  );
  equal(html.includes("\u202e"), false);
});
