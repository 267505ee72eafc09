/**
 * Helpers shared by the figure tests: reach into a spec's layers and data.
 * Private to `analysis/figures/` tests.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { loadLedger } from "../../inputs/ledger.ts";
import { Episode } from "../schema/records.ts";

/** A loosely typed view of any spec node. */
export type Node = Record<string, unknown>;

/** Every node of a spec (the spec itself, concatenated panels, layers), depth first. */
export function nodes(spec: TopLevelSpec | Node): Node[] {
  const out: Node[] = [];
  const visit = (node: Node) => {
    out.push(node);
    for (const key of ["hconcat", "vconcat", "concat", "layer"]) {
      const children = node[key];
      if (Array.isArray(children)) { for (const child of children) visit(child as Node); }
    }
  };
  visit(spec as unknown as Node);
  return out;
}

/** The inline data rows of every node whose rows have all of `fields`. */
export function rowsWith(spec: TopLevelSpec, ...fields: string[]): Node[][] {
  return nodes(spec)
    .map((node) => (node.data as { values?: Node[] } | undefined)?.values)
    .filter((values): values is Node[] =>
      Array.isArray(values) && values.length > 0 &&
      values.every((row) => fields.every((f) => Object.hasOwn(row, f)))
    );
}

/** The subtitle lines of a spec, joined with spaces (wrapping undone). */
export function subtitle(spec: TopLevelSpec): string {
  const title = (spec as unknown as Node).title as { subtitle?: string[] };
  return (title.subtitle ?? []).join(" ");
}

/** The rows of seed 001's sample ledger, as shipped. */
export async function sampleRows(): Promise<Episode[]> {
  const url = new URL("../../ledgers/examples/sample_ledger.jsonl", import.meta.url);
  return (await loadLedger(url.pathname)).rows;
}

/** A scored or invalid row with small defaults, for hand-built cases. */
export function row(fields: Partial<Record<string, unknown>>): Episode {
  return Episode.parse({
    run_id: "r",
    agent_id: "a",
    task_id: "t",
    seed: 1,
    resolved: true,
    prompt_tokens: 100,
    completion_tokens: 50,
    tool_calls: 1,
    wall_ms: 1000,
    price_table_id: "p",
    ...fields,
  });
}
