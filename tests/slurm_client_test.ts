/**
 * The Slurm client (runner/slurm) on a real single-node cluster (slurmctld
 * and slurmd on this host, started by .ci/install_slurm.sh; issue 24):
 *
 * - a throttled three-task array of `sleep` is seen `PENDING`, `RUNNING` and
 *   `COMPLETED`, and the value given in `env` reaches every task without
 *   being in the script or in what `scontrol` prints;
 * - `scancel` of a running task makes it `CANCELLED`, of a pending
 *   one drops it from the array; `jobsNamed` finds the live job by name;
 * - the node set down under running tasks: with `--no-requeue` the task ends
 *   `NODE_FAIL`, with `--requeue` it is `PENDING` again, restarted once; the
 *   node is resumed at the end;
 * - a job id Slurm does not know gives no states; a refused submission is
 *   one line naming sbatch and Slurm's reason.
 *
 * Slurm's `TIMEOUT` is checked on captured output only
 * (runner/slurm/parse_array_task_states_test.ts): the smallest time limit is
 * a minute and Slurm checks it every 30 s, about 75 s per run.
 *
 * Skipped when no cluster answers (failed under `CI=true`).
 *
 * @module
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { requireSlurmCluster } from "./_slurm_cluster.ts";
import { submitJobArray, type SubmitJobArrayOptions } from "../runner/slurm/submit_job_array.ts";
import { arrayTaskStates } from "../runner/slurm/array_task_states.ts";
import { cancelJob } from "../runner/slurm/cancel_job.ts";
import { jobsNamed } from "../runner/slurm/jobs_named.ts";
import { slurmAvailable } from "../runner/slurm/slurm_available.ts";
import type { ArrayTaskState } from "../runner/slurm/parse_array_task_states.ts";
import { SlurmCommandError } from "../runner/slurm/slurm_command_error.ts";

const CLUSTER = await requireSlurmCluster("tests/slurm_client_test.ts");
const ignore = !CLUSTER.available;
const NODE = CLUSTER.available ? Object.keys(CLUSTER.nodes)[0] : "";

/** A job array of `script` in a fresh directory, named for this test run. */
async function submit(
  tag: string,
  script: string,
  options: Partial<SubmitJobArrayOptions> = {},
): Promise<{ jobId: string; name: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-slurm-client-" });
  const name = `lb-client-test-${tag}-${crypto.randomUUID().slice(0, 8)}`;
  try {
    const jobId = await submitJobArray({
      script: `#!/bin/sh\n${script}\n`,
      indices: 1,
      jobName: name,
      workDir: dir,
      outputPattern: "%a.log",
      ...options,
    });
    return { jobId, name, dir };
  } catch (error) {
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
}

/**
 * Polls the array's states every 200 ms until `done` holds, keeping the
 * states each task was seen in, in order; fails after `ms`.
 */
async function watch(
  jobId: string,
  ms: number,
  done: (tasks: Map<number, ArrayTaskState>) => boolean,
): Promise<{ tasks: Map<number, ArrayTaskState>; seen: Map<number, string[]> }> {
  const seen = new Map<number, string[]>();
  const deadline = Date.now() + ms;
  while (true) {
    const tasks = await arrayTaskStates(jobId);
    for (const [id, task] of tasks) {
      const states = seen.get(id) ?? [];
      if (states.at(-1) !== task.state) states.push(task.state);
      seen.set(id, states);
    }
    if (done(tasks)) return { tasks, seen };
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${ms} ms watching job ${jobId}: ${
          JSON.stringify(Object.fromEntries(seen))
        }`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function statesOf(tasks: Map<number, ArrayTaskState>): Record<number, string> {
  return Object.fromEntries([...tasks].map(([id, task]) => [id, task.state]));
}

async function scontrol(...args: string[]): Promise<string> {
  const output = await new Deno.Command("scontrol", { args, stderr: "inherit" }).output();
  if (!output.success) throw new Error(`scontrol ${args.join(" ")} failed`);
  return new TextDecoder().decode(output.stdout);
}

Deno.test({
  name: "submitJobArray() runs a throttled array to COMPLETED with the environment's value",
  ignore,
  async fn() {
    const secret = `lb-${crypto.randomUUID()}`;
    const { jobId, dir } = await submit(
      "complete",
      'echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID: $LB_SLURM_TEST_VALUE"; sleep 2',
      { indices: 3, concurrency: 2, env: { LB_SLURM_TEST_VALUE: secret } },
    );
    try {
      const shown = await scontrol("show", "job", "-o", jobId);
      const script = await scontrol("write", "batch_script", jobId, "-");
      const { tasks, seen } = await watch(
        jobId,
        30_000,
        (tasks) => tasks.size === 3 && [...tasks.values()].every((t) => t.state === "COMPLETED"),
      );
      // Task 2 waits behind the limit of two while 0 and 1 sleep; each task
      // goes through the states in Slurm's order.
      ok(seen.get(2)?.[0] === "PENDING", JSON.stringify(Object.fromEntries(seen)));
      for (const [id, states] of seen) {
        const order = ["PENDING", "RUNNING", "COMPLETING", "COMPLETED"];
        const ranks = states.map((state) => order.indexOf(state));
        ok(ranks.every((rank, i) => rank >= 0 && (i === 0 || rank > ranks[i - 1])), `${id}`);
        ok(states.includes("RUNNING"), `task ${id} was never seen running: ${states}`);
      }
      for (const [id, task] of tasks) {
        deepEqual(task.exitCode, { status: 0, signal: 0 });
        equal(task.nodeList, NODE);
        equal(task.restarts, 0);
        equal(
          await Deno.readTextFile(`${dir}/${id}.log`),
          `task ${id} of ${jobId}: ${secret}\n`,
        );
      }
      ok(!shown.includes(secret) && !script.includes(secret), "the value leaked into scontrol");
    } finally {
      await cancelJob(jobId);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "cancelJob() cancels a running task, drops a pending one, then the whole array",
  ignore,
  async fn() {
    const { jobId, name, dir } = await submit("cancel", "sleep 60", {
      indices: 4,
      concurrency: 2,
      comment: "runner=test",
    });
    try {
      await watch(
        jobId,
        20_000,
        (t) => t.get(0)?.state === "RUNNING" && t.get(1)?.state === "RUNNING",
      );
      const live = await jobsNamed(name);
      deepEqual(live.map((job) => job.jobId), live.map(() => jobId), JSON.stringify(live));
      deepEqual(
        live.flatMap((job) => job.taskIds).sort((a, b) => a - b),
        [0, 1, 2, 3],
        JSON.stringify(live),
      );
      deepEqual([...new Set(live.map((job) => job.comment))], ["runner=test"]);

      // Task 1 runs, task 3 waits: scancel 45_[1,3].
      await cancelJob(jobId, [3, 1]);
      const after = await watch(
        jobId,
        20_000,
        (t) => t.get(1)?.state === "CANCELLED" && t.get(2)?.state === "RUNNING",
      );
      deepEqual(
        statesOf(after.tasks),
        { 0: "RUNNING", 1: "CANCELLED", 2: "RUNNING" },
        JSON.stringify(Object.fromEntries(after.seen)),
      );
      // SIGTERM ends the script ("0:15"), or the shell outlives its killed
      // sleep by a moment and exits 128 + 15 ("143:0"): both were seen here.
      const { status, signal } = after.tasks.get(1)?.exitCode ?? {};
      ok(
        `${status}:${signal}` === "0:15" || `${status}:${signal}` === "143:0",
        `${status}:${signal}`,
      );

      await cancelJob(jobId, []);
      await cancelJob(jobId);
      const end = await watch(
        jobId,
        20_000,
        (t) => [...t.values()].every((task) => task.state === "CANCELLED"),
      );
      deepEqual(
        statesOf(end.tasks),
        { 0: "CANCELLED", 1: "CANCELLED", 2: "CANCELLED" },
        JSON.stringify(Object.fromEntries(end.seen)),
      );
      // A finished job is cancelled again without error, and is no longer live.
      await cancelJob(jobId);
      const deadline = Date.now() + 20_000;
      while ((await jobsNamed(name)).length > 0) {
        ok(Date.now() < deadline, `job ${jobId} is still listed by squeue`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      await cancelJob(jobId);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "arrayTaskStates() sees NODE_FAIL without requeue and a requeue with it when the node goes down",
  ignore,
  async fn() {
    const noRequeue = await submit("down-norequeue", "sleep 60", { extraArgs: ["--no-requeue"] });
    const requeue = await submit("down-requeue", "sleep 60", { extraArgs: ["--requeue"] });
    try {
      for (const { jobId } of [noRequeue, requeue]) {
        await watch(jobId, 20_000, (t) => t.get(0)?.state === "RUNNING");
      }
      await scontrol("update", `nodename=${NODE}`, "state=down", "reason=ledgerbench-test");
      const failed = await watch(noRequeue.jobId, 20_000, (t) => t.get(0)?.state === "NODE_FAIL");
      // The exit code is "0:0" when the state turns NODE_FAIL and "0:15" once
      // the killed step reports back (testdata/node_down_no_requeue.txt).
      const { exitCode: _, ...failedTask } = failed.tasks.get(0)!;
      deepEqual(failedTask, {
        state: "NODE_FAIL",
        reason: "NodeDown",
        nodeList: NODE,
        restarts: 0,
      });
      const requeued = await watch(requeue.jobId, 20_000, (t) => t.get(0)?.restarts === 1);
      // Held back for Slurm's credential lifetime (2 min): reason "None" at
      // first, then "BeginTime" (testdata/node_down_requeue.txt).
      equal(requeued.tasks.get(0)?.state, "PENDING");
    } finally {
      await cancelJob(noRequeue.jobId);
      await cancelJob(requeue.jobId);
      await resumeNode();
      await Deno.remove(noRequeue.dir, { recursive: true });
      await Deno.remove(requeue.dir, { recursive: true });
    }
  },
});

/** Brings the node back to service (ReturnToService=2 usually has already) and waits until it is idle. */
async function resumeNode(): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (true) {
    const cluster = await slurmAvailable();
    const state = cluster.available ? cluster.nodes[NODE] : "";
    if (state === "idle") return;
    if (/^(down|drain)/.test(state)) {
      // Refused ("Invalid node state specified") when the node came back meanwhile.
      await new Deno.Command("scontrol", {
        args: ["update", `nodename=${NODE}`, "state=resume"],
        stdout: "null",
        stderr: "null",
      }).output();
    }
    if (Date.now() > deadline) {
      throw new Error(`Node "${NODE}" is "${state}", not idle, after 30 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

Deno.test({
  name: "arrayTaskStates() gives no states for a job id Slurm does not know",
  ignore,
  async fn() {
    equal((await arrayTaskStates("999999999")).size, 0);
  },
});

Deno.test({
  name: "submitJobArray() words a refused submission on one line with Slurm's reason",
  ignore,
  async fn() {
    await rejects(
      submit("refused", "true", { partition: "ledgerbench-no-such-partition" }),
      (error: unknown) => {
        ok(error instanceof SlurmCommandError, String(error));
        equal(error.code, "failed");
        ok(!error.message.includes("\n"), error.message);
        ok(error.message.startsWith('Slurm command "sbatch '), error.message);
        ok(error.message.includes("Invalid partition name specified"), error.message);
        return true;
      },
    );
  },
});
