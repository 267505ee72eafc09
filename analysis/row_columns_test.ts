import { deepEqual, equal, ok, strictEqual, throws } from "node:assert/strict";
import { INTERN_LIMIT, RowColumns } from "./row_columns.ts";
import { episodeTable, keptRows, replacedRows } from "./episode_table.ts";
import { loadLedger, loadLedgerTable } from "../inputs/ledger.ts";

const here = (path: string) => new URL(path, import.meta.url).pathname;

/** Each row as JSON text: equal text means the same keys, in the same order, with the same values. */
const texts = (rows: Iterable<object>) => [...rows].map((row) => JSON.stringify(row));

Deno.test("RowColumns rebuilds every row of the shipped ledgers exactly, less the chain link", async () => {
  for (
    const path of [
      "../ledgers/examples/sample_ledger.jsonl",
      "../ledgers/examples/synthetic_ledger.jsonl",
      "../ledgers/examples/imported/ledger.jsonl",
      "../ledgers/demo/ledger.jsonl",
      "../ledgers/demo/judge/ledger.jsonl",
    ]
  ) {
    const objects = await loadLedger(here(path));
    const table = await loadLedgerTable(here(path));
    equal(table.rows.length, objects.rows.length, path);
    deepEqual([...table.row_lines], [...objects.row_lines], path);
    const expected = objects.rows.map(({ prev_sha256: _, ...row }) => row);
    deepEqual(texts(table.rows), texts(expected), path);
    // Random access gives the same rows as a pass.
    deepEqual(texts([table.rows.row(objects.rows.length - 1)]), texts(expected.slice(-1)), path);
  }
});

Deno.test("RowColumns keeps absent keys absent and each row's key order", () => {
  const table = new RowColumns<Record<string, unknown>>();
  const rows = [
    { a: 1, b: "x" },
    { b: "x", a: 1 },
    { a: null },
    {},
    { a: 2, c: { nested: [1, { deep: true }] }, b: "y" },
  ];
  for (const row of rows) table.push(row);
  deepEqual(texts(table), texts(rows));
  ok(!("b" in table.row(2)));
});

Deno.test("RowColumns keeps each kind of value: integers, floats, -0, strings, booleans, null", () => {
  const table = new RowColumns<{ v: unknown }>();
  const values = [1, -7, 2 ** 31 - 1, "s", true, false, null, 0.5, -0, 2 ** 40, 1e-300, "", [], {}];
  for (const v of values) table.push({ v });
  const back = [...table].map((row) => row.v);
  deepEqual(back, values);
  ok(Object.is(back[8], -0), "-0 stays -0 once the column holds floats");
  // Integers written before the column turned to floats read back the same.
  strictEqual(back[2], 2 ** 31 - 1);
});

Deno.test("RowColumns reads numbers written before a column's first other value, past a chunk", () => {
  const table = new RowColumns<{ n: number | null }>();
  const count = 70_000;
  for (let i = 0; i < count; i++) table.push({ n: i });
  table.push({ n: null });
  table.push({ n: 7 });
  for (const i of [0, 63, 64, 65_535, 65_536, count - 1]) equal(table.row(i).n, i);
  equal(table.row(count).n, null);
  equal(table.row(count + 1).n, 7);
});

Deno.test("RowColumns widens its numbers from 8 to 16 to 32 bits to float64, each read back", () => {
  const table = new RowColumns<{ n: number }>();
  const values = [
    0,
    127,
    -128,
    128,
    -32_768,
    32_767,
    32_768,
    -(2 ** 31),
    2 ** 31 - 1,
    2 ** 31,
    0.1,
  ];
  for (const n of values) table.push({ n });
  deepEqual([...table].map((row) => row.n), values);
  // Narrow integers first, then one that is not: the earlier rows keep their values.
  const late = new RowColumns<{ n: number }>();
  for (let i = 0; i < 70_000; i++) late.push({ n: i % 100 });
  late.push({ n: -0 });
  ok(Object.is(late.row(70_000).n, -0));
  for (const i of [0, 99, 65_535, 65_536, 69_999]) equal(late.row(i).n, i % 100);
});

Deno.test("RowColumns keeps a value every row holds alone, and every row once a second one comes", () => {
  // The same JSON value: objects by their text, numbers by Object.is (so -0 is not 0).
  const same = (x: unknown, y: unknown) =>
    typeof x === "object" && x !== null ? JSON.stringify(x) === JSON.stringify(y) : Object.is(x, y);
  const count = 70_000;
  const pairs: [unknown, unknown][] = [
    [1, 2],
    [0, -0],
    [-0, 0],
    ["run", "other"],
    [null, false],
    [{ cap: 1 }, { cap: 2 }],
    [{ cap: 1 }, 1],
  ];
  for (const [first, second] of pairs) {
    // Past a chunk of the one value, then the second: every earlier row still reads the first.
    const table = new RowColumns<{ v: unknown; k?: number }>();
    for (let i = 0; i < count; i++) table.push(i % 3 === 0 ? { v: first, k: i } : { v: first });
    ok(same(table.row(count - 1).v, first));
    table.push({ v: second });
    for (const i of [0, 1, 65_535, 65_536, count - 1]) {
      ok(same(table.row(i).v, first), `${JSON.stringify(first)} at ${i}`);
    }
    ok(same(table.row(count).v, second), `${JSON.stringify(second)} last`);
    // A key some rows lack stays absent from them.
    deepEqual([Object.keys(table.row(3)), Object.keys(table.row(4))], [["v", "k"], ["v"]]);
    equal(table.row(3).k, 3);
  }
});

Deno.test("RowColumns widens its ids past 255 and 65,535 distinct values and keeps the rest as they are", () => {
  const table = new RowColumns<{ id: string; n: number }>();
  const count = INTERN_LIMIT + 300;
  for (let i = 0; i < count; i++) table.push({ id: `id-${i}`, n: i });
  equal(table.length, count);
  for (const i of [0, 255, 256, 65_535, INTERN_LIMIT, count - 1]) {
    deepEqual(table.row(i), { id: `id-${i}`, n: i });
  }
});

Deno.test("RowColumns past its intern limit: values repeated often enough are interned again, all read back", () => {
  // 100,000 ids attempted five times, one id after another: past 65,536 distinct values the
  // rest of the first pass is kept as it is, and once each id has been seen four times on
  // average the new ones are interned again.
  const table = new RowColumns<{ task: string }>();
  const tasks = 100_000;
  for (let pass = 0; pass < 5; pass++) {
    for (let t = 0; t < tasks; t++) table.push({ task: `task-${t}` });
  }
  for (const row of [0, 65_535, 65_536, 99_999, 100_000, 170_000, 270_000, 499_999]) {
    equal(table.row(row).task, `task-${row % tasks}`);
  }
});

Deno.test("RowColumns shares and freezes an interned object, so no row can change another", () => {
  const table = new RowColumns<{ caps: { cap: number | null } }>();
  table.push({ caps: { cap: null } });
  table.push({ caps: { cap: null } });
  const [first, second] = [...table];
  strictEqual(first.caps, second.caps);
  ok(Object.isFrozen(first.caps));
  throws(() => {
    (first.caps as { cap: number | null }).cap = 3;
  }, TypeError);
  equal(table.row(1).caps.cap, null);
});

Deno.test("RowColumns derives a field whose value equals its derivation, and keeps one that does not", () => {
  const table = new RowColumns<{ a: string; b: string; id: string }>({
    derived: { id: (row) => `${row.a}/${row.b}` },
  });
  table.push({ a: "x", b: "y", id: "x/y" });
  table.push({ a: "x", b: "z", id: "named" });
  deepEqual([...table], [{ a: "x", b: "y", id: "x/y" }, { a: "x", b: "z", id: "named" }]);
});

Deno.test("RowColumns leaves out the omitted fields", () => {
  const table = new RowColumns<{ a: number; link?: string }>({ omit: ["link"] });
  table.push({ a: 1, link: "f".repeat(64) });
  table.push({ a: 2 });
  deepEqual([...table], [{ a: 1 }, { a: 2 }]);
});

Deno.test("RowColumns.row() refuses an index outside the table", () => {
  const table = new RowColumns<{ a: number }>();
  table.push({ a: 1 });
  throws(() => table.row(1), { name: "RangeError", message: "Row 1 is outside a table of 1 rows" });
  throws(() => table.row(-1), RangeError);
  throws(() => table.row(0.5), RangeError);
});

Deno.test("replacedRows() and keptRows() read the table's rows as corrected and as kept", async () => {
  const { rows } = await loadLedgerTable(here("../ledgers/examples/sample_ledger.jsonl"));
  const first = rows.row(0);
  const corrected = replacedRows(rows, new Map([[0, { ...first, notes: "corrected" }]]));
  equal(corrected.length, rows.length);
  equal([...corrected][0].notes, "corrected");
  equal([...corrected][1].episode_id, rows.row(1).episode_id);
  const agent = first.agent_id;
  const mine = [...rows].filter((row) => row.agent_id === agent).length;
  const kept = keptRows(rows, (row) => row.agent_id === agent, mine);
  equal(kept.length, mine);
  deepEqual([...kept].map((row) => row.agent_id), new Array(mine).fill(agent));
  // A table of its own rows again gives the same rows.
  deepEqual(texts(episodeTable(rows)), texts(rows));
});
