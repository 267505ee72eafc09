/**
 * The generated run table of the `import table` benchmarks and scale
 * test: a CSV like SWE-Bench Pro's public run table (model, instance id,
 * resolved, turns) plus tokens, duration, cost and a note.
 * Deterministic: each row is a function of its number, no randomness.
 *
 * @module
 */

/** The column map of the generated table (the run table plus tokens, time and cost). */
export const TABLE_MAP = "agent_id=model,task_id=instance_id,resolved=resolved,model_calls=turns," +
  "prompt_tokens=input_tokens,completion_tokens=output_tokens,wall_seconds=duration_s," +
  "cost_usd=cost,notes=notes";

/**
 * The `ledgerbench import table` arguments for a generated table.
 *
 * @param table the table's path
 * @param ledger the ledger to write
 * @returns the CLI's arguments, from the command's name on
 */
export function importTableArgs(table: string, ledger: string): string[] {
  return ["import", "table", table, "--out", ledger, "--map", TABLE_MAP];
}

/** Agents of the generated table by default: the SWE-Bench Pro run table's 14 models. */
export const TABLE_MODELS = 14;

/**
 * The parts of the run table: a header, then one line per row, row `i`
 * by agent `model-(i mod models)` on task `repo__repo-⌊i / models⌋` (so
 * every agent has one attempt per task, and a table of `rows` rows names
 * ⌈rows / models⌉ tasks); every 20th row has a quoted note holding a comma
 * and a doubled quote, every third is resolved.
 *
 * @param rows rows after the header
 * @param models agents (default {@link TABLE_MODELS})
 * @returns the lines, in order
 */
export function* tableParts(rows: number, models = TABLE_MODELS): Generator<string> {
  yield "model,instance_id,resolved,turns,input_tokens,output_tokens,duration_s,cost,notes\n";
  for (let i = 0; i < rows; i++) {
    const task = `repo__repo-${Math.floor(i / models)}`;
    const note = i % 20 === 0 ? `"exit ""cost"", retried"` : "";
    const seconds = ((i * 37) % 6000) / 10;
    yield `model-${i % models},${task},${i % 3 === 0},${i % 75},${20_000 + i},${i % 4000},` +
      `${seconds},${(i % 500) / 1000},${note}\n`;
  }
}

/**
 * Writes `parts` to `path` (created or truncated) in pieces of about 1 MB.
 *
 * @param path the file
 * @param parts the text, in pieces
 * @returns the bytes written
 */
export async function writeInPieces(path: string, parts: Iterable<string>): Promise<number> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  let bytes = 0;
  let pending: string[] = [];
  let size = 0;
  const flush = async () => {
    const data = encoder.encode(pending.join(""));
    for (let at = 0; at < data.length;) at += await file.write(data.subarray(at));
    bytes += data.length;
    pending = [];
    size = 0;
  };
  try {
    for (const part of parts) {
      pending.push(part);
      size += part.length;
      if (size >= 1 << 20) await flush();
    }
    await flush();
  } finally {
    file.close();
  }
  return bytes;
}
