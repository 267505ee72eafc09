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
import { chat, fileBlocks, readTask, writeBlock } from "./_model.ts";

const prompt = await readTask();
const result = await chat([{ role: "user", content: prompt }]);
if (result.status < 200 || result.status >= 300) {
  console.error(`solver: the model call failed with HTTP ${result.status}`);
  Deno.exit(2);
}
if (result.content === null) {
  console.error("solver: the model answer has no choices[0].message.content");
  Deno.exit(3);
}
const written: string[] = [];
for (const block of fileBlocks(result.content)) {
  written.push(await writeBlock(block));
}
console.log(JSON.stringify({ agent: "solver", calls: 1, written }));
