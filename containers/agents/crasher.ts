/**
 * Scripted agent `agent-crasher`: makes `LEDGERBENCH_CRASHER_CALLS` (default
 * 1) model calls, then dies with exit code 70 before writing anything. The
 * runner must record it as a scored episode with stop reason `error`.
 *
 * @module
 */
import { chat, readTask } from "./_model.ts";

const calls = Number(Deno.env.get("LEDGERBENCH_CRASHER_CALLS") ?? "1");
const prompt = await readTask();
for (let i = 0; i < calls; i++) {
  const result = await chat([{ role: "user", content: prompt }]);
  console.error(`crasher: call ${i + 1} answered HTTP ${result.status}`);
}
console.error("crasher: crashing on purpose");
Deno.exit(70);
