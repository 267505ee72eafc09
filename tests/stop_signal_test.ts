/**
 * One Ctrl-C is one request under the README's launcher (runner/stop_requests.ts):
 * `npx deno task ledgerbench run ...` started in its own process group,
 * the group sent one SIGINT as a terminal sends it on Ctrl-C. npm forwards
 * its copy to its child; with bash as npm's script shell (macOS's
 * `/bin/sh`; Debian's dash stays in between and swallows it) that child is
 * `deno task`, which forwards what it receives to the runner, so the runner
 * receives the keypress two or three times. The run must stop starting
 * episodes and record the running one, not kill it; a deliberate second
 * Ctrl-C, after the runner's line, kills. The plan runs host processes
 * (`--unsandboxed`): no engine needed.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { ROOT } from "./_cli_run.ts";
import { miniRunArgs } from "./_mini_plan.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { SAME_REQUEST_MS } from "../runner/stop_requests.ts";
import { a1Locate } from "../suites/templates/a1_locate.ts";
import { c2FilterSum } from "../suites/templates/c2_filter_sum.ts";

/**
 * A host agent that marks its start in `started/` and sleeps `$1` seconds,
 * ignoring SIGINT: a host process shares the terminal's process group (a
 * sandboxed candidate, in its container, does not).
 */
const AGENT = `#!/bin/sh
trap '' INT
touch "$(dirname "$0")/started/$$"
exec sleep "$1"
`;

/** The plan (two tasks, one agent) and the `run` arguments, the agent sleeping `sleepS`. */
async function hostPlan(dir: string, sleepS: number): Promise<string[]> {
  const digest = `sha256:${"0".repeat(64)}`;
  const suite = await generateSuite({
    suite_id: "stop-signal-test",
    lane_weights: { A: 8, C: 12 },
    templates: [c2FilterSum, a1Locate],
  }, { seed: "5eed0000".repeat(8), dir: `${dir}/suite` });
  await writePlan(
    `${dir}/plan.json`,
    freezePlan(suite, {
      plan_id: "stop",
      created_at: new Date().toISOString(),
      agents: [{ agent_id: "h", image: null, image_digest: digest }],
      order_seed: 1,
      price_table_id: "test",
      runner_version: await runnerVersion(),
      verifier_image: "none",
      verifier_image_digest: digest,
    }),
  );
  await Deno.writeTextFile(`${dir}/agent.sh`, AGENT, { mode: 0o755 });
  await Deno.mkdir(`${dir}/started`);
  await Deno.writeTextFile(
    `${dir}/script.json`,
    JSON.stringify(await suiteProviderScript(suite, { model: "m-h" })),
  );
  return miniRunArgs(dir, `${dir}/ledger.jsonl`, [
    "--provider-script",
    `${dir}/script.json`,
    "--unsandboxed",
    "--agent-command",
    `h=${dir}/agent.sh ${sleepS}`,
  ]);
}

/** Waits, polling, until `ready()` holds; fails after `ms` naming `what`. */
async function until(what: string, ms: number, ready: () => boolean): Promise<void> {
  for (let waited = 0; !ready(); waited += 100) {
    if (waited > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGINT to every process of group `pgid`, as a terminal sends Ctrl-C. */
async function interruptGroup(pgid: number): Promise<void> {
  const kill = await new Deno.Command("kill", { args: ["-INT", "--", `-${pgid}`] }).output();
  equal(kill.code, 0, new TextDecoder().decode(kill.stderr));
}

/**
 * Starts `npx deno task ledgerbench <args>` in a new session and process
 * group (setsid), with bash as npm's script shell; sends the group one
 * SIGINT once the first episode started, and a second one (after the
 * runner's line and {@link SAME_REQUEST_MS}) when `second`.
 */
async function interruptedRun(dir: string, args: string[], second: boolean) {
  const child = new Deno.Command("setsid", {
    args: ["npx", "--no-install", "deno", "task", "ledgerbench", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: {
      NO_COLOR: "1",
      npm_config_script_shell: "/bin/bash",
      npm_config_update_notifier: "false",
    },
  }).spawn();
  let stderr = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  const stdout = new Response(child.stdout).text();
  try {
    await until(
      "the first episode",
      120_000,
      () => [...Deno.readDirSync(`${dir}/started`)].length > 0,
    );
    await interruptGroup(child.pid); // setsid made the child the leader of its own group
    await until("the runner's line", 30_000, () => stderr.includes("no new episode starts"));
    if (second) {
      await new Promise((resolve) => setTimeout(resolve, SAME_REQUEST_MS + 200));
      await interruptGroup(child.pid);
    }
  } catch (error) {
    await new Deno.Command("kill", { args: ["-KILL", "--", `-${child.pid}`] }).output();
    await reading;
    throw new Error(`${(error as Error).message}: ${stderr}`);
  }
  const status = await child.status;
  await reading;
  return { status, stderr, stdout: await stdout };
}

Deno.test("run under npx deno task: one Ctrl-C to the process group stops starting episodes, a second kills", async () => {
  for (const second of [false, true]) {
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-stop-" });
    try {
      // Graceful: the running episode finishes (3 s) and is recorded. Killed: it would sleep 60 s.
      const args = await hostPlan(dir, second ? 60 : 3);
      const run = await interruptedRun(dir, args, second);
      // A ledger nothing was recorded in is empty (the loader refuses it).
      const written = await Deno.readTextFile(`${dir}/ledger.jsonl`).catch(() => "");
      const rows = written === "" ? [] : (await loadLedger(`${dir}/ledger.jsonl`)).rows;
      // One request per keypress: the runner's line about the first once, whatever the copies.
      equal(run.stderr.match(/SIGINT: no new episode starts/g)?.length, 1, run.stderr);
      if (!second) {
        ok(!run.stderr.includes("killing running episodes"), run.stderr);
        equal(rows.length, 1, run.stderr);
        deepEqual([rows[0].status, rows[0].stop_reason], ["scored", "completed"]);
        match(run.stdout, /interrupted: resume with --resume/);
      } else {
        match(run.stderr, /SIGINT: killing running episodes \(not recorded; --resume runs them\)/);
        equal(rows.length, 0, run.stderr);
        match(run.stdout, /1 running episode\(s\) killed, not recorded/);
      }
      equal(run.status.code, 130, run.stderr);
    } finally {
      await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
      await Deno.remove(dir, { recursive: true });
    }
  }
});
