/**
 * The CLI tables at field scale (issue 25: tables 145 to 364 columns wide,
 * alphabetical, rates as `0.3951`, "wins" printed for withheld agents), on
 * the generated 14-agent ledger (`importFieldScaleLedger`: SWE-Bench-Pro
 * shaped, agent ids up to 42 characters, task ids of about 100 ending in
 * hashes, one agent missing 26% of its tasks, one over the invalid band, no
 * tokens) with an explicit `--tasks`, and on the shipped examples: no line
 * wider than 80 or 100 columns; rows in leaderboard order with ranks that
 * an independent reading of the intervals gives; withheld agents marked,
 * listed last and never ranked; no "wins" for a withheld agent; rates as
 * percentages; `--json` the same at any width. The CLI runs in this
 * process (`cliInProcess`), but for the width from `COLUMNS` with stdout
 * piped, a property of the real process.
 *
 * @module
 */
import assert from "node:assert/strict";
import { cliCommand, cliInProcess } from "./_cli_run.ts";
import { importFieldScaleLedger } from "./_field_scale_ledger.ts";

/** Display columns of a line: code points (the output is escaped to printable characters). */
const columns = (line: string) => [...line].length;

/** Every line of `text` no wider than `width`, or the first that is. */
function assertFits(text: string, width: number, what: string): void {
  const wide = text.split("\n").find((line) => columns(line) > width);
  assert.equal(wide, undefined, `${what}: a line of ${columns(wide ?? "")} > ${width} columns`);
}

/**
 * The rows of the first table whose header starts with `header`: each line
 * after the dashed rule up to the first line that is not a row, cut at runs
 * of two or more spaces (a cell holds at most single spaces).
 */
function tableRows(text: string, header: RegExp, from = 0): string[][] {
  const lines = text.slice(from).split("\n");
  const start = lines.findIndex((line) => header.test(line));
  assert.ok(start >= 0, `no table ${header} in:\n${text}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!/^ *(\d+|-|) {2}\S/.test(line)) break;
    rows.push(line.trim().split(/ {2,}/));
  }
  return rows;
}

/**
 * A text output of the CLI, run in this process (`cliInProcess`), exit 0
 * and nothing on stderr.
 */
async function run(...args: string[]): Promise<string> {
  const result = await cliInProcess(...args);
  assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
  assert.equal(result.stderr, "", args.join(" "));
  return result.stdout;
}

const WITHHELD = new Map([
  ["orca-13b-2025-02", "withheld (missing)"],
  ["heron-8b-2024-10", "withheld (invalid)"],
]);

Deno.test("CLI tables on the 14-agent ledger (issue 25)", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-cli-tables-" });
  try {
    const { ledger, tasks } = await importFieldScaleLedger(dir);
    const commands = ["summarize", "compare", "censoring", "coverage"];

    await t.step("no line is wider than 80 or 100 columns, by --width and by COLUMNS", async () => {
      for (const width of [80, 100]) {
        for (const command of commands) {
          const text = await run(command, ledger, "--tasks", tasks, "--width", String(width));
          assertFits(text, width, `${command} --width ${width}`);
        }
        // compare's every stated pair and its paired figures fit too
        const pairs = await run(
          "compare",
          ledger,
          "--tasks",
          tasks,
          "--pairs",
          "--paired",
          "--width",
          String(width),
        );
        assertFits(pairs, width, `compare --pairs --paired --width ${width}`);
      }
      // Without --width and with stdout piped: COLUMNS, else 100 (the real process's
      // environment and pipe, so a subprocess).
      for (const [env, width] of [[{ COLUMNS: "80" }, 80], [{ COLUMNS: "" }, 100]] as const) {
        const output = await cliCommand(["summarize", ledger, "--tasks", tasks], { env }).output();
        assert.equal(output.code, 0);
        assertFits(new TextDecoder().decode(output.stdout), width, `COLUMNS=${env.COLUMNS}`);
      }
      // the old layout was 160+ columns wide: the narrow one really folded something
      const wide = await run("summarize", ledger, "--tasks", tasks, "--width", "400");
      assert.ok(wide.split("\n").some((line) => columns(line) > 160));
    });

    await t.step(
      "summarize ranks by seed 001's verdicts: an independent reading of the intervals",
      async () => {
        const json = JSON.parse(await run("summarize", ledger, "--tasks", tasks, "--json"));
        const standings = new Map<string, string | null>(
          json.standings.map((s: { agent_id: string; withheld: string | null }) => [
            s.agent_id,
            s.withheld,
          ]),
        );
        type Agent = { agent_id: string; interval: { lower: number; upper: number } };
        const stated: Agent[] = json.agents.filter((a: Agent) =>
          standings.get(a.agent_id) === null
        );
        // No tokens or times are recorded, so no tie-break can decide (seed 001's steps 3 and 4):
        // an agent beats another only when its interval lies wholly above (step 2).
        const expected = new Map(
          stated.map((a) => [
            a.agent_id,
            1 + stated.filter((b) => b.interval.lower > a.interval.upper).length,
          ]),
        );
        const text = await run("summarize", ledger, "--tasks", tasks, "--width", "400");
        const rows = tableRows(text, /^rank {2}agent +episodes/);
        assert.equal(rows.length, 14);
        for (const [rank, agent] of rows) {
          if (WITHHELD.has(agent)) assert.equal(rank, "-", agent);
          else assert.equal(rank, String(expected.get(agent)), agent);
        }
        // By hand, from the printed intervals: meridian-pro-1.5 [39.2%, 56.7%] overlaps
        // northwind/albatross-large-2025-05 [36.4%, 54.2%], ...-thinking-2025-09 [26.7%, 43.3%]
        // and kestrel-coder-32b [25.0%, 40.8%]: all four rank 1; cobalt-xl [22.5%, 38.3%] lies
        // below meridian-pro-1.5 only (38.3% < 39.2%): rank 2; tern-mini [10.8%, 23.3%] below
        // those four: rank 5; wren-nano-2024-06 [4.2%, 13.3%] below the eight down to
        // kestrel-coder-7b [17.4%, 32.2%]: rank 9, shared with petrel and lumen-open-8b-instruct.
        const rank = new Map(rows.map(([r, agent]) => [agent, r]));
        assert.deepEqual(
          [
            "meridian-pro-1.5",
            "northwind/albatross-large-thinking-2025-09",
            "cobalt-xl",
            "tern-mini",
            "wren-nano-2024-06",
            "petrel",
          ].map((agent) => rank.get(agent)),
          ["1", "1", "2", "5", "9", "9"],
        );
        // Ranks never decrease down the table; withheld agents come last; within a rank, by the
        // score over planned tasks (meridian-pro-1.5 47.5% before northwind's 44.2%).
        const ranked = rows.filter(([r]) => r !== "-").map(([r]) => Number(r));
        assert.deepEqual(ranked, [...ranked].sort((x, y) => x - y));
        assert.deepEqual(rows.slice(0, 2).map((row) => row[1]), [
          "meridian-pro-1.5",
          "northwind/albatross-large-2025-05",
        ]);
        assert.deepEqual(rows.slice(-2).map((row) => [row[0], row[1], row.at(-1)]), [
          ["-", "orca-13b-2025-02", "withheld (missing)"],
          ["-", "heron-8b-2024-10", "withheld (invalid)"],
        ]);
      },
    );

    await t.step(
      "the CLI's order and ranks are the report's leaderboard (summary.json)",
      async () => {
        const out = `${dir}/report`;
        const report = await cliInProcess("report", ledger, "--tasks", tasks, "--out", out);
        assert.equal(report.code, 0, report.stderr);
        const summary = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
        const board = summary.leaderboard.map((p: { agent_id: string; rank: number | null }) => [
          p.rank === null ? "-" : String(p.rank),
          p.agent_id,
        ]);
        const text = await run("summarize", ledger, "--tasks", tasks, "--width", "400");
        assert.deepEqual(
          tableRows(text, /^rank {2}agent +episodes/).map((row) => row.slice(0, 2)),
          board,
        );
        const compare = await run("compare", ledger, "--tasks", tasks, "--width", "400");
        assert.deepEqual(
          tableRows(compare, /^rank {2}mark {2}agent +resolved/).map((row) => [row[0], row[2]]),
          board,
        );
      },
    );

    await t.step(
      "every table that prints a rate marks the withheld agents, last and unranked",
      async () => {
        const cases: [string, RegExp][] = [
          ["summarize", /^rank {2}agent +episodes/],
          ["compare", /^rank {2}mark {2}agent +resolved/],
          ["censoring", /^rank {2}agent +scored/],
          ["coverage", /^rank {2}agent +n +resolved +claim/],
        ];
        for (const [command, header] of cases) {
          const text = await run(command, ledger, "--tasks", tasks, "--width", "400");
          // compare's side table has the matrix's mark between rank and agent
          const at = command === "compare" ? 2 : 1;
          const rows = tableRows(text, header).filter((row) => !row.includes("(all)"));
          assert.equal(rows.length, 14, command);
          for (const row of rows.slice(-2)) {
            assert.equal(row[0], "-", `${command}: ${row[at]} unranked`);
            assert.equal(row.at(-1), WITHHELD.get(row[at]), `${command}: ${row[at]} marked`);
          }
          for (const row of rows.slice(0, -2)) {
            assert.match(row[0], /^\d+$/, `${command}: ${row[at]} ranked`);
            assert.ok(!row.at(-1)!.startsWith("withheld"), `${command}: ${row[at]}`);
          }
        }
      },
    );

    await t.step(
      "compare: what may not be stated comes first, the matrix, and no 'wins' for a withheld agent",
      async () => {
        const json = JSON.parse(await run("compare", ledger, "--tasks", tasks, "--json"));
        const withheld = json.withheld_pairs.reduce(
          (n: number, g: { pairs: number }) => n + g.pairs,
          0,
        );
        // 13 pairs with heron-8b-2024-10 (invalid first in cause order), 12 more with orca.
        assert.deepEqual(
          json.withheld_pairs.map((g: { cause: string; pairs: number }) => [g.cause, g.pairs]),
          [["invalid", 13], ["missing", 12]],
        );
        const text = await run("compare", ledger, "--tasks", tasks, "--width", "100");
        const stated = text.indexOf(`  ${91 - withheld} of 91 pairs may be stated\n`);
        const matrix = text.indexOf("Pairwise matrix (");
        assert.ok(stated > 0 && matrix > stated, "the stated pairs are named before the matrix");
        assert.ok(!text.includes("wins"), "no pair line by default at 91 pairs");
        // The matrix: a withheld agent's row and column hold only "x" (not stated) and ".".
        const rows = tableRows(text, /^rank {2}mark {2}agent +A {2}B/, matrix);
        assert.equal(rows.length, 14);
        const marks = rows.map((row) => row[1]);
        assert.deepEqual(marks, [..."ABCDEFGHIJKLMN"]);
        for (const [i, row] of rows.entries()) {
          const cells = row.slice(3);
          assert.equal(cells.length, 14);
          assert.equal(cells[i], ".");
          for (const [j, cell] of cells.entries()) {
            if (i === j) continue;
            if (i >= 12 || j >= 12) assert.equal(cell, "x", `${row[2]} vs ${marks[j]}`);
            else assert.match(cell, /^[A-L=-]$/, `${row[2]} vs ${marks[j]}`);
          }
        }
        // meridian-pro-1.5 (A) beats cobalt-xl (E): 38.3% < 39.2%, and the matrix says so both ways
        assert.equal(rows[0][3 + 4], "A");
        assert.equal(rows[4][3 + 0], "A");
        // With --pairs: one explanation per stated pair, never one naming a withheld agent.
        const pairs = await run("compare", ledger, "--tasks", tasks, "--pairs", "--width", "100");
        const wins = pairs.split("\n").filter((line) => line.includes("wins"));
        assert.ok(wins.length > 0);
        for (const line of wins) {
          assert.ok(!/orca|heron/.test(line), line);
        }
        const verdicts = pairs.split("\n").filter((line) => line.startsWith("  verdict:"));
        assert.equal(verdicts.length, 91 - withheld);
      },
    );

    await t.step(
      "rates as percentages in every text output, full precision in --json",
      async () => {
        for (const command of commands) {
          const text = await run(command, ledger, "--tasks", tasks);
          assert.ok(!/\b0\.\d{4}\b/.test(text), `${command}: ${/\b0\.\d{4}\b/.exec(text)?.[0]}`);
        }
        const summary = await run("summarize", ledger, "--tasks", tasks);
        assert.match(
          summary,
          /^ +1 {2}meridian-pro-1\.5 +57\/120 +47\.5% +\[39\.2%, 56\.7%\] +headline$/m,
        );
        const json = JSON.parse(await run("summarize", ledger, "--tasks", tasks, "--json"));
        const pro = json.agents.find((a: { agent_id: string }) =>
          a.agent_id === "meridian-pro-1.5"
        );
        assert.equal(pro.resolved_rate, 0.475); // 57 / 120
      },
    );

    await t.step("shortened ids keep their real tail and are listed in full once", async () => {
      const text = await run("summarize", ledger, "--tasks", tasks, "--width", "80");
      const rows = tableRows(text, /^rank {2}agent +rate/);
      const thinking = rows.find((row) => row[1].endsWith("-2025-09"))![1];
      assert.ok(thinking.includes("…") && thinking.startsWith("northwin"), thinking);
      // the key under the table: the short form beside the full id
      assert.match(
        text,
        new RegExp(`^  ${thinking} +northwind/albatross-large-thinking-2025-09$`, "m"),
      );
      const keyLines = text.split("\n").filter((line) =>
        line.startsWith(`  ${thinking} `) &&
        line.endsWith("northwind/albatross-large-thinking-2025-09")
      );
      assert.equal(keyLines.length, 1, "listed once");
    });

    await t.step("--json is the same at any width, and --width is checked", async () => {
      for (const command of commands) {
        const plain = await run(command, ledger, "--tasks", tasks, "--json");
        const narrow = await run(command, ledger, "--tasks", tasks, "--json", "--width", "80");
        assert.equal(narrow, plain, command);
      }
      const bad = await cliInProcess("summarize", ledger, "--tasks", tasks, "--width", "12");
      assert.equal(bad.code, 1);
      assert.ok(
        bad.stderr.startsWith(
          'error: Option "--width" must be a whole number of at least 40: "12"',
        ),
        bad.stderr,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CLI tables of the shipped examples fit 80 and 100 columns", async () => {
  const runs: string[][] = [
    ["summarize", "ledgers/examples/sample_ledger.jsonl"],
    ["compare", "ledgers/examples/sample_ledger.jsonl", "--paired"],
    [
      "summarize",
      "ledgers/examples/synthetic_ledger.jsonl",
      "--errata",
      "ledgers/examples/synthetic_errata.jsonl",
      "--plan",
      "ledgers/examples/synthetic_plan.json",
      "--price-table",
      "ledgers/examples/price_table.json",
    ],
    ["compare", "ledgers/examples/synthetic_ledger.jsonl", "--paired", "--pairs"],
    [
      "censoring",
      "ledgers/examples/synthetic_ledger.jsonl",
      "--plan",
      "ledgers/examples/synthetic_plan.json",
    ],
    [
      "coverage",
      "ledgers/examples/synthetic_ledger.jsonl",
      "--plan",
      "ledgers/examples/synthetic_plan.json",
    ],
    [
      "sprt",
      "ledgers/examples/synthetic_ledger.jsonl",
      "--agent",
      "agent-alpha",
      "--plan",
      "ledgers/examples/synthetic_plan.json",
    ],
    ["summarize", "ledgers/demo/ledger.jsonl"],
    ["compare", "ledgers/demo/ledger.jsonl"],
  ];
  for (const args of runs) {
    for (const width of [80, 100]) {
      const text = await run(...args, "--width", String(width));
      assertFits(text, width, `${args.join(" ")} --width ${width}`);
    }
  }
});
