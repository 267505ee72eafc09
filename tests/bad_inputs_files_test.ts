/**
 * The CLI's answer to bad files (issue 10), through the inputs layer: each
 * case names the file, the line and the field, exits 2, and prints no
 * stack trace.
 */
import { type BadInputCase, badInputTests } from "./_bad_input_table.ts";
import { row } from "./_cli_run.ts";

const line = (overrides: Record<string, unknown> = {}) => JSON.stringify(row(overrides));
const GOOD = `${line()}\n${line({ task_id: "t2", resolved: false })}\n`;
const PLAN = JSON.stringify({ plan_id: "p", tasks: [{ task_id: "t1" }, { task_id: "t2" }] });
const PRICES = JSON.stringify({ price_table_id: "local-0", currency: "USD" });
const ERRATUM = JSON.stringify({
  kind: "void_summary",
  erratum_id: "e1",
  created_at: "2026-09-04T00:00:00Z",
  summary_sha256: "0".repeat(64),
  explanation: "test",
});
/** `levels` nested arrays, e.g. 2 → `[[]]`. */
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
/** The value: 100,000 levels, where 256 are allowed (MAX_JSON_DEPTH, json_scan.ts). */
const DEEP = nested(100_000);
/** A row whose notes hold {@link DEEP}: the 257th level opens 255 "[" after `"notes":`. */
const DEEP_ROW = `${line().slice(0, -1)},"notes":${DEEP}}`;
const DEEP_ROW_COLUMN = DEEP_ROW.indexOf("[") + 255 + 1;
const DEEP_PLAN = `{"plan_id":"p","tasks":${DEEP}}`;
/** The nesting message, at a column. */
const tooDeep = (column: number) =>
  `nested too deeply: more than 256 levels of objects and arrays \\(at column ${column}\\)`;
/** One erratum as `errata append` would store it (canonical JSON). */
const STORED_VOID =
  `{"created_at":"2026-09-04T00:00:00Z","erratum_id":"errata-0001","explanation":"test",` +
  `"kind":"void_summary","schema_version":1,"summary_sha256":"${"0".repeat(64)}"}`;
const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(
    parts.flatMap((part) => typeof part === "string" ? [...new TextEncoder().encode(part)] : part),
  );
const utf16 = (text: string) =>
  new Uint8Array([0xff, 0xfe, ...[...text].flatMap((c) => [c.charCodeAt(0), 0])]);

const CASES: BadInputCase[] = [
  {
    name: "a directory given as the ledger",
    files: { "d/x": "" },
    args: ["summarize", "{dir}/d"],
    code: 2,
    stderr: /^error: \{dir\}\/d: is a directory, not a file\n$/,
  },
  {
    name: "a directory given as the errata",
    files: { "l.jsonl": GOOD, "d/x": "" },
    args: ["summarize", "{dir}/l.jsonl", "--errata", "{dir}/d"],
    code: 2,
    stderr: /^error: \{dir\}\/d: is a directory, not a file\n$/,
  },
  {
    name: "a directory given as the pilot",
    files: { "d/x": "" },
    args: ["plan", "--pilot", "{dir}/d", "--tasks", "10", "--budget", "1000"],
    code: 2,
    stderr: /^error: \{dir\}\/d: is a directory, not a file\n$/,
  },
  {
    name: "a directory given as the plan",
    files: { "l.jsonl": GOOD, "d/x": "" },
    args: ["validate", "{dir}/l.jsonl", "--plan", "{dir}/d"],
    code: 2,
    stderr: /^error: \{dir\}\/d: is a directory, not a file\n$/,
  },
  {
    name: "a ledger that does not exist",
    args: ["compare", "{dir}/nope.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/nope\.jsonl: No such file or directory \(os error 2\)\n$/,
  },
  {
    name: "a zero-byte ledger",
    files: { "l.jsonl": "" },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr:
      /^error: \{dir\}\/l\.jsonl: the ledger is empty \(0 bytes\): no episode was recorded\n$/,
  },
  {
    name: "a UTF-16 ledger",
    files: { "l.jsonl": utf16(GOOD) },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/l\.jsonl:1: is UTF-16 .*save it as UTF-8\n$/,
  },
  {
    name: "a byte that is not UTF-8, on line 2",
    files: { "l.jsonl": bytes(`${line()}\n`, [0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0x0a]) },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/l\.jsonl:2: not valid UTF-8 at byte 3 \(0xC3 0x28\)\n$/,
  },
  {
    name: "a byte-order mark opening the ledger",
    files: { "l.jsonl": bytes([0xef, 0xbb, 0xbf], GOOD) },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/l\.jsonl:1: starts with a UTF-8 byte-order mark/,
  },
  {
    name: "a byte-order mark in the middle of the ledger",
    files: { "l.jsonl": bytes(`${line()}\n`, [0xef, 0xbb, 0xbf], `${line({ task_id: "t2" })}\n`) },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/l\.jsonl:2: starts with a UTF-8 byte-order mark/,
  },
  {
    name: "a byte-order mark opening the plan, as in the ledger",
    files: { "l.jsonl": GOOD, "p.json": bytes([0xef, 0xbb, 0xbf], PLAN) },
    args: ["validate", "{dir}/l.jsonl", "--plan", "{dir}/p.json"],
    code: 2,
    stderr: /^error: \{dir\}\/p\.json:1: starts with a UTF-8 byte-order mark/,
  },
  {
    name: "1e999 in a row",
    files: { "l.jsonl": `${line().replace('"wall_ms":1000', '"wall_ms":1e999')}\n` },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/l\.jsonl:1: field "wall_ms": number out of range/,
  },
  {
    name: "a missing field",
    files: { "l.jsonl": `${line({ run_id: undefined })}\n` },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/l\.jsonl:1: field "run_id": missing \(required; expected string\)\n$/,
  },
  {
    name: "a row without seed: missing, required, null when not recorded",
    files: { "l.jsonl": `${line()}\n${line({ task_id: "t2", seed: undefined })}\n` },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr:
      /^error: \{dir\}\/l\.jsonl:2: field "seed": missing \(required; expected number or string, or null when not recorded\)\n$/,
  },
  {
    name: "a row without prompt_tokens, in validate too",
    files: { "l.jsonl": `${line({ prompt_tokens: undefined })}\n`, "p.json": PLAN },
    args: ["validate", "{dir}/l.jsonl", "--plan", "{dir}/p.json"],
    code: 2,
    stderr:
      /^error: \{dir\}\/l\.jsonl:1: field "prompt_tokens": missing \(required; expected number, or null when not recorded\)\n$/,
  },
  {
    name: "a plan without tasks",
    files: { "l.jsonl": GOOD, "p.json": '{"plan_id":"p"}' },
    args: ["summarize", "{dir}/l.jsonl", "--plan", "{dir}/p.json"],
    code: 2,
    stderr: /^error: \{dir\}\/p\.json: field "tasks": missing \(required; expected array\)\n$/,
  },
  {
    name: "an erratum without its kind",
    files: { "l.jsonl": GOOD, "e.jsonl": `${ERRATUM.replace('"kind":"void_summary",', "")}\n` },
    args: ["summarize", "{dir}/l.jsonl", "--errata", "{dir}/e.jsonl"],
    code: 2,
    stderr:
      /^error: \{dir\}\/e\.jsonl:1: field "kind": missing \(required; expected one of "invalidate_episode", "rescore_episode", "void_summary"\)\n$/,
  },
  {
    name: "a 100,000-deep value in a ledger line",
    files: { "l.jsonl": `${line()}\n${DEEP_ROW}\n` },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr: new RegExp(
      `^error: \\{dir\\}/l\\.jsonl:2: field "notes\\.0\\.0\\.0\\.0\\.0\\.…": ${
        tooDeep(DEEP_ROW_COLUMN)
      }\\n$`,
    ),
  },
  {
    name: "a 100,000-deep value in the plan",
    files: { "l.jsonl": GOOD, "p.json": DEEP_PLAN },
    args: ["validate", "{dir}/l.jsonl", "--plan", "{dir}/p.json"],
    code: 2,
    // `{"plan_id":"p","tasks":` is 23 characters; the 257th level is the 256th "["
    stderr: new RegExp(
      `^error: \\{dir\\}/p\\.json:1: field "tasks\\.0\\.0\\.0\\.0\\.0\\.…": ${
        tooDeep(23 + 256)
      }\\n$`,
    ),
  },
  {
    name: "a 100,000-deep value in the errata",
    files: { "l.jsonl": GOOD, "e.jsonl": `${ERRATUM.slice(0, -1)},"x":${DEEP}}\n` },
    args: ["summarize", "{dir}/l.jsonl", "--errata", "{dir}/e.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/e\.jsonl:1: field "x\.0\.0\.0\.0\.0\.…": nested too deeply/,
  },
  {
    name: "a 100,000-deep value in the price table",
    files: {
      "l.jsonl": GOOD,
      "t.json": `{"price_table_id":"local-0","currency":"USD","x":${DEEP}}`,
    },
    args: ["summarize", "{dir}/l.jsonl", "--price-table", "{dir}/t.json"],
    code: 2,
    stderr: /^error: \{dir\}\/t\.json:1: field "x\.0\.0\.0\.0\.0\.…": nested too deeply/,
  },
  {
    name: "a 100,000-deep value in the task list",
    files: { "l.jsonl": GOOD, "tasks.json": `{"tasks":${DEEP}}` },
    args: ["summarize", "{dir}/l.jsonl", "--tasks", "{dir}/tasks.json"],
    code: 2,
    stderr: /^error: \{dir\}\/tasks\.json:1: field "tasks\.0\.0\.0\.0\.0\.…": nested too deeply/,
  },
  {
    name: "errata append: the same correction twice, under a new id and time",
    files: { "e.jsonl": `${STORED_VOID}\n` },
    args: [
      "errata",
      "append",
      "{dir}/e.jsonl",
      "--kind",
      "void_summary",
      "--summary-sha256",
      "0".repeat(64),
      "--explanation",
      "test",
    ],
    code: 2,
    stderr:
      /^error: \{dir\}\/e\.jsonl:2: erratum "errata-0002" repeats the correction on line 1 \(erratum "errata-0001"\): the same void_summary of summary 0{64} again, which would change nothing; nothing was written\n$/,
  },
  {
    name: "errata append: the same invalidation with other words is the same correction",
    files: {
      "l.jsonl": GOOD,
      "e.jsonl": `${
        JSON.stringify({
          kind: "invalidate_episode",
          erratum_id: "e1",
          created_at: "2026-09-04T00:00:00Z",
          episode_id: "r1/a/t1/1",
          invalid_reason: "verifier_fault",
          explanation: "the verifier crashed",
        })
      }\n`,
    },
    args: [
      "errata",
      "append",
      "{dir}/e.jsonl",
      "--kind",
      "invalidate_episode",
      "--episode",
      "r1/a/t1/1",
      "--reason",
      "verifier_fault",
      "--explanation",
      "Verifier crashed in setup",
      "--ledger",
      "{dir}/l.jsonl",
    ],
    code: 2,
    stderr:
      /^error: \{dir\}\/e\.jsonl:2: erratum "errata-0002" repeats the correction on line 1 \(erratum "e1"\): the same invalidate_episode of episode "r1\/a\/t1\/1" again, which would change nothing; nothing was written\n$/,
  },
  {
    name: "an errata file that already repeats a correction, on its line",
    files: {
      "l.jsonl": GOOD,
      "e.jsonl": `${STORED_VOID}\n${
        STORED_VOID.replace("errata-0001", "errata-0002").replace("2026-09-04", "2026-09-05")
      }\n`,
    },
    args: ["summarize", "{dir}/l.jsonl", "--errata", "{dir}/e.jsonl"],
    code: 2,
    stderr:
      /^error: \{dir\}\/e\.jsonl:2: erratum "errata-0002" repeats the correction on line 1 \(erratum "errata-0001"\): the same void_summary of summary 0{64} again, which would change nothing\n$/,
  },
  {
    name: "a repeated key in a row",
    files: {
      "l.jsonl": `${line().replace('"resolved":true', '"resolved":false,"resolved":true')}\n`,
    },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/l\.jsonl:1: field "resolved": duplicate key "resolved"\n$/,
  },
  {
    name: "a repeated key in the plan, on its line",
    files: {
      "l.jsonl": GOOD,
      "p.json": '{\n "plan_id": "p",\n "plan_id": "q",\n "tasks": []\n}\n',
    },
    args: ["validate", "{dir}/l.jsonl", "--plan", "{dir}/p.json"],
    code: 2,
    stderr: /^error: \{dir\}\/p\.json:3: field "plan_id": duplicate key "plan_id"\n$/,
  },
  {
    name: "a JSON syntax error in the plan, on its line and column",
    files: { "l.jsonl": GOOD, "p.json": '{\n "plan_id": "p",\n tasks: []\n}\n' },
    args: ["summarize", "{dir}/l.jsonl", "--plan", "{dir}/p.json"],
    code: 2,
    stderr:
      /^error: \{dir\}\/p\.json:3: not valid JSON: unexpected "t" \(expected a key in double quotes\) at column 2\n$/,
  },
  {
    name: "a misspelt plan key",
    files: { "l.jsonl": GOOD, "p.json": PLAN.replace("{", '{"tie_bnad":0.2,') },
    args: ["compare", "{dir}/l.jsonl", "--plan", "{dir}/p.json"],
    code: 2,
    stderr:
      /^error: \{dir\}\/p\.json: field "tie_bnad": unknown key; the schema has no such field\n$/,
  },
  {
    name: "a misspelt price-table key",
    files: { "l.jsonl": GOOD, "t.json": PRICES.replace("{", '{"curency":"EUR",') },
    args: ["summarize", "{dir}/l.jsonl", "--price-table", "{dir}/t.json"],
    code: 2,
    stderr: /^error: \{dir\}\/t\.json: field "curency": unknown key/,
  },
  {
    name: "a misspelt erratum key, on its line",
    files: {
      "l.jsonl": GOOD,
      "e.jsonl": `${ERRATUM}\n${ERRATUM.replace('"e1"', '"e2"').replace("{", '{"note":"x",')}\n`,
    },
    args: ["summarize", "{dir}/l.jsonl", "--errata", "{dir}/e.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/e\.jsonl:2: field "note": unknown key/,
  },
  {
    name: "validate: a plan that does not match its published .sha256",
    files: { "l.jsonl": GOOD, "p.json": PLAN, "p.json.sha256": `${"0".repeat(64)}  p.json\n` },
    args: ["validate", "{dir}/l.jsonl", "--plan", "{dir}/p.json"],
    code: 2,
    stderr:
      /^error: \{dir\}\/p\.json: its SHA-256 is [0-9a-f]{64}, but "\{dir\}\/p\.json\.sha256" publishes 0{64}: the plan was changed after it was frozen\n$/,
  },
  {
    name: "report: a plan that does not match its published .sha256",
    files: { "l.jsonl": GOOD, "p.json": PLAN, "p.json.sha256": `${"0".repeat(64)}  p.json\n` },
    args: ["report", "{dir}/l.jsonl", "--plan", "{dir}/p.json", "--out", "{dir}/r"],
    code: 2,
    stderr: /^error: \{dir\}\/p\.json: its SHA-256 is [0-9a-f]{64}, but .* publishes 0{64}/,
  },
  {
    name: "a .sha256 file that holds no hash",
    files: { "l.jsonl": GOOD, "p.json": PLAN, "p.json.sha256": "hello\n" },
    args: ["validate", "{dir}/l.jsonl", "--plan", "{dir}/p.json"],
    code: 2,
    stderr: /^error: \{dir\}\/p\.json\.sha256:1: must start with the plan's SHA-256/,
  },
  {
    name: "rows that name two price tables, without --price-table",
    files: { "l.jsonl": `${line()}\n${line({ task_id: "t2", price_table_id: "other" })}\n` },
    args: ["summarize", "{dir}/l.jsonl"],
    code: 0,
    stderr:
      /^warning: \{dir\}\/l\.jsonl: the rows name 2 price tables \("local-0" 1 row, "other" 1 row\); costs from different tables are not comparable\n$/,
  },
  {
    name: "rows that name two price tables, in compare too",
    files: { "l.jsonl": `${line()}\n${line({ agent_id: "b", price_table_id: "other" })}\n` },
    args: ["compare", "{dir}/l.jsonl"],
    code: 0,
    stderr: /^warning: .*the rows name 2 price tables/,
  },
  {
    name: "report --out naming an existing file",
    files: { "l.jsonl": GOOD, "r": "not a directory" },
    args: ["report", "{dir}/l.jsonl", "--out", "{dir}/r"],
    code: 2,
    stderr: /^error: Cannot write the report to "\{dir\}\/r": it exists and is not a directory\n$/,
  },
  {
    name: "report --out under a file",
    files: { "l.jsonl": GOOD, "f": "a file" },
    args: ["report", "{dir}/l.jsonl", "--out", "{dir}/f/r"],
    code: 2,
    stderr: /^error: Cannot write the report to "\{dir\}\/f\/r": Not a directory/,
  },
  {
    name: "verify-report: a summary.json that is not JSON, on its line and column",
    files: { "r/summary.json": '{\n "format": oops\n}\n' },
    args: ["verify-report", "{dir}/r"],
    code: 2,
    stderr:
      /^error: \{dir\}\/r\/summary\.json:2: not valid JSON: unexpected "o" \(expected a value\) at column 12\n$/,
  },
  {
    name: "a suite whose manifest is not JSON",
    files: { "s/suite.json": "{oops" },
    args: ["freeze", "--suite", "{dir}/s", "--out", "{dir}/p.json", "--agent", "a=img:1"],
    code: 2,
    stderr: /^error: \{dir\}\/s\/suite\.json:1: not valid JSON/,
  },
];

badInputTests("files", CASES);
