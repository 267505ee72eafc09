/**
 * Scripted agent `agent-solver`: asks the model once with the task prompt and
 * applies every "```file:<relative path>" block of the answer to
 * `/workspace`.
 *
 * Exit codes: 0 after applying the answer (even one with no blocks), 2 when
 * the relay answered with an HTTP error (429, 5xx, a cap refusal), 3 when the
 * answer had no message content.
 *
 * @module
 */
import { askOnce, fileBlocks, readTask, writeBlock } from "./_model.ts";

const content = await askOnce("solver", await readTask());
const written: string[] = [];
for (const block of fileBlocks(content)) {
  written.push(await writeBlock(block));
}
console.log(JSON.stringify({ agent: "solver", calls: 1, written }));
