/** The command runner on plain programs (no cluster needed). */
import { equal, match, rejects } from "node:assert/strict";
import { runSlurmCommand } from "./_run_slurm_command.ts";
import { SlurmCommandError } from "./slurm_command_error.ts";

Deno.test("runSlurmCommand() feeds stdin and adds to the environment", async () => {
  const output = await runSlurmCommand("sh", ["-c", 'cat; printf " %s" "$LB_VALUE"'], {
    stdin: "script text",
    env: { LB_VALUE: "from env" },
  });
  equal(output.stdout, "script text from env");
  equal(output.command, 'sh -c \'cat; printf " %s" "$LB_VALUE"\'');
});

Deno.test("runSlurmCommand() words a failure on one line with the command and its stderr", async () => {
  await rejects(
    runSlurmCommand("sh", ["-c", "echo 'sbatch: error: first' >&2; echo 'second' >&2; exit 3"]),
    (error: unknown) => {
      if (!(error instanceof SlurmCommandError)) return false;
      equal(error.code, "failed");
      equal(error.exitCode, 3);
      equal(error.stderr, "sbatch: error: first; second");
      match(
        error.message,
        /^Slurm command "sh -c .*" exited with status 3: sbatch: error: first; second$/,
      );
      return true;
    },
  );
});

Deno.test("runSlurmCommand() kills a command at its deadline", async () => {
  await rejects(
    runSlurmCommand("sleep", ["30"], { deadlineMs: 100 }),
    (error: unknown) =>
      error instanceof SlurmCommandError && error.code === "deadline" &&
      /^Slurm command "sleep 30" did not finish within 100 ms and was killed/.test(error.message),
  );
});

Deno.test("runSlurmCommand() says when the program is not installed", async () => {
  await rejects(
    runSlurmCommand("ledgerbench-no-such-sbatch", []),
    (error: unknown) =>
      error instanceof SlurmCommandError && error.code === "not_found" &&
      /"ledgerbench-no-such-sbatch" is not on PATH/.test(error.message),
  );
});

Deno.test("runSlurmCommand() survives a command that does not read its stdin", async () => {
  const output = await runSlurmCommand("true", [], { stdin: "x".repeat(1 << 20) });
  equal(output.stdout, "");
});
