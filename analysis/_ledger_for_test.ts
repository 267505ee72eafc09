/**
 * Rows and a ledger held in memory, as the inputs layer reads one, for tests that
 * build their rows by hand: one row per line, from line 1, unchained, no
 * problems, the file's SHA-256 all zeros.
 *
 * @module
 */
import type { LedgerWithLines } from "./schema/ledger_file.ts";
import { Episode } from "./schema/records.ts";

/**
 * The rows as a read ledger.
 *
 * @param rows the rows, in ledger order
 * @param file the file name the ledger is said to come from
 * @returns the ledger with each row on its own line
 */
export function inMemoryLedger(rows: Episode[], file = "mem.jsonl"): LedgerWithLines {
  return {
    file,
    sha256: "0".repeat(64),
    lines: rows.length,
    valid_rows: rows.length,
    chained: false,
    problems: [],
    rows,
    row_lines: rows.map((_, i) => i + 1),
  };
}

/**
 * One row of `agent` at `task`: 1,000 prompt and 500 completion tokens, 3
 * tool calls, 10 s; `resolved` null with `extra` making it invalid.
 *
 * @param agent the agent
 * @param task the task
 * @param resolved the verdict
 * @param extra fields to set or override
 * @returns the parsed row
 */
export function episode(
  agent: string,
  task: string,
  resolved: boolean | null,
  extra: Record<string, unknown> = {},
): Episode {
  return Episode.parse({
    run_id: "r",
    agent_id: agent,
    task_id: task,
    seed: 1,
    resolved,
    prompt_tokens: 1000,
    completion_tokens: 500,
    tool_calls: 3,
    wall_ms: 10_000,
    price_table_id: "p",
    ...extra,
  });
}
