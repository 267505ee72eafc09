import assert from "node:assert/strict";
import { episode } from "../analysis/_ledger_for_test.ts";
import { episodeTablePage, PAGE_SIZE } from "./episode_table_page.ts";
import { parseFilter } from "./episode_filter.ts";
import { handLedger } from "./_ledger_for_test.ts";

/** 10,000 rows (the SWE-Bench Pro table has 9,729): 14 agents, no token counts on agent 0. */
function bigLedger() {
  const rows = [];
  for (let i = 0; i < 10_000; i++) {
    const agent = `agent-${i % 14}`;
    const extra = i % 14 === 0
      ? { prompt_tokens: null, completion_tokens: null, wall_ms: null }
      : {};
    rows.push({
      row: episode(agent, `task-${Math.floor(i / 14)}`, i % 3 === 0, extra),
      line: i + 1,
    });
  }
  return handLedger(rows, "big.jsonl");
}

const rowsOf = (html: string) => html.match(/<tr data-line="\d+">/g) ?? [];

Deno.test("episodeTablePage() shows 100 of 10,000 rows a page, and the last page's remainder", () => {
  const ledger = bigLedger();
  const first = episodeTablePage(ledger, { filter: {}, page: 1 });
  assert.equal(rowsOf(first).length, PAGE_SIZE);
  assert.ok(first.includes("Page 1 of 100"));
  assert.ok(first.includes('<span id="match-count">10,000</span> match'));
  // A page past the end is the last one.
  const last = episodeTablePage(ledger, { filter: {}, page: 1e6 });
  assert.ok(last.includes("Page 100 of 100"));
  assert.equal(rowsOf(last).length, 100);
  assert.ok(!last.includes('rel="next"'));
});

Deno.test("episodeTablePage() filters by agent and outcome, and keeps the filters in the page links", () => {
  const ledger = bigLedger();
  const html = episodeTablePage(ledger, {
    filter: parseFilter(new URLSearchParams("agent=agent-0&outcome=resolved")),
    page: 1,
  });
  // agent-0 holds rows 0, 14, 28, ...; resolved when the index is a multiple of 3 too: of 42.
  const expected = Array.from({ length: 10_000 }, (_, i) => i).filter((i) => i % 42 === 0).length;
  assert.ok(html.includes(`<span id="match-count">${expected}</span> match`));
  assert.ok(html.includes('href="./?agent=agent-0&amp;outcome=resolved&amp;page=2"'));
  // No tokens recorded: "not recorded", never 0.
  assert.ok(html.includes('<td class="num">not recorded</td>'));
  assert.ok(!/<td class="num">0<\/td>/.test(html));
  assert.ok(html.includes('<option value="agent-0" selected>'));
});

Deno.test("episodeTablePage() shortens a long id keeping its tail, the whole id in the title, escaped", () => {
  const id = `${"x".repeat(60)}-<b>task-17</b>`;
  const html = episodeTablePage(handLedger([{ row: episode("a", id, true) }]), {
    filter: {},
    page: 1,
  });
  assert.ok(html.includes(`title="${"x".repeat(60)}-&lt;b&gt;task-17&lt;/b&gt;"`));
  assert.ok(html.includes("…"));
  assert.ok(html.includes("-&lt;b&gt;task-17&lt;/b&gt;</span>"));
  assert.ok(!html.includes("<b>task"));
});
