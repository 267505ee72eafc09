import { deepEqual, equal, match } from "node:assert/strict";
import { cliInProcess, cliInProcessWithEnv, ROOT, SAMPLE, START_LOG_VARIABLE } from "./_cli_run.ts";

Deno.test("cliInProcess() leaves the environment, the directory, console and the terminals as it found them", async () => {
  const before = {
    env: [Deno.env.get("NO_COLOR"), Deno.env.get("COLUMNS")],
    cwd: Deno.cwd(),
    log: console.log,
    error: console.error,
    stdoutTerminal: Object.hasOwn(Deno.stdout, "isTerminal"),
  };
  const temp = await Deno.makeTempDir({ prefix: "ledgerbench-cli-run-" });
  try {
    Deno.chdir(temp);
    const result = await cliInProcessWithEnv({ COLUMNS: "80" }, "summarize", SAMPLE);
    equal(result.code, 0, result.stderr);
    // run from the root (the relative path resolves), folded to COLUMNS
    match(result.stdout, /^ledger: ledgers\/examples\/sample_ledger\.jsonl \(sha256$/m);
    equal(result.stdout.split("\n").every((line) => line.length <= 80), true);
    equal(Deno.cwd(), temp);
  } finally {
    Deno.chdir(before.cwd);
    await Deno.remove(temp, { recursive: true });
  }
  deepEqual([Deno.env.get("NO_COLOR"), Deno.env.get("COLUMNS")], before.env);
  equal(console.log, before.log);
  equal(console.error, before.error);
  equal(Object.hasOwn(Deno.stdout, "isTerminal"), before.stdoutTerminal);
  equal(ROOT.endsWith("/"), true);
});

Deno.test("cliInProcess() runs one at a time and logs each run when asked", async () => {
  const log = await Deno.makeTempFile({ prefix: "ledgerbench-cli-log-" });
  const previous = Deno.env.get(START_LOG_VARIABLE);
  Deno.env.set(START_LOG_VARIABLE, log);
  try {
    const results = await Promise.all([cliInProcess("--help"), cliInProcess("frobnicate")]);
    deepEqual(results.map((r) => r.code), [0, 1]);
    equal(results[1].stdout, "");
    match(results[1].stderr, /^error: Unknown command: "frobnicate"/);
    equal(await Deno.readTextFile(log), "in-process\t--help\nin-process\tfrobnicate\n");
  } finally {
    if (previous === undefined) Deno.env.delete(START_LOG_VARIABLE);
    else Deno.env.set(START_LOG_VARIABLE, previous);
    await Deno.remove(log);
  }
});
