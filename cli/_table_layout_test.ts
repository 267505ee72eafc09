import { deepEqual, equal, ok, throws } from "node:assert/strict";
import {
  fitLines,
  fitPairs,
  fitTable,
  outputWidth,
  TableContext,
  WIDTH_HELP,
  widthHelpAt,
} from "./_table_layout.ts";
import { renderPairs } from "../report/format.ts";
import { displayId, fitId } from "../analysis/untrusted_text.ts";

const widest = (text: string) => Math.max(...text.split("\n").map((line) => [...line].length));

Deno.test("fitTable() prints a table that fits as renderTable would", () => {
  const text = fitTable(new TableContext(100), [
    { header: "rank", align: "right", key: true },
    { header: "agent", id: true, key: true },
    { header: "rate", align: "right" },
  ], [["1", "a", "40.0%"], ["-", "bb", "7.5%"]]);
  equal(text, "rank  agent   rate\n----  -----  -----\n   1  a      40.0%\n   -  bb      7.5%\n");
});

Deno.test("fitTable() moves uniform columns to a line, then a priority group to a second table", () => {
  const columns = [
    { header: "rank", align: "right" as const, key: true },
    { header: "agent", id: true, key: true },
    { header: "rate", align: "right" as const, priority: 0 },
    { header: "tokens", align: "right" as const, priority: 2 },
    { header: "TPR", align: "right" as const, priority: 2 },
    { header: "note", priority: 1 },
  ];
  const rows = [
    ["1", "agent-one", "40.0%", "1,000", "250.00", "x".repeat(15)],
    ["2", "agent-two", "20.0%", "2,000", "500.00", "x".repeat(15)],
  ];
  const text = fitTable(new TableContext(36), columns, rows);
  ok(widest(text) <= 36, text);
  // note is the same on every row: one line; tokens and TPR move together
  equal(
    text,
    "rank  agent       rate\n----  ---------  -----\n   1  agent-one  40.0%\n" +
      "   2  agent-two  20.0%\n" + `note: ${"x".repeat(15)} (every row)\n\n` +
      "rank  agent      tokens     TPR\n----  ---------  ------  ------\n" +
      "   1  agent-one   1,000  250.00\n   2  agent-two   2,000  500.00\n",
  );
});

Deno.test("fitTable() shortens ids by their head and real tail, distinct, and keys them once", () => {
  const context = new TableContext(48);
  const ids = ["northwind/albatross-large-2025-05", "northwind/albatross-large-thinking-2025-09"];
  const columns = [
    { header: "agent", id: true, key: true, keyed: true },
    { header: "95% interval", align: "right" as const, priority: 0 },
  ];
  const rows = ids.map((id) => [id, "[36.4%, 54.2%]"]);
  const first = fitTable(context, columns, rows);
  ok(widest(first) <= 48, first);
  const shown = first.split("\n").slice(2, 4).map((line) => line.split("  ")[0].trim());
  equal(new Set(shown).size, 2);
  for (const [i, id] of ids.entries()) {
    ok(shown[i].includes("…") && id.endsWith(shown[i].split("…")[1]), shown[i]);
    // the key: the short form, then the full id (folded to the next line when it does not fit)
    ok(first.replace(/\s+/g, " ").includes(` ${shown[i]} ${id} `), first);
  }
  // a second table at the same width shortens them alike and lists nothing again
  const second = fitTable(context, columns, rows);
  ok(!second.includes("in full"), second);
});

Deno.test("fitTable() never loops when the keys alone are too wide", () => {
  const text = fitTable(new TableContext(40), [
    { header: "agent", id: true, key: true },
    { header: "a", priority: 1 },
    { header: "b", priority: 1 },
  ], [["x".repeat(60), "y".repeat(30), "z".repeat(30)]]);
  ok(widest(text) <= 40, text);
  ok(text.includes("y".repeat(30).slice(0, 10)) && text.includes("z".repeat(10)), text);
});

Deno.test("fitLines() folds at a space, indents the rest, cuts an over-long word, keeps lines that fit", () => {
  equal(fitLines("aaa bbb ccc\n", 8), "aaa bbb\n  ccc\n");
  equal(fitLines("  note: one two three\n", 12), "  note: one\n    two\n    three\n");
  equal(fitLines(`${"d".repeat(12)}\n`, 8), "dddddddd\n  dddd\n");
  equal(fitLines("short\n\nlines\n", 8), "short\n\nlines\n");
});

Deno.test("fitId() keeps the head and the real tail; at 48 it is displayId", () => {
  const id = "instance_ansible__ansible-9785e22f7325bd872067bfffe5e750470ae6a702-v5bc0e59ed9ba9f0a";
  const shown = fitId(id, 30);
  equal([...shown].length, 30);
  ok(shown.startsWith("instance_") && id.endsWith(shown.split("…")[1]), shown);
  equal(fitId(id, 48), displayId(id));
  equal(fitId("short", 20), "short");
  equal(fitId("a\u202eb", 20), "a\\u202eb");
});

Deno.test("outputWidth() takes --width, refuses a narrow one", () => {
  equal(outputWidth({ width: "120" }), 120);
  throws(() => outputWidth({ width: "39" }), /at least 40/);
  throws(() => outputWidth({ width: "8O" }), /whole number/);
  deepEqual(typeof outputWidth({}), "number");
});

Deno.test("fitPairs() is renderPairs when it fits, and folds a value under itself", () => {
  const pairs: [string, string][] = [
    ["ledger", "ledgers/examples/synthetic_ledger.jsonl"],
    ["stop reasons", "completed 323, step_cap 7, token_cap 5, wall_cap 2, rate_limited 8"],
  ];
  equal(fitPairs(pairs, 200), renderPairs(pairs));
  // "stop reasons:" and two spaces: values start at column 15, continuations too; a path
  // longer than the room is cut, never moved off its key's line (it would not fit there either)
  equal(
    fitPairs(pairs, 50),
    "ledger:        ledgers/examples/synthetic_ledger.j\n" +
      "               sonl\n" +
      "stop reasons:  completed 323, step_cap 7,\n" +
      "               token_cap 5, wall_cap 2,\n" +
      "               rate_limited 8\n",
  );
  ok(widest(fitPairs(pairs, 40)) <= 40);
  // keys wider than half the width: continuations two spaces in
  equal(fitPairs([["a long key name", "x y"]], 20), "a long key name:  x\n  y\n");
  equal(fitPairs([], 80), "");
});

Deno.test("widthHelpAt() re-indents the --width help; at 22 it is WIDTH_HELP", () => {
  equal(widthHelpAt(22), WIDTH_HELP);
  const lines = widthHelpAt(19).split("\n");
  equal(lines.length, WIDTH_HELP.split("\n").length);
  ok(lines[0].startsWith("  --width N        Width of the text output"), lines[0]);
  ok(lines.slice(1).every((line) => /^ {19}\S/.test(line)), lines.join("\n"));
});
