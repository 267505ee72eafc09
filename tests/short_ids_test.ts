/**
 * Shortened ids stay apart (`distinctShortIds`) on the 730 instance ids of
 * the public SWE-Bench Pro results (tests/fixtures/import/swebench_pro):
 * shortened one by one (`displayId`), 354 of them take a form another id
 * also takes; shortened together, in a list, a CLI table column, the
 * episode browser's table and a figure's agents, every form is distinct and
 * still starts with the id's real head and ends with its real tail.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { displayId, distinctShortIds } from "../analysis/untrusted_text.ts";
import { fitTable, TableContext } from "../cli/_table_layout.ts";
import { episodeTablePage } from "../viewer/episode_table_page.ts";
import { handLedger } from "../viewer/_ledger_for_test.ts";
import { episode } from "../analysis/_ledger_for_test.ts";
import { censoringSummary } from "../analysis/censoring.ts";
import { stopReasonsPlot } from "../analysis/figures/stop_reasons_plot.ts";
import { sweBenchProResults } from "./_swe_bench_pro_ledger.ts";

const { ids, agents } = sweBenchProResults();

/** Whether `shown` is `id`, or a real head of it, `…` and at least 8 characters of its real tail. */
function isHeadAndTail(shown: string, id: string): boolean {
  if (shown === id) return true;
  const cut = shown.indexOf("…");
  const head = shown.slice(0, cut);
  const tail = shown.slice(cut + 1);
  return cut > 0 && id.startsWith(head) && id.endsWith(tail) && tail.length >= 8;
}

/** Checks that `forms[k]` shows `shownIds[k]`, distinct for distinct ids. */
function assertApart(shownIds: readonly string[], forms: readonly string[], where: string): void {
  equal(forms.length, shownIds.length, where);
  const byForm = new Map<string, string>();
  shownIds.forEach((id, k) => {
    ok(isHeadAndTail(forms[k], id), `${where}: "${forms[k]}" for "${id}"`);
    const other = byForm.get(forms[k]);
    ok(other === undefined || other === id, `${where}: "${forms[k]}" for "${id}" and "${other}"`);
    byForm.set(forms[k], id);
  });
}

Deno.test("displayId() alone merges 354 of the 730 SWE-Bench Pro ids, one form for 25", () => {
  const owners = new Map<string, number>();
  for (const id of ids) owners.set(displayId(id), (owners.get(displayId(id)) ?? 0) + 1);
  equal(ids.length, 730);
  equal(ids.filter((id) => owners.get(displayId(id))! > 1).length, 354);
  equal(Math.max(...owners.values()), 25);
});

Deno.test("distinctShortIds() tells the 730 SWE-Bench Pro ids apart, head and tail real", () => {
  for (const length of [48, 30, 20]) {
    assertApart(ids, distinctShortIds(ids, length), `length ${length}`);
  }
  // The teleport ids displayId merges keep their head up to the commit hash.
  const merged = new Map<string, string[]>();
  for (const id of ids) merged.set(displayId(id), [...merged.get(displayId(id)) ?? [], id]);
  const teleport = [...merged.values()].filter((group) => group.length > 1).flat()
    .filter((id) => id.startsWith("instance_gravitational__teleport-"));
  ok(teleport.length > 0);
  for (const form of distinctShortIds(teleport)) {
    ok(form.startsWith("instance_gravitational__teleport-"), form);
  }
  // A repeated id gets its one form.
  deepEqual(distinctShortIds([...ids, ...ids]), [
    ...distinctShortIds(ids),
    ...distinctShortIds(ids),
  ]);
});

Deno.test("fitTable(): a column of the 730 SWE-Bench Pro ids stays apart at every width", () => {
  for (const width of [100, 60]) {
    const text = fitTable(
      new TableContext(width),
      [{ header: "task", id: true, key: true }, { header: "n", align: "right" }],
      ids.map((id, k) => [id, String(k)]),
    );
    const lines = text.split("\n").slice(2, 2 + ids.length);
    const forms = lines.map((line) => line.replace(/ +\d+$/, ""));
    assertApart(ids, forms, `width ${width}`);
  }
});

Deno.test("episodeTablePage(): no two tasks or episodes of a page look alike (SWE-Bench Pro)", () => {
  // The rows in the order `import table` writes them: agent by agent, task by task.
  const rows = Object.entries(agents).flatMap(([agent, verdicts]) =>
    ids.flatMap((id, k) =>
      verdicts[k] === "-" ? [] : [{
        ...episode(agent, id, verdicts[k] === "1"),
        episode_id: `imported/${agent}/${id}/1`,
      }]
    )
  ).map((row, k) => ({ row, line: k + 1 }));
  const ledger = handLedger(rows, "ledger.jsonl");
  const span = /<span class="id" title="([^"]*)">([^<]*)<\/span>/g;
  for (const page of [1, 2]) {
    const html = episodeTablePage(ledger, { filter: {}, page });
    const cells = [...html.matchAll(/<tr data-line="\d+">([\s\S]*?)<\/tr>/g)].map((m) =>
      [...m[1].matchAll(span)].map((s) => ({ id: s[1], shown: s[2] }))
    );
    equal(cells.length, 100);
    for (const [column, name] of [[0, "episode"], [2, "task"]] as const) {
      assertApart(
        cells.map((c) => c[column].id),
        cells.map((c) => c[column].shown),
        `page ${page}, ${name}`,
      );
    }
  }
});

Deno.test("a figure names agents whose ids displayId would merge apart (stop reasons)", () => {
  // Twelve agents named after teleport instances displayId merges (one environment hash).
  const merged = new Map<string, string[]>();
  for (const id of ids) merged.set(displayId(id), [...merged.get(displayId(id)) ?? [], id]);
  const group = [...merged.values()].find((g) =>
    g.length >= 12 && g[0].startsWith("instance_gravitational__teleport-")
  )!;
  const names = group.slice(0, 12);
  equal(new Set(names.map(displayId)).size, 1);
  const spec = stopReasonsPlot(censoringSummary(names.map((agent) => episode(agent, "t1", true))));
  type Note = { agent: string; agent_id: string; end?: number };
  const notes = (spec as unknown as { layer: { data: { values: Note[] } }[] })
    .layer.flatMap((l) => l.data.values).filter((v) => Object.hasOwn(v, "end"));
  equal(notes.length, 12);
  assertApart(
    notes.map((n) => n.agent_id), // the tooltip's id, whole
    notes.map((n) => n.agent.replace(/ \(1 scored\)$/, "")),
    "stop reasons",
  );
});
