import assert from "node:assert/strict";
import { Episode } from "../analysis/schema/records.ts";
import { generateSyntheticLedger } from "../tools/synthetic_ledger.ts";
import { type EpisodeFilter, matchesFilter } from "./episode_filter.ts";
import { episodeTablePage, PAGE_SIZE } from "./episode_table_page.ts";
import { handLedger } from "./_ledger_for_test.ts";

/** 50,000 generated rows over 20 agents (2,500 tasks, some rows invalid and rerun). */
const ROWS = [...generateSyntheticLedger({ rows: 50_000, agents: 20, seed: 11 })].map((line) =>
  Episode.parse(JSON.parse(line))
);
const LEDGER = handLedger(ROWS.map((row) => ({ row })), "generated.jsonl");

/** The rows a filter keeps, row by row over every row. */
const naive = (filter: EpisodeFilter) =>
  ROWS.flatMap((row, i) => matchesFilter(row, filter) ? [i] : []);

const invalidRow = ROWS.find((row) => row.invalid_reason !== null)!;
const stopped = ROWS.find((row) => row.stop_reason !== "completed")!;
const FILTERS: EpisodeFilter[] = [
  {},
  { agent: "agent-07" },
  { agent: "agent-07", outcome: "failed" },
  { outcome: "resolved" },
  { outcome: "invalid", invalid: invalidRow.invalid_reason! },
  { stop: stopped.stop_reason },
  { task: "T00001" },
  { task: "0000" },
  { task: "T0002499" },
  { agent: "agent-03", outcome: "failed", task: "T00001" },
  { agent: "agent-20", stop: stopped.stop_reason, task: "1" },
  { agent: "no-such-agent" },
  { task: "no such task" },
  { invalid: "no-such-reason", outcome: "invalid" },
];

Deno.test("EpisodeIndex.query() pages exactly the rows a row-by-row filter keeps (50,000 rows)", () => {
  for (const filter of FILTERS) {
    const expected = naive(filter);
    const pages = Math.max(1, Math.ceil(expected.length / PAGE_SIZE));
    for (const page of [1, 2, pages - 1, pages, pages + 5]) {
      if (page < 1) continue;
      const found = LEDGER.index.query(filter, page, PAGE_SIZE);
      const shown = Math.min(page, pages);
      const where = `${JSON.stringify(filter)} page ${page}`;
      assert.equal(found.total, expected.length, where);
      assert.equal(found.pages, pages, where);
      assert.equal(found.page, shown, where);
      assert.deepEqual(
        found.rows,
        expected.slice((shown - 1) * PAGE_SIZE, shown * PAGE_SIZE),
        where,
      );
    }
  }
  // Several filters matched more than a page, one none, the search several tasks.
  assert.ok(naive({ task: "T00001" }).length > PAGE_SIZE);
  assert.equal(naive({ task: "no such task" }).length, 0);
});

Deno.test("EpisodeIndex.tableRow() holds what the table shows of each row", () => {
  for (const i of [0, 1, 4_999, 25_000, 49_999]) {
    const { row, line, index } = LEDGER.index.tableRow(i);
    const full = ROWS[i];
    assert.deepEqual([index, line], [i, i + 1]);
    assert.deepEqual(row, {
      episode_id: full.episode_id,
      agent_id: full.agent_id,
      task_id: full.task_id,
      status: full.status,
      resolved: full.resolved,
      stop_reason: full.stop_reason,
      invalid_reason: full.invalid_reason,
      tokens: full.prompt_tokens! + full.completion_tokens!,
      wall_ms: full.wall_ms,
      model_calls: full.model_calls,
    });
  }
  const id = ROWS[123].episode_id;
  assert.equal(LEDGER.index.find(id), 123);
  assert.equal(LEDGER.index.find("nope"), -1);
  const onTask = [...LEDGER.index.taskRows(ROWS[123].task_id)];
  assert.deepEqual(
    onTask,
    naive({ task: ROWS[123].task_id }).filter((i) => ROWS[i].task_id === ROWS[123].task_id),
  );
});

Deno.test("the table's search box: a page of the matching rows, no list of every task", () => {
  const html = episodeTablePage(LEDGER, {
    filter: { task: "T00001", outcome: "resolved" },
    page: 2,
  });
  const expected = naive({ task: "T00001", outcome: "resolved" });
  const lines = [...html.matchAll(/<tr data-line="(\d+)">/g)].map((m) => Number(m[1]) - 1);
  assert.deepEqual(lines, expected.slice(PAGE_SIZE, 2 * PAGE_SIZE));
  assert.ok(html.includes('<input type="search" name="task" value="T00001"'));
  assert.ok(html.includes('href="./?task=T00001&amp;outcome=resolved&amp;page=3" rel="next"'));
  // The agents are a choice; no task is listed as one.
  assert.equal((html.match(/<option value="T\d+/g) ?? []).length, 0);
  assert.ok(html.includes('<option value="agent-20">'));
  assert.ok(new TextEncoder().encode(html).length < 200_000);
});
