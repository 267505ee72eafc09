import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { type Episode } from "./schema.ts";
import { lineSha256, scanLedger } from "./read_ledger.ts";
import { LedgerError } from "./ledger_error.ts";

const encoder = new TextEncoder();

/** A hash-chained ledger of `n` rows (prev_sha256 = SHA-256 of the previous line). */
function chained(n: number): string[] {
  const lines: string[] = [];
  let previous: string | null = null;
  for (let i = 0; i < n; i++) {
    const line = JSON.stringify({
      run_id: "r1",
      agent_id: `a${i % 3}`,
      task_id: `t${i}`,
      seed: i,
      resolved: i % 2 === 0,
      prompt_tokens: 100 + i,
      completion_tokens: 50,
      tool_calls: 1,
      wall_ms: 1000,
      price_table_id: "local-0",
      notes: "é".repeat(i % 7),
      prev_sha256: previous,
    });
    lines.push(line);
    previous = lineSha256(encoder.encode(line));
  }
  return lines;
}

/** The bytes of `text` in chunks of `size` (so that lines straddle chunks). */
async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = encoder.encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

async function scan(text: string, size: number, from: number, lenient = true) {
  const rows: [number, Episode][] = [];
  const result = await scanLedger({ chunks: chunked(text, size), file: "x.jsonl" }, (row, line) => {
    rows.push([line, row]);
  }, { lenient, offThreadHashingFrom: from });
  return { result, rows };
}

Deno.test("scanLedger() with worker hashing equals inline hashing on a tampered chain", async () => {
  const lines = chained(400);
  // tampering (no final newline): line 120's bytes change, line 250 is not JSON,
  // line 300's prev_sha256 is another valid digest
  lines[119] = lines[119].replace('"seed":119', '"seed":1190');
  lines[249] = "{not json";
  lines[299] = lines[299].replace(
    /"prev_sha256":"[0-9a-f]{64}"/,
    `"prev_sha256":"${"0".repeat(64)}"`,
  );
  const text = lines.join("\n");
  const inline = await scan(text, 97, Infinity);
  // the expected problems, by hand: 121 follows the changed line 120; 250 is malformed and
  // 251 follows its changed bytes; 300 names a wrong digest and 301 follows its changed bytes
  deepEqual(inline.result.problems.map((p) => [p.line, p.code]), [
    [121, "broken_hash_chain"],
    [250, "malformed_json"],
    [251, "broken_hash_chain"],
    [300, "broken_hash_chain"],
    [301, "broken_hash_chain"],
  ]);
  equal(inline.rows.length, 395);
  for (const [size, from] of [[97, 0], [1000, 5000]]) {
    const worker = await scan(text, size, from);
    deepEqual(worker.result, inline.result, `chunks of ${size}, worker from byte ${from}`);
    deepEqual(worker.rows, inline.rows);
  }
  // the strict reader throws the same first problem
  const expected = await scan(text, 97, Infinity, false).catch((e) => e);
  ok(expected instanceof LedgerError);
  await rejects(scan(text, 211, 0, false), (error) => {
    ok(error instanceof LedgerError);
    deepEqual(error.problems, expected.problems);
    return true;
  });
});
