/**
 * Scripted agent `agent-looper`: calls the model again and again, feeding each
 * answer back into the conversation, until the relay refuses a call (token or
 * step cap, 429, 5xx) or `LEDGERBENCH_LOOPER_MAX_CALLS` (default 10000) calls
 * have been made. It exercises the relay's caps (seed 003: `token_cap`,
 * `step_cap`).
 *
 * With `LOOPER_BUDGETED=1` it plans by the budget the relay tells
 * it (`ledgerbench-tokens-left`, `ledgerbench-steps-left` and
 * `ledgerbench-prompt-bound` headers): it stops when no step is left, or when
 * fewer tokens are left than its last prompt's bound and a quarter more (the
 * relay forwards the next call only while its prompt's bound fits, and the
 * conversation grows), and writes `stopped: "budget"`.
 *
 * Exit code 0 when refused by the relay or stopped by its budget, 4 when the
 * safety maximum was hit.
 *
 * @module
 */
import { chat, type ChatResult, type Message, readTask, WORKSPACE } from "./_model.ts";

const maxCalls = Number(Deno.env.get("LEDGERBENCH_LOOPER_MAX_CALLS") ?? "10000");
const budgeted = Deno.env.get("LOOPER_BUDGETED") === "1";
const messages: Message[] = [{ role: "user", content: await readTask() }];
let calls = 0;
let lastStatus = 0;
let stopped: "refused" | "budget" | "maximum" = "maximum";
while (calls < maxCalls) {
  const result = await chat(messages);
  calls += 1;
  lastStatus = result.status;
  if (result.status < 200 || result.status >= 300) {
    stopped = "refused";
    break;
  }
  if (budgeted && !enoughLeft(result)) {
    stopped = "budget";
    break;
  }
  messages.push({ role: "assistant", content: result.content ?? "" });
  messages.push({ role: "user", content: `Continue (step ${calls + 1}).` });
}

/** Whether the budget the relay told is enough for another call (rule in the module doc). */
function enoughLeft(result: ChatResult): boolean {
  if (result.left.steps !== null && result.left.steps <= 0) return false;
  const { tokens, promptBound } = result.left;
  return tokens === null || promptBound === null || tokens >= 1.25 * promptBound;
}

const summary = JSON.stringify({ agent: "looper", calls, last_status: lastStatus, stopped });
await Deno.writeTextFile(`${WORKSPACE}/looper.log`, summary + "\n");
console.log(summary);
Deno.exit(stopped === "maximum" ? 4 : 0);
