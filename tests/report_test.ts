/**
 * Integration tests of `ledgerbench report` and `ledgerbench verify-report`,
 * run as real subprocesses from a scratch directory holding copies of the
 * shipped example inputs (so tampering never touches the repository).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createHash } from "node:crypto";
import { episode, inMemoryLedger } from "../analysis/_ledger_for_test.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { buildReport } from "../report/build_report.ts";
import { loadReportInputs } from "../report/load_report_inputs.ts";
import { FIGURE_MAX_WIDTH } from "../report/_document.ts";
import { renderSvg } from "../report/render_figure.ts";
import { claimLabel } from "../report/standing_words.ts";
import { importFieldScaleLedger } from "./_field_scale_ledger.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const EXAMPLES = `${ROOT}ledgers/examples`;
const INPUTS = [
  "synthetic_ledger.jsonl",
  "synthetic_plan.json",
  "synthetic_errata.jsonl",
  "price_table.json",
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with the `ledgerbench` task's permissions, from `cwd`. */
async function ledgerbench(cwd: string, ...args: string[]): Promise<Run> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-sys",
      "--allow-ffi",
      "--allow-env",
      "--config",
      `${ROOT}deno.json`,
      `${ROOT}cli/main.ts`,
      ...args,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Every file under `dir`, relative, sorted. */
async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/${prefix}`)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) out.push(...await listFiles(dir, `${path}/`));
    else out.push(path);
  }
  return out.sort();
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const REPORT_ARGS = [
  "report",
  "inputs/synthetic_ledger.jsonl",
  "--plan",
  "inputs/synthetic_plan.json",
  "--errata",
  "inputs/synthetic_errata.jsonl",
  "--price-table",
  "inputs/price_table.json",
];

Deno.test("ledgerbench report is byte-identical across runs and verify-report catches tampering", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "ledgerbench_report_" });
  try {
    await Deno.mkdir(`${work}/inputs`);
    for (const name of INPUTS) await Deno.copyFile(`${EXAMPLES}/${name}`, `${work}/inputs/${name}`);

    await t.step("two runs write the same files, byte for byte", async () => {
      const first = await ledgerbench(work, ...REPORT_ARGS, "--out", "one");
      equal(first.code, 0, first.stderr);
      equal(first.stderr, "");
      match(first.stdout, /^Wrote one: summary\.json, report\.md, report\.html and 7 figures/);
      const second = await ledgerbench(work, ...REPORT_ARGS, "--out", "two");
      equal(second.code, 0, second.stderr);
      const files = await listFiles(`${work}/one`);
      deepEqual(await listFiles(`${work}/two`), files);
      for (const file of files) {
        const a = await Deno.readFile(`${work}/one/${file}`);
        const b = await Deno.readFile(`${work}/two/${file}`);
        equal(sha256(a), sha256(b), `${file} differs between runs`);
      }
      // The directory holds exactly what summary.json lists, and it records the paths as given.
      const summary = JSON.parse(await Deno.readTextFile(`${work}/one/summary.json`));
      deepEqual(
        files,
        [
          ...summary.figures.flatMap((f: { svg: string; png: string }) => [f.svg, f.png]),
          "report.html",
          "report.md",
          "summary.json",
        ].sort(),
      );
      equal(summary.inputs.ledger.path, "inputs/synthetic_ledger.jsonl");
      equal(
        summary.inputs.ledger.sha256,
        sha256(await Deno.readFile(`${work}/inputs/synthetic_ledger.jsonl`)),
      );
      const text = [
        await Deno.readTextFile(`${work}/one/report.md`),
        await Deno.readTextFile(`${work}/one/report.html`),
        await Deno.readTextFile(`${work}/one/summary.json`),
      ].join("");
      ok(!text.includes(work), "no absolute path of the run in the outputs");
    });

    await t.step("an untouched report verifies with exit status 0", async () => {
      const run = await ledgerbench(work, "verify-report", "one");
      equal(run.code, 0, run.stdout + run.stderr);
      match(run.stdout, /ledger: inputs\/synthetic_ledger\.jsonl \(SHA-256 matches\)/);
      match(run.stdout, /OK: one matches its inputs: 17 files identical/);
      // From elsewhere, --base resolves the recorded relative paths.
      const elsewhere = await ledgerbench(ROOT, "verify-report", `${work}/one`, "--base", work);
      equal(elsewhere.code, 0, elsewhere.stdout + elsewhere.stderr);
    });

    await t.step(
      "a tampered summary (one number changed) is caught with exit status 1",
      async () => {
        const path = `${work}/two/summary.json`;
        const text = await Deno.readTextFile(path);
        // The first "tokens" member is agents[0].tokens (canonical JSON sorts keys).
        const found = /"tokens": (\d+)/.exec(text)!;
        const tampered = text.replace(found[0], `"tokens": ${Number(found[1]) + 1}`);
        await Deno.writeTextFile(path, tampered);
        // And a figure file the report does not write.
        await Deno.writeTextFile(`${work}/two/figures/extra.svg`, "<svg/>");
        const run = await ledgerbench(work, "verify-report", "two");
        equal(run.code, 1, run.stdout + run.stderr);
        ok(
          run.stdout.includes(
            `summary.json $.agents[0].tokens: summary.json holds ${
              Number(found[1]) + 1
            }, recomputed ${found[1]}`,
          ),
          run.stdout,
        );
        match(run.stdout, /summary\.json: bytes differ from line \d+/);
        match(run.stdout, /figures\/extra\.svg: not a file this report writes/);
        match(run.stdout, /MISMATCH: two: 3 differences/);
        match(run.stdout, /ledger: inputs\/synthetic_ledger\.jsonl \(SHA-256 matches\)/);
        match(run.stderr, /^error: Report "two" does not match its inputs/);
      },
    );

    await t.step("a tampered ledger (one byte changed) is caught with exit status 1", async () => {
      const path = `${work}/inputs/synthetic_ledger.jsonl`;
      const original = await Deno.readFile(path);
      const recorded = sha256(original);
      const lines = new TextDecoder().decode(original).split("\n");
      // One digit of the last row's wall_ms: the hash chain covers earlier lines only, so the
      // ledger still reads and the report is recomputed from the changed numbers.
      const last = lines.length - 2;
      lines[last] = lines[last].replace(
        /"wall_ms":(\d*)(\d)/,
        (_, head, digit) => `"wall_ms":${head}${(Number(digit) + 1) % 10}`,
      );
      const changed = new TextEncoder().encode(lines.join("\n"));
      equal(changed.length, original.length, "one byte changed, same length");
      await Deno.writeFile(path, changed);
      // --width 400: the difference pinned on one line
      const run = await ledgerbench(work, "verify-report", "one", "--width", "400");
      equal(run.code, 1, run.stdout + run.stderr);
      match(run.stdout, /ledger: inputs\/synthetic_ledger\.jsonl \(SHA-256 DIFFERS\)/);
      ok(
        run.stdout.includes(
          `inputs/synthetic_ledger.jsonl $.inputs.ledger.sha256: the ledger has changed: ` +
            `summary.json records SHA-256 ${recorded}, the file has ${sha256(changed)}`,
        ),
        run.stdout,
      );
      // The recomputed numbers differ too: the agent's wall seconds.
      match(run.stdout, /summary\.json \$\.agents\[\d\]\.wall_seconds: summary\.json holds/);
      match(run.stdout, /report\.md: bytes differ from line \d+/);

      // A byte changed earlier breaks the hash chain: the ledger no longer reads, and both the
      // changed hash and the read error are reported.
      const early = new Uint8Array(original);
      const at = new TextDecoder().decode(original).indexOf('"wall_ms":') + 10;
      early[at] = early[at] === 0x31 ? 0x32 : 0x31;
      await Deno.writeFile(path, early);
      const broken = await ledgerbench(work, "verify-report", "one", "--width", "400");
      equal(broken.code, 1, broken.stdout + broken.stderr);
      match(broken.stdout, /\$\.inputs\.ledger\.sha256: the ledger has changed/);
      match(
        broken.stdout,
        /cannot recompute the report: inputs\/synthetic_ledger\.jsonl:2: field "prev_sha256"/,
      );
      await Deno.writeFile(path, original);
    });

    await t.step("usage errors exit 1 with help on stderr; a missing ledger exits 2", async () => {
      const noOut = await ledgerbench(work, "report", "inputs/synthetic_ledger.jsonl");
      equal(noOut.code, 1);
      match(noOut.stderr, /^error: Missing option: "--out"\n\nWrite the replayable report/);
      const missing = await ledgerbench(work, "report", "inputs/nope.jsonl", "--out", "x");
      equal(missing.code, 2);
      match(missing.stderr, /^error: inputs\/nope\.jsonl: /);
      const noSummary = await ledgerbench(work, "verify-report", "inputs");
      equal(noSummary.code, 2);
      match(noSummary.stderr, /^error: inputs\/summary\.json: /);
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

// ------------------------------------------------------------------ field scale (issue 25)

/**
 * The smallest text of an SVG as report.html shows it, in CSS px: each
 * `font-size` in user units, times the SVG's pixels per user unit (its
 * `width` over its viewBox width), times the page's scaling (an SVG wider
 * than the main column, `FIGURE_MAX_WIDTH`, is shrunk to it by
 * `max-width: 100%`).
 */
function smallestTextPx(svg: string): number {
  const root = svg.match(/<svg[^>]*>/)![0];
  const width = Number(root.match(/\swidth="([\d.]+)"/)![1]);
  const viewBox = root.match(/\sviewBox="([^"]+)"/)![1].trim().split(/\s+/).map(Number);
  const perUnit = width / viewBox[2];
  const page = Math.min(1, FIGURE_MAX_WIDTH / width);
  const sizes = [...svg.matchAll(/font-size="([\d.]+)(?:px)?"/g)].map((m) => Number(m[1]));
  ok(sizes.length > 0, "the SVG has text");
  return Math.min(...sizes) * perUnit * page;
}

/** The rows of the Markdown table that follows `heading` (cells unescaped). */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`${heading}\n`);
  ok(start >= 0, heading);
  const lines = markdown.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("| "));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("| ")) break;
    rows.push(line.slice(2, -2).split(" | ").map((cell) => cell.replaceAll("\\", "")));
  }
  return rows;
}

/** GitHub's anchor of a Markdown heading (lower case, punctuation but `-` dropped, spaces to `-`). */
function githubSlug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

Deno.test("the report at 14 agents: the task list beside the ledger, a leaderboard, a matrix, a capped list, readable figures (issue 25)", async () => {
  const work = await Deno.makeTempDir({ prefix: "ledgerbench_field_" });
  try {
    const field = await importFieldScaleLedger(work, 120);
    // No --tasks: the task list import wrote beside the ledger is the denominator, and said so.
    const run = await ledgerbench(work, "report", "ledger.jsonl", "--out", "out");
    equal(run.code, 0, run.stderr);
    ok(run.stdout.includes("task list: ledger.tasks.json (found beside the ledger)"), run.stdout);
    const summary = JSON.parse(await Deno.readTextFile(`${work}/out/summary.json`));
    equal(summary.inputs.task_list.path, "ledger.tasks.json");
    equal(summary.inputs.task_list_source, "beside_ledger");
    equal(summary.inputs.task_list.sha256, sha256(await Deno.readFile(field.tasks)));
    const md = await Deno.readTextFile(`${work}/out/report.md`);
    const html = await Deno.readTextFile(`${work}/out/report.html`);
    // The reproduce command names the list, so copying it gives this report.
    ok(
      md.includes(
        "deno task ledgerbench report ledger.jsonl --tasks ledger.tasks.json --out DIR",
      ),
      md,
    );
    const verified = await ledgerbench(work, "verify-report", "out");
    equal(verified.code, 0, verified.stdout + verified.stderr);

    // The claims and the denominators are summarize's (it finds the same task list).
    const summarize = await ledgerbench(work, "summarize", "ledger.jsonl", "--json");
    equal(summarize.code, 0, summarize.stderr);
    const cli = JSON.parse(summarize.stdout);
    equal(cli.task_list.path, "ledger.tasks.json");
    deepEqual(summary.standings, cli.standings);
    // Every command that takes --tasks finds it too, and says so.
    for (const command of ["summarize", "compare", "censoring"]) {
      const shown = await ledgerbench(work, command, "ledger.jsonl", "--width", "200");
      equal(shown.code, 0, shown.stderr);
      match(
        shown.stdout,
        /^task list: ledger\.tasks\.json \(sha256 [0-9a-f]{64}\) \(found beside the ledger\)$/m,
      );
    }
    deepEqual(
      summary.coverage.map((c: Record<string, unknown>) => [c.agent_id, c.resolved, c.planned]),
      cli.coverage.map((c: Record<string, unknown>) => [c.agent_id, c.resolved, c.planned]),
    );

    // The leaderboard, checked against the intervals by hand: rank = 1 + the stated agents
    // whose interval lies wholly above (no tokens or times recorded: no tie-break decides).
    const board = tableAfter(md, "### Leaderboard");
    equal(board.length, 14);
    const standings = new Map<string, { withheld: string | null; claim: string }>(
      cli.standings.map((s: { agent_id: string }) => [s.agent_id, s]),
    );
    const interval = new Map<string, { lower: number; upper: number }>(
      summary.intervals.map((i: { agent_id: string; rule: { lower: number; upper: number } }) => [
        i.agent_id,
        i.rule,
      ]),
    );
    const stated = [...standings].filter(([, s]) => s.withheld === null).map(([id]) => id);
    const coverage = new Map<string, { resolved: number; planned: number; missing: number }>(
      cli.coverage.map((c: { agent_id: string }) => [c.agent_id, c]),
    );
    for (const row of board) {
      const [rank, agent, claim, planned, scored] = row;
      const s = standings.get(agent)!;
      // The claim column is summarize's claim label.
      equal(claim, claimLabel(s as Parameters<typeof claimLabel>[0]), agent);
      if (s.withheld !== null) {
        equal(rank, "–", agent);
        equal(planned, "not stated");
        continue;
      }
      const mine = interval.get(agent)!;
      const above = stated.filter((other) => interval.get(other)!.lower > mine.upper).length;
      equal(rank, String(1 + above), agent);
      const c = coverage.get(agent)!;
      ok(planned.endsWith(`(${c.resolved} of ${c.planned})`), `${agent}: ${planned}`);
      const a = cli.agents.find((x: { agent_id: string }) => x.agent_id === agent);
      ok(scored.endsWith(`(${a.interval.resolved} of ${a.interval.scored})`), scored);
    }
    // No agent recorded tokens or times: no such columns, one sentence instead.
    ok(text(md).includes("Tokens and seconds per resolved: not recorded for any agent"), "n/r");
    // Withheld agents last; the three causes of the table are there.
    deepEqual(board.slice(-2).map((r) => r[2]).sort(), [
      "withheld (invalid)",
      "withheld (missing)",
    ]);
    ok(board.some((r) => r[2] === "both scores, labelled"), "kestrel-coder-7b is labelled");
    // Sorted within a rank by the score over planned tasks.
    const ranked = board.filter((r) => !r[0].startsWith("–"));
    for (let i = 1; i < ranked.length; i++) {
      ok(Number(ranked[i - 1][0]) <= Number(ranked[i][0]), "ranks ascend");
    }

    // The matrix: agents in leaderboard order; a cell is ▲ / ▼ exactly when the intervals are
    // separated, = when they overlap, · when either agent is withheld.
    const matrix = tableAfter(md, "### Pairwise verdicts (seed 001)");
    deepEqual(matrix.map((r) => r[1]), board.map((r) => r[1]));
    for (const [i, row] of matrix.entries()) {
      for (const [j, column] of matrix.entries()) {
        const cell = row[2 + j];
        const [a, b] = [row[1], column[1]];
        if (i === j) equal(cell, "");
        else if (!stated.includes(a) || !stated.includes(b)) equal(cell, "·");
        else {
          const [x, y] = [interval.get(a)!, interval.get(b)!];
          equal(cell, x.lower > y.upper ? "▲" : y.lower > x.upper ? "▼" : "=", `${a} vs ${b}`);
        }
      }
    }

    // A table of contents whose every link names a heading, in both files.
    const toc = [...md.matchAll(/^ *- \[([^\]]+)\]\(#([^)]+)\)$/gm)];
    ok(toc.length >= 12, `${toc.length} entries`);
    const headings = [...md.matchAll(/^#{2,3} (.+)$/gm)].map((m) => githubSlug(m[1]));
    for (const [, text, anchor] of toc) {
      ok(headings.includes(anchor), `${text} -> #${anchor}`);
      ok(html.includes(`id="${anchor}"`), `report.html has #${anchor}`);
      ok(html.includes(`href="#${anchor}"`), `report.html links #${anchor}`);
    }

    // The failed-episode list: 5 per agent at most, the rest counted; imported rows name their
    // source instead of a show command that could only print the row.
    const failed = summary.episodes_to_inspect.length;
    const listed = tableAfter(md, "| episode | outcome | stop reason | log | open with |");
    ok(listed.length <= 5 * 14 && listed.length > 0, `${listed.length} listed of ${failed}`);
    ok(
      md.includes(`${failed.toLocaleString("en-US")} episodes failed or were invalid`),
      "the count",
    );
    ok(/\| 5 \(and \d+ more\) \|/.test(md), "and K more");
    equal(md.includes("ledgerbench show imported/"), false);
    ok(
      listed.every((r) => r[4].startsWith(`imported from \`${field.table}\`, line `)),
      listed[0][4],
    );

    // "allows headline" is never said alone beside an agent the report withholds (issue 25 item 3).
    for (const [agent, s] of standings) {
      if (s.withheld === null) continue;
      const lines = text(md).split("\n").filter((l) =>
        l.startsWith(`- "${agent}"`) && l.includes('allows "headline"')
      );
      ok(lines.length >= 2, `${agent}: ${lines.length} lines`);
      for (const line of lines) {
        ok(line.includes(`its claim over every rate: withheld (${s.withheld})`), line);
      }
    }
    // Absent data is said as absent: these agents resolved tasks but recorded no tokens.
    for (const text of [md, html]) equal(text.includes("nothing resolved"), false);
    equal(text(md).includes("Frontier: ."), false);
    ok(md.includes("No figure of tokens and seconds per resolved"), "no empty efficiency figure");
    ok(md.includes("No cost figure:"), "no empty cost figure");
    equal(summary.figures.map((f: { name: string }) => f.name).join(), "forest,stop_reasons");

    // Every figure readable at the page's widest: text at least 10 CSS px, never scaled below.
    for (const figure of summary.figures) {
      const svg = await Deno.readTextFile(`${work}/out/${figure.svg}`);
      const px = smallestTextPx(svg);
      ok(px >= 10, `${figure.name}: smallest text ${px.toFixed(1)} px`);
    }
    // Before: 87 KB of Markdown per 120 instances would be 0.5 MB at 730 (2.0 MB measured).
    const { size } = await Deno.stat(`${work}/out/report.md`);
    ok(size < 100_000, `report.md is ${size} bytes`);

    // --tasks none declines the list beside the ledger, and the reproduce command says so.
    const declined = await ledgerbench(
      work,
      "report",
      "ledger.jsonl",
      "--tasks",
      "none",
      "--out",
      "declined",
    );
    equal(declined.code, 0, declined.stderr);
    const without = JSON.parse(await Deno.readTextFile(`${work}/declined/summary.json`));
    equal(without.inputs.task_list, null);
    equal(without.inputs.task_list_source, "declined");
    ok(
      (await Deno.readTextFile(`${work}/declined/report.md`)).includes(
        "deno task ledgerbench report ledger.jsonl --tasks none --out DIR",
      ),
    );
    const reverified = await ledgerbench(work, "verify-report", "declined");
    equal(reverified.code, 0, reverified.stdout + reverified.stderr);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

/** Markdown with its backslash escapes removed. */
function text(markdown: string): string {
  return markdown.replaceAll("\\", "");
}

Deno.test("every figure of a 20-agent report keeps its text at 10 px or more in report.html", async () => {
  // 20 agents, rates 4% to 80%, tokens and times recorded so
  // that every per-agent figure is drawn.
  const rows = Array.from({ length: 20 }, (_, a) => {
    // Ids longer than displayId keeps (48 characters): the widest labels a figure can get.
    const agent = `vendor-${
      String(a).padStart(2, "0")
    }/model-large-thinking-2025-09-instruct-preview`;
    return Array.from({ length: 50 }, (_, t) =>
      episode(agent, `task-${t}`, t < 2 + 2 * a, {
        prompt_tokens: 1000 + 37 * a,
        wall_ms: 10_000 + 500 * a,
        ...(t === 49 && a % 3 === 0 ? { stop_reason: "token_cap", resolved: false } : {}),
      }));
  }).flat();
  const report = buildReport({ ledger: inMemoryLedger(rows) });
  equal(report.summary.leaderboard.length, 20);
  // Every per-agent figure is drawn in leaderboard order.
  const order = report.summary.leaderboard.map((p) => p.agent_id);
  ok(order[0].startsWith("vendor-19/") && order[19].startsWith("vendor-00/"), order.join());
  deepEqual(report.figures.map((f) => f.name), [
    "forest",
    "efficiency",
    "stop_reasons",
    "cost_frontier",
  ]);
  for (const figure of report.figures) {
    const px = smallestTextPx(await renderSvg(figure.spec));
    ok(px >= 10, `${figure.name}: smallest text ${px.toFixed(1)} px`);
    // Tooltips on every figure, naming each agent in full.
    ok(canonicalJson(figure.spec).includes('"tooltip"'), `${figure.name} has tooltips`);
  }
});

Deno.test("every figure of the shipped example's report keeps its text at 10 px or more", async () => {
  const report = buildReport(
    await loadReportInputs({
      ledger: `${EXAMPLES}/synthetic_ledger.jsonl`,
      plan: `${EXAMPLES}/synthetic_plan.json`,
      errata: `${EXAMPLES}/synthetic_errata.jsonl`,
      priceTable: `${EXAMPLES}/price_table.json`,
    }),
    { calibrationTrials: 200 },
  );
  ok(report.figures.length >= 6, report.figures.map((f) => f.name).join());
  for (const figure of report.figures) {
    const px = smallestTextPx(await renderSvg(figure.spec));
    ok(px >= 10, `${figure.name}: smallest text ${px.toFixed(1)} px`);
  }
  // Withheld agents (gamma: censoring, delta: invalid) are listed last on the leaderboard.
  deepEqual(report.summary.leaderboard.map((p) => [p.agent_id, p.rank, p.unranked]), [
    ["agent-beta", 1, null],
    ["agent-alpha", 2, null],
    ["agent-gamma", null, "withheld"],
    ["agent-delta", null, "withheld"],
  ]);
});
