/**
 * Scripted agent `agent-shell`: asks the model once with the task prompt
 * and runs every "```sh" block of the answer with `/bin/sh -c`, in order,
 * as its own user in its working directory, as a terminal agent acts
 * through a shell (Terminal-Bench's agents do). What a block starts in the
 * background and detaches (`setsid ... >/dev/null 2>&1 &`) outlives the
 * agent, as a real agent's leftover processes do in Harbor's shared
 * verifier mode.
 *
 * Exit codes: 0 after running the blocks (whatever their exit codes, which
 * it prints), 2 when the relay answered with an HTTP error, 3 when the
 * answer had no message content.
 *
 * @module
 */
import { askOnce, readTask } from "./_model.ts";

const content = await askOnce("shell", await readTask());
const exitCodes: number[] = [];
for (const match of content.matchAll(/```sh\n([\s\S]*?)\n?```/g)) {
  const run = await new Deno.Command("/bin/sh", {
    args: ["-c", match[1]],
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  exitCodes.push(run.code);
}
console.log(JSON.stringify({ agent: "shell", calls: 1, exit_codes: exitCodes }));
