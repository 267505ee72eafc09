/**
 * One wording, one number (seed 003's two scores; analysis/score_words.ts):
 * on the public SWE-Bench Pro results (nine agents over 730 instances, seven
 * lacking some), every place that prints an agent's score over planned
 * tasks, its resolved rate over scored episodes or its score over completed
 * tasks only (report.md, report.html, the figures, `summarize`, `compare`
 * and `censoring`) prints the same number for it, the number computed here
 * from the fixture; and no output uses the retired words that named two
 * quantities ("over all tasks").
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { cliInProcess } from "./_cli_run.ts";
import { importSweBenchProLedger, sweBenchProResults } from "./_swe_bench_pro_ledger.ts";
import { SCORE_WORDS } from "../analysis/score_words.ts";

type Quantity = keyof typeof SCORE_WORDS;

/** `num / den` as a percentage with one decimal, rounded half up in integers (no float). */
function percentOf(num: number, den: number): string {
  const tenths = Math.floor((2000 * num + den) / (2 * den));
  return `${Math.floor(tenths / 10)}.${tenths % 10}%`;
}

/** The words that named two quantities, and the abbreviations they gave way to. */
const RETIRED = [
  "over all tasks",
  "all planned tasks",
  "over scored rows",
  "score (all)",
  "scores over all",
  "over completed only",
];

/** The CLI tables' column headers, abbreviated to fit a terminal, and their quantity. */
const CLI_HEADERS: Record<string, Quantity> = {
  "score over planned": "planned",
  "over scored": "scored",
  rate: "scored",
  "over completed": "completed",
};

/** What the outputs say, per quantity and agent: every value printed. */
type Said = Record<Quantity, Map<string, Set<string>>>;

function said(): Said {
  return { planned: new Map(), scored: new Map(), completed: new Map() };
}

function note(out: Said, quantity: Quantity, agent: string, value: string): void {
  out[quantity].set(agent, (out[quantity].get(agent) ?? new Set()).add(value));
}

const PERCENT = /(\d+\.\d)%/;

/**
 * Prose: each wording followed by a number, credited to the agent named last
 * before it on the same line (an agent's claim, note or tooltip names it first).
 */
function readProse(text: string, agents: readonly string[], out: Said, where: string): void {
  const names = [...agents].sort((a, b) => b.length - a.length).map((a) => a.replace(/\./g, "\\."));
  const agentPattern = new RegExp(names.join("|"), "g");
  for (const line of text.split("\n")) {
    for (const quantity of Object.keys(SCORE_WORDS) as Quantity[]) {
      const wording = new RegExp(`${SCORE_WORDS[quantity]} (\\d+\\.\\d%)`, "g");
      for (const match of line.matchAll(wording)) {
        const before = [...line.slice(0, match.index).matchAll(agentPattern)];
        ok(before.length > 0, `${where}: "${match[0]}" names no agent before it: ${line}`);
        note(out, quantity, before.at(-1)![0], match[1]);
      }
    }
  }
}

/** A table of `| a | b |` rows (Markdown, or HTML turned into it): the wordings' columns. */
function readPipeTables(text: string, out: Said): void {
  let header: string[] | null = null;
  for (const line of text.split("\n")) {
    if (!line.startsWith("|")) {
      header = null;
      continue;
    }
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    if (header === null) {
      header = cells;
      continue;
    }
    if (cells.every((c) => /^-*$/.test(c))) continue;
    const agent = cells[header.indexOf("agent")]?.replaceAll("\\", "");
    header.forEach((h, i) => {
      const quantity = (Object.keys(SCORE_WORDS) as Quantity[]).find((q) =>
        h.startsWith(SCORE_WORDS[q])
      );
      const value = cells[i]?.match(PERCENT);
      if (quantity !== undefined && agent !== undefined && value) {
        note(out, quantity, agent, `${value[1]}%`);
      }
    });
  }
}

/** The CLI's text tables: a header line, a line of dashes giving the columns. */
function readCliTables(text: string, agents: readonly string[], out: Said): void {
  const lines = text.split("\n");
  for (let i = 1; i < lines.length; i++) {
    if (!/^-+( +-+)+$/.test(lines[i])) continue;
    const spans = [...lines[i].matchAll(/-+/g)].map((m) => [m.index!, m.index! + m[0].length]);
    const cell = (line: string, [from, to]: number[]) => line.slice(from, to).trim();
    const header = spans.map((span) => cell(lines[i - 1], span));
    const agentColumn = header.indexOf("agent");
    if (agentColumn < 0) continue;
    for (let j = i + 1; j < lines.length && lines[j].trim() !== ""; j++) {
      const agent = cell(lines[j], spans[agentColumn]);
      if (!agents.includes(agent)) continue;
      header.forEach((h, k) => {
        const value = cell(lines[j], spans[k]).match(PERCENT);
        if (h in CLI_HEADERS && value) note(out, CLI_HEADERS[h], agent, `${value[1]}%`);
      });
    }
  }
}

/** report.html as lines of text: tables as `| a | b |` rows, the figures' tooltips apart. */
function htmlText(html: string): { text: string; tooltips: string } {
  const decode = (s: string) =>
    s.replace(/&#xA;/g, "\n").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(
      /&quot;/g,
      '"',
    ).replace(/&#39;/g, "'").replace(/&amp;/g, "&");
  // One tooltip a line (its own line breaks become spaces): each names its agent first.
  const tooltips = [...html.matchAll(/aria-label="([^"]*)"/g)]
    .map((m) => decode(m[1]).replaceAll("\n", " ")).join("\n");
  const text = html.replace(/<svg[\s\S]*?<\/svg>/g, "")
    .replace(/<tr>/g, "\n").replace(/<\/tr>/g, " |\n").replace(/<t[dh][^>]*>/g, "| ")
    .replace(/<\/(p|li|h\d|caption|figcaption|div)>|<br>/g, "\n")
    .replace(/<[^>]+>/g, "");
  return { text: decode(text), tooltips };
}

Deno.test("one wording, one number per agent on the public SWE-Bench Pro results", async () => {
  const dir = await Deno.makeTempDir({ prefix: "score_words_" });
  try {
    const { ledger, tasks } = await importSweBenchProLedger(dir);
    const { ids, agents } = sweBenchProResults();
    const names = Object.keys(agents);
    // Each agent's resolved and scored counts, straight from the fixture.
    const expected = said();
    for (const [agent, verdicts] of Object.entries(agents)) {
      const resolved = [...verdicts].filter((v) => v === "1").length;
      const scored = [...verdicts].filter((v) => v !== "-").length;
      note(expected, "planned", agent, percentOf(resolved, ids.length));
      note(expected, "scored", agent, percentOf(resolved, scored));
      note(expected, "completed", agent, percentOf(resolved, scored)); // nothing censored
    }
    // Claude Sonnet 4 (paper): 166 resolved, 663 scored of 730 planned.
    deepEqual(expected.planned.get("claude-sonnet-4-paper"), new Set(["22.7%"]));
    deepEqual(expected.scored.get("claude-sonnet-4-paper"), new Set(["25.0%"]));
    // GPT-5: 265 of 729 scored, 730 planned (the figure once said 36.4% "over all tasks").
    deepEqual(expected.planned.get("gpt-5-250-turns-10132025"), new Set(["36.3%"]));
    deepEqual(expected.scored.get("gpt-5-250-turns-10132025"), new Set(["36.4%"]));

    const out = `${dir}/report`;
    const report = await cliInProcess("report", ledger, "--tasks", tasks, "--out", out);
    equal(report.code, 0, report.stderr);
    const markdown = await Deno.readTextFile(`${out}/report.md`);
    const { text: html, tooltips } = htmlText(await Deno.readTextFile(`${out}/report.html`));
    const documents: Record<string, string> = { "report.md": markdown, "report.html": html };
    for (const entry of Deno.readDirSync(`${out}/figures`)) {
      if (!entry.name.endsWith(".svg")) continue;
      documents[entry.name] = htmlText(await Deno.readTextFile(`${out}/figures/${entry.name}`))
        .tooltips;
    }
    documents["report.html figures"] = tooltips;
    const commands: Record<string, string> = {};
    for (const command of ["summarize", "compare", "censoring"]) {
      // Wide enough that no line wraps: a claim and the agent it names stay on one line.
      const result = await cliInProcess(command, ledger, "--tasks", tasks, "--width", "1000");
      equal(result.code, 0, result.stderr);
      commands[command] = result.stdout;
    }
    const found = said();
    const seen: Record<string, Said> = {};
    for (const [where, text] of Object.entries({ ...documents, ...commands })) {
      for (const retired of RETIRED) {
        ok(!text.includes(retired), `${where} says "${retired}"`);
      }
      seen[where] = said();
      readProse(text, names, seen[where], where);
      readPipeTables(text, seen[where]);
      readCliTables(text, names, seen[where]);
      for (const quantity of Object.keys(SCORE_WORDS) as Quantity[]) {
        for (const [agent, values] of seen[where][quantity]) {
          for (const value of values) note(found, quantity, agent, value);
        }
      }
    }
    for (const quantity of Object.keys(SCORE_WORDS) as Quantity[]) {
      for (const [agent, values] of found[quantity]) {
        deepEqual(values, expected[quantity].get(agent), `${SCORE_WORDS[quantity]}: ${agent}`);
      }
    }
    // Each place states the quantities it should: the leaderboard both scores for every
    // agent, the figure a labelled agent's score over planned tasks, the commands theirs.
    for (const where of ["report.md", "report.html"]) {
      equal(seen[where].planned.size, names.length, where);
      equal(seen[where].scored.size, names.length, where);
    }
    deepEqual([...seen["stop_reasons.svg"].planned.keys()].sort(), [
      "claude-opus-4-1-paper",
      "claude-sonnet-4-paper",
    ]);
    equal(seen["stop_reasons.svg"].scored.size, 5, "the five headline agents");
    equal(seen["summarize"].planned.size, names.length);
    equal(seen["summarize"].scored.size, names.length);
    equal(seen["compare"].scored.size, names.length);
    equal(seen["censoring"].scored.size, names.length);
    equal(seen["censoring"].completed.size, names.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
