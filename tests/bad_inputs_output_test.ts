/**
 * Strings from a ledger are never trusted in output (issue 10): an agent id
 * holding U+202E, a newline (with a fake heading and an `<img onerror>`), a
 * run of backticks, or 10,000 characters goes through `summarize`,
 * `compare` and `report` with exit 0, shown escaped (and, when long,
 * shortened to 48 characters with a hash) in every table, never raw.
 */
import assert from "node:assert/strict";
import { displayId } from "../analysis/untrusted_text.ts";
import { type BadInputCase, badInputTests } from "./_bad_input_table.ts";
import { cliInProcess, row, writeJsonl } from "./_cli_run.ts";

const BIDI = "a\u202eb";
const NEWLINE = "x\n# fake heading\n<img src=x onerror=alert(1)>";
const BACKTICKS = "p``q```r`";
const LONG = "agent-".repeat(1700) + "one";

/** Two agents: the hostile one and "b", two tasks each. */
function ledger(agent: string): string {
  return [agent, "b"].flatMap((id) =>
    [1, 2].map((i) => JSON.stringify(row({ agent_id: id, task_id: `t${i}`, resolved: i === 1 })))
  ).join("\n") + "\n";
}

/** Any raw control, bidi or line-separator character but LF. */
const RAW =
  "[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029]";
/** At the start of the output, which holds no {@link RAW} character. */
const NO_RAW = `(?<![\\s\\S])(?![\\s\\S]*${RAW})`;
/**
 * A table row whose agent cell is `cell` (as the CLI shows it), after its rank (issue 25), and
 * that goes on on the same line.
 */
const rowOf = (cell: string) =>
  new RegExp(
    `^${NO_RAW}[\\s\\S]*^ *(?:\\d+|-)  ${cell.replace(/[.*+?^${}()|[\]\\`]/g, "\\$&")} +\\S`,
    "m",
  );

const CASES: BadInputCase[] = [];
for (
  const [what, id, shown] of [
    ["U+202E", BIDI, "a\\u202eb"],
    ["a newline, a fake heading and <img onerror>", NEWLINE, displayId(NEWLINE)],
    ["a run of backticks", BACKTICKS, BACKTICKS],
    ["10,000 characters", LONG, displayId(LONG)],
  ] as const
) {
  for (const command of ["summarize", "compare"]) {
    CASES.push({
      name:
        `${command}: an agent id holding ${what} is shown escaped (and shortened when long) in the table`,
      files: { "l.jsonl": ledger(id) },
      // wide enough for the 48 characters of displayId (narrower widths shorten ids further)
      args: [command, "{dir}/l.jsonl", "--width", "250"],
      code: 0,
      stderr: /^$/,
      stdout: rowOf(shown),
    });
  }
  CASES.push({
    name: `report: an agent id holding ${what} gives a report (exit 0)`,
    files: { "l.jsonl": ledger(id) },
    args: ["report", "{dir}/l.jsonl", "--out", "{dir}/r"],
    code: 0,
    stderr: /^$/,
    stdout: new RegExp(`^${NO_RAW}Wrote `),
  });
}
CASES.push({
  name: "summarize --json: the full 10,000-character id, the same JSON value",
  files: { "l.jsonl": ledger(LONG) },
  args: ["summarize", "{dir}/l.jsonl", "--json"],
  code: 0,
  stderr: /^$/,
  stdout: new RegExp(`"agent_id": "${LONG}"`),
});

for (const command of ["summarize", "compare"]) {
  CASES.push({
    name: `${command}: an id's newline never starts a line of its own (titles, notes, verdicts)`,
    files: { "l.jsonl": ledger(NEWLINE) },
    args: [command, "{dir}/l.jsonl"],
    code: 0,
    stderr: /^$/,
    stdout: /(?<![\s\S])(?![\s\S]*^(# fake heading|<img))/m,
  });
}

badInputTests("output", CASES);

Deno.test("bad input (output): report.md shows hostile ids escaped and keeps the full ids in summary.json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "lb-bad-" });
  try {
    const rows = [BIDI, NEWLINE, BACKTICKS, LONG].flatMap((agent) =>
      [1, 2].map((i) => row({ agent_id: agent, task_id: `t${i}`, resolved: i === 1 }))
    );
    await writeJsonl(`${dir}/l.jsonl`, rows);
    const result = await cliInProcess("report", `${dir}/l.jsonl`, "--out", `${dir}/r`);
    assert.equal(result.code, 0, result.stderr);
    const md = await Deno.readTextFile(`${dir}/r/report.md`);
    assert.equal(new RegExp(RAW).test(md), false);
    // No line of the report starts with the id's fake heading or its HTML.
    assert.equal(/^(# fake heading|<img)/m.test(md), false);
    assert.ok(md.includes("| a\\\\u202eb |"), "the bidi id escaped in the agents table");
    assert.ok(md.includes(`| ${displayId(LONG)} |`), "the long id shortened in the agents table");
    const summary = JSON.parse(await Deno.readTextFile(`${dir}/r/summary.json`));
    assert.deepEqual(
      summary.agents.map((a: { agent_id: string }) => a.agent_id).sort(),
      [BIDI, NEWLINE, BACKTICKS, LONG].sort(),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
