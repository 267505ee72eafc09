/**
 * Scripted agent `agent-looper`: calls the model again and again, feeding each
 * answer back into the conversation, until the relay refuses a call (token or
 * step cap, 429, 5xx) or `LEDGERBENCH_LOOPER_MAX_CALLS` (default 10000) calls
 * have been made. It exercises the relay's caps (seed 003: `token_cap`,
 * `step_cap`).
 *
 * Exit code 0 when refused by the relay, 4 when the safety maximum was hit.
 *
 * @module
 */
import { chat, type Message, readTask, WORKSPACE } from "./_model.ts";

const maxCalls = Number(Deno.env.get("LEDGERBENCH_LOOPER_MAX_CALLS") ?? "10000");
const messages: Message[] = [{ role: "user", content: await readTask() }];
let calls = 0;
let lastStatus = 0;
while (calls < maxCalls) {
  const result = await chat(messages);
  calls += 1;
  lastStatus = result.status;
  if (result.status < 200 || result.status >= 300) break;
  messages.push({ role: "assistant", content: result.content ?? "" });
  messages.push({ role: "user", content: `Continue (step ${calls + 1}).` });
}
const summary = JSON.stringify({ agent: "looper", calls, last_status: lastStatus });
await Deno.writeTextFile(`${WORKSPACE}/looper.log`, summary + "\n");
console.log(summary);
Deno.exit(calls >= maxCalls && lastStatus >= 200 && lastStatus < 300 ? 4 : 0);
