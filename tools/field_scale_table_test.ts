import { deepEqual, equal } from "node:assert/strict";
import { FIELD_SCALE_AGENTS, fieldScaleTable } from "./field_scale_table.ts";

Deno.test("fieldScaleTable() is deterministic and carries 14 agents, missing tasks and errors", () => {
  const csv = fieldScaleTable(120);
  equal(csv, fieldScaleTable(120));
  const rows = csv.trimEnd().split("\n").slice(1).map((line) => line.split(","));
  const byAgent = new Map<string, string[][]>();
  for (const row of rows) byAgent.set(row[0], [...(byAgent.get(row[0]) ?? []), row]);
  deepEqual([...byAgent.keys()], FIELD_SCALE_AGENTS.map((agent) => agent.model));
  // Counted independently of the generator's own bookkeeping (the seeded stream fixes them).
  equal(rows.length, 1644);
  equal(byAgent.get("orca-13b-2025-02")!.length, 89);
  equal(byAgent.get("kestrel-coder-7b")!.length, 115);
  equal(byAgent.get("heron-8b-2024-10")!.filter((row) => row[2] === "error").length, 21);
  equal(new Set(rows.map((row) => row[1])).size, 120);
});
