/**
 * What the export round-trip tests (`inspect_round_trip_test.ts`,
 * `harbor_round_trip_test.ts`) share: the CLI run in process, a ledger's
 * rows, the counts a round trip must keep, and the task list `import`
 * wrote.
 *
 * @module
 */
import { main } from "../cli/main.ts";
import { Episode } from "../analysis/schema/records.ts";

/** Runs the CLI in process and captures what it printed. */
export async function run(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  return { code, stdout, stderr };
}

/** A ledger row. */
export type Row = ReturnType<typeof Episode.parse>;

/** A ledger's rows, each parsed by the schema. */
export async function readRows(ledger: string): Promise<Row[]> {
  const text = await Deno.readTextFile(ledger);
  return text.split("\n").filter((line) => line !== "").map((line) =>
    Episode.parse(JSON.parse(line))
  );
}

/** Per agent: rows, resolved, invalid, distinct tasks, summed tokens, rows without tokens. */
export function counts(rows: readonly Row[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const agent of [...new Set(rows.map((r) => r.agent_id))].sort()) {
    const own = rows.filter((r) => r.agent_id === agent);
    out[agent] = [
      own.length,
      own.filter((r) => r.resolved === true).length,
      own.filter((r) => r.status === "invalid").length,
      new Set(own.map((r) => r.task_id)).size,
      own.reduce((sum, r) => sum + (r.prompt_tokens ?? 0), 0),
      own.reduce((sum, r) => sum + (r.completion_tokens ?? 0), 0),
      own.filter((r) => r.prompt_tokens === null).length,
    ];
  }
  return out;
}

/** The planned tasks and attempts of the task list `import` wrote beside a ledger. */
export async function taskList(ledger: string): Promise<[number, number]> {
  const list = JSON.parse(await Deno.readTextFile(ledger.replace(/\.jsonl$/, ".tasks.json")));
  return [list.tasks.length, list.attempts_per_task];
}
