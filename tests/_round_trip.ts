/**
 * What the export round-trip tests (`inspect_round_trip_test.ts`,
 * `harbor_round_trip_test.ts`) share: the CLI run in process, a ledger's
 * rows, the counts a round trip must keep, the task list `import`
 * wrote, a runner ledger to export, and the bad input every format refuses.
 *
 * @module
 */
import assert from "node:assert/strict";
import { cliInProcess as run } from "./_cli_run.ts";
import { Episode } from "../analysis/schema/records.ts";
import { canonicalJsonLine } from "../analysis/canonical_json.ts";
import { storeEpisodeLog } from "../runner/episode_log_store.ts";
import { toolConversation } from "../viewer/_call_body_for_test.ts";

/** The example ledgers every export round-trips, each with its errata and plan. */
export const EXAMPLE_LEDGERS = [
  ["ledgers/demo/ledger.jsonl", "ledgers/demo/errata.jsonl", "ledgers/demo/plan.json"],
  [
    "ledgers/examples/synthetic_ledger.jsonl",
    "ledgers/examples/synthetic_errata.jsonl",
    "ledgers/examples/synthetic_plan.json",
  ],
] as const;

/** Runs the CLI in process and captures what it printed (`cliInProcess`). */
export { run };

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

/**
 * A runner ledger in `dir` (`ledger.jsonl`, its store `artifacts/`): one
 * row with stored model calls (a user turn, one `sh` tool call and its
 * result, a reply), one with tokens not recorded, one invalid.
 */
export async function runnerLedger(dir: string): Promise<string> {
  const stored = await storeEpisodeLog(`${dir}/artifacts`, {
    episode_id: "r1/a/t1/1",
    stdoutTail: "",
    stderrTail: "",
    records: [],
    bodies: toolConversation({
      user: "Fix the bug in <main.py>",
      tool: "sh",
      arguments: '{"cmd":"ls"}',
      result: "main.py",
      reply: "Fixed.",
    }),
  });
  const base = { run_id: "r1", agent_id: "a", seed: 7, tool_calls: 1, price_table_id: "local-0" };
  const rows = [
    {
      ...base,
      task_id: "t1",
      resolved: true,
      prompt_tokens: 120,
      completion_tokens: 30,
      wall_ms: 1500,
      started_at: "2026-09-01T10:00:00.000Z",
      finished_at: "2026-09-01T10:00:02.000Z",
      episode_log_digest: stored.digest,
    },
    {
      ...base,
      task_id: "t2",
      resolved: false,
      prompt_tokens: null,
      completion_tokens: null,
      wall_ms: null,
    },
    {
      ...base,
      task_id: "t3",
      resolved: null,
      status: "invalid",
      invalid_reason: "harness_error",
      prompt_tokens: 10,
      completion_tokens: 5,
      wall_ms: 1500,
      notes: "the container did not start",
    },
  ];
  const ledger = `${dir}/ledger.jsonl`;
  await Deno.writeTextFile(
    ledger,
    rows.map((r) => canonicalJsonLine(Episode.parse(r)) + "\n").join(""),
  );
  return ledger;
}

/**
 * Checks what `export <format>` does with bad input, in `dir`: a malformed
 * ledger line is one `error:` line naming it, exit 2, and nothing written;
 * `--out` naming a file is exit 2 and leaves the file as it was; no `--out`
 * is a usage error, exit 1.
 */
export async function refusesBadInput(format: string, dir: string): Promise<void> {
  const bad = `${dir}/bad.jsonl`;
  await Deno.writeTextFile(bad, '{"run_id": "r", "agent_id": \n');
  const notJson = await run("export", format, bad, "--out", `${dir}/out`);
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, new RegExp(`^error: ${bad}:1: [^\\n]*\\n$`));
  assert.equal(notJson.stdout, "");
  // nothing half-written: the folder was never made
  await assert.rejects(() => Deno.stat(`${dir}/out`));
  const file = `${dir}/taken`;
  await Deno.writeTextFile(file, "");
  const taken = await run("export", format, "ledgers/demo/ledger.jsonl", "--out", file);
  assert.equal(taken.code, 2);
  assert.equal(taken.stderr, `error: Option "--out": "${file}" exists and is not a directory\n`);
  assert.equal(await Deno.readTextFile(file), "");
  const missing = await run("export", format, "ledgers/demo/ledger.jsonl");
  assert.equal(missing.code, 1);
  assert.ok(missing.stderr.startsWith('error: Missing option: "--out"\n'));
}
