import { deepEqual, equal } from "node:assert/strict";
import { RowLines } from "./row_lines.ts";

Deno.test("RowLines reads back every row's line, in order and out of order", () => {
  // Rows on consecutive lines, a blank line, bad lines in a row, a bad first line.
  const lines = [2, 3, 4, 6, 9, 10, 11, 12, 14];
  const rows = new RowLines();
  for (const line of lines) rows.push(line);
  equal(rows.length, lines.length);
  deepEqual([...rows], lines);
  for (const i of [8, 0, 4, 3, 7, 1, 5]) equal(rows.at(i), lines[i], `row ${i}`);
  deepEqual([rows.at(-1), rows.at(9), rows.at(1.5)], [undefined, undefined, undefined]);
  equal(new RowLines().at(0), undefined);
});

Deno.test("RowLines of a clean million-row file reads back every line in order", () => {
  const rows = new RowLines();
  for (let line = 1; line <= 1_000_000; line++) rows.push(line);
  equal(rows.at(999_999), 1_000_000);
  let at = 0;
  for (const line of rows) if (line !== ++at) throw new Error(`row ${at - 1}: ${line}`);
  equal(at, 1_000_000);
});
