import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { createSlurmExecutor } from "./slurm_executor.ts";
import type { ArrayTaskState, SlurmClient } from "./slurm_client.ts";
import { EpisodeWithdrawnError } from "../run_batch.ts";
import type { PlannedEpisode } from "../batch_state.ts";
import { tempDir as makeTempDir } from "../_temp_dir_for_test.ts";
import { currentRunner } from "../runner_identity.ts";
import { pathExists } from "../../inputs/input_file.ts";
import { SLOT_KEY_VARIABLE, slotResultPath, writeSlotResult } from "./slot_result_file.ts";

/** A cluster in memory: the tests set each task's state and write its result file. */
function fakeCluster() {
  const submitted: {
    script: string;
    size: number;
    submit: unknown;
    output: string;
    env: Record<string, string>;
  }[] = [];
  const states = new Map<string, Map<number, ArrayTaskState>>();
  const cancelled: { jobId: string; indices?: readonly number[] }[] = [];
  /** Jobs Slurm lists that the executor may not know of (a submission that failed late). */
  const live: { jobId: string; comment: string }[] = [];
  const client: SlurmClient = {
    submitArray(script, options) {
      const jobId = String(100 + submitted.length);
      submitted.push({
        script,
        size: options.size,
        submit: options.submit,
        output: options.output,
        env: options.env,
      });
      states.set(
        jobId,
        new Map(Array.from({ length: options.size }, (_, i) => [i, pending()])),
      );
      return Promise.resolve(jobId);
    },
    taskStates: (jobId) => Promise.resolve(new Map(states.get(jobId) ?? [])),
    liveJobs: () => Promise.resolve(live),
    cancel(jobId, indices) {
      cancelled.push({ jobId, indices });
      const tasks = states.get(jobId);
      for (const [index, task] of tasks ?? []) {
        if (indices === undefined || indices.includes(index)) {
          tasks!.set(index, { ...task, state: "CANCELLED" });
        }
      }
      return Promise.resolve();
    },
  };
  return { client, submitted, states, cancelled, live };
}

const pending = (): ArrayTaskState => ({ state: "PENDING", reason: "Priority", node: null });

function episode(task: string): PlannedEpisode {
  return {
    run_id: "r1",
    agent_id: "a",
    task_id: task,
    lane: "default",
    position: 0,
    attempt: 1,
    episode_id: `r1/a/${task}/1`,
  };
}

/** The fields of a scored row besides the episode's identity. */
const DRAFT_FIELDS = {
  seed: 1,
  status: "scored" as const,
  resolved: true,
  prompt_tokens: 1000,
  completion_tokens: 500,
  tool_calls: 3,
  wall_ms: 10_000,
  price_table_id: "p",
  notes: "from the node",
};

/** A scored row draft of `task`'s episode, as a node returns it. */
function draftOf(task: string) {
  const { position: _, ...identity } = episode(task);
  return { ...identity, ...DRAFT_FIELDS };
}

async function setUp() {
  const dir = await makeTempDir();
  const cluster = fakeCluster();
  const executor = await createSlurmExecutor({
    runId: "r1",
    dir: dir.path,
    client: cluster.client,
    submit: { timeLimitMinutes: 35, extraArgs: ["--qos=low"], partition: "debug" },
    workerCommand: ["/opt/deno", "run", "--allow-all", "/repo/cli/main.ts", "slot"],
    pollMs: 10,
    request: {
      plan: "/p/plan.json",
      plan_sha256: "0".repeat(64),
      suite: "/p/suite",
      artifacts: "/p/artifacts",
      cwd: "/p",
      verifier_digests: {},
      upstreams: {
        upstream: ["https://api.example.com/v1"],
        provider_script: [],
        expect_model: [],
        judge_upstream: null,
        judge_provider_script: null,
      },
    },
  });
  const self = currentRunner();
  const session = `${dir.path}/r1/${self.host}-${self.pid}-${self.start}`;
  const context = () => ({
    notes: [],
    signal: new AbortController().signal,
    stop: new AbortController().signal,
  });
  /** Writes a result as the wave's node does, with the key its job's environment carried. */
  const writeResult = (
    wave: number,
    index: number,
    result: Parameters<typeof writeSlotResult>[1],
  ) =>
    writeSlotResult(
      `${session}/wave-${wave}/slot-${index}.json`,
      result,
      cluster.submitted[wave].env[SLOT_KEY_VARIABLE],
    );
  /** Waits until `count` arrays are submitted and recorded in the session's `jobs`. */
  const waitForSubmit = async (count: number) => {
    const recorded = () =>
      Deno.readTextFile(`${session}/jobs`).then((text) => text.split("\n").length - 1, () => 0);
    while (await recorded() < count) await new Promise((r) => setTimeout(r, 5));
  };
  return { dir, cluster, executor, session, context, writeResult, waitForSubmit };
}

Deno.test("createSlurmExecutor() sends slots started together as one array and reads their rows back", async () => {
  const t = await setUp();
  try {
    const a = t.executor.execute(episode("t1"), t.context());
    const b = t.executor.execute(episode("t2"), t.context());
    await t.waitForSubmit(1);
    equal(t.cluster.submitted.length, 1);
    equal(t.cluster.submitted[0].size, 2);
    deepEqual(t.cluster.submitted[0].submit, {
      timeLimitMinutes: 35,
      extraArgs: ["--qos=low"],
      partition: "debug",
    });
    const script = t.cluster.submitted[0].script;
    match(
      script,
      /exec '\/opt\/deno' 'run' '--allow-all' '\/repo\/cli\/main.ts' 'slot' '.*\/wave-0\/slot-'"\$SLURM_ARRAY_TASK_ID"'\.json'/,
    );
    const request = JSON.parse(await Deno.readTextFile(`${t.session}/wave-0/slot-1.json`));
    equal(request.episode.task_id, "t2");
    for (const [index, task] of [[0, "t1"], [1, "t2"]] as const) {
      await t.writeResult(0, index, {
        ok: true,
        node: "node7",
        draft: draftOf(task),
      });
    }
    const [first, second] = await Promise.all([a, b]);
    equal(first.task_id, "t1");
    equal(second.notes, 'from the node; ran as Slurm job 100_1 on node "node7"');
    equal((await Deno.readTextFile(`${t.session}/jobs`)).trim(), "100");
  } finally {
    await t.executor.close();
    await t.dir[Symbol.asyncDispose]();
  }
});

Deno.test("createSlurmExecutor() makes a task that ended without a row a harness fault naming Slurm's state", async () => {
  const t = await setUp();
  try {
    const slots = ["t1", "t2", "t3", "t4"].map((task) =>
      t.executor.execute(episode(task), t.context())
    );
    await t.waitForSubmit(1);
    // The node's result lands before Slurm reports its task ended.
    await t.writeResult(0, 3, { ok: false, node: "node5", error: "image digest differs" });
    const states = t.cluster.states.get("100")!;
    states.set(0, { state: "NODE_FAIL", reason: "None", node: "node3" });
    states.set(1, { state: "TIMEOUT", reason: "None", node: "node4" });
    states.set(2, { state: "CANCELLED", reason: "None", node: "node4" });
    states.set(3, { state: "COMPLETED", reason: "None", node: "node5" });
    const settled = Promise.all(slots.map((slot) => slot.then(() => "", (e: Error) => e.message)));
    const messages = await settled;
    match(
      messages[0],
      /^Slurm task 100_0 ended NODE_FAIL on node "node3" before the episode's row came back/,
    );
    match(
      messages[1],
      /time limit of 35 min on node "node4" before the episode's row came back: the limit cut the slot/,
    );
    match(messages[2], /^Slurm task 100_2 ended CANCELLED on node "node4"/);
    equal(
      messages[3],
      `Slurm job 100_3 on node "node5" could not run the episode: image digest differs`,
    );
  } finally {
    await t.executor.close();
    await t.dir[Symbol.asyncDispose]();
  }
});

Deno.test("createSlurmExecutor() refuses a result changed after the node wrote it, or written without the run's key, as a harness fault naming the task", async () => {
  const t = await setUp();
  try {
    const slots = ["t1", "t2"].map((task) => t.executor.execute(episode(task), t.context()));
    const settled = Promise.all(slots.map((slot) => slot.then(() => "", (e: Error) => e.message)));
    await t.waitForSubmit(1);
    // The run's key travels in the jobs' environment, and is in no file of the run's.
    const key = t.cluster.submitted[0].env[SLOT_KEY_VARIABLE];
    match(key, /^[0-9a-f]{64}$/);
    for await (const entry of Deno.readDir(`${t.session}/wave-0`)) {
      ok(!(await Deno.readTextFile(`${t.session}/wave-0/${entry.name}`)).includes(key));
    }
    // A process of the same user flips the verdict between the node's write and the poll.
    const failed = { ok: true as const, node: "n1", draft: { ...draftOf("t1"), resolved: false } };
    await writeSlotResult(`${t.session}/wave-0/slot-0.json`, failed, key);
    const path = slotResultPath(`${t.session}/wave-0/slot-0.json`);
    await Deno.writeTextFile(
      path,
      (await Deno.readTextFile(path)).replace('"resolved":false', '"resolved":true'),
    );
    // Another writes a result of its own, without the key.
    await writeSlotResult(`${t.session}/wave-0/slot-1.json`, failed, undefined);
    const messages = await settled;
    for (const [index, message] of messages.entries()) {
      match(
        message,
        new RegExp(
          `^the result of Slurm task 100_${index} is refused: ".*slot-${index}\\.result\\.json" ` +
            "does not carry this run's authentication code",
        ),
      );
    }
  } finally {
    await t.executor.close();
    await t.dir[Symbol.asyncDispose]();
  }
});

Deno.test("createSlurmExecutor() counts a job Slurm no longer knows as a vanished slot", async () => {
  const t = await setUp();
  try {
    const slot = t.executor.execute(episode("t1"), t.context());
    await t.waitForSubmit(1);
    t.cluster.states.delete("100");
    await rejects(
      slot,
      /^Error: Slurm task 100_0 vanished: Slurm no longer lists it \(cancelled while queued, or purged\) and no row came back/,
    );
  } finally {
    await t.executor.close();
    await t.dir[Symbol.asyncDispose]();
  }
});

Deno.test("createSlurmExecutor() cancels an array that sbatch submitted although it failed, and records the slots as harness faults", async () => {
  const t = await setUp();
  try {
    const label = `${currentRunner().host}/${currentRunner().pid}/${currentRunner().start}`;
    t.cluster.client.submitArray = () => {
      t.cluster.live.push({ jobId: "77", comment: label }, { jobId: "78", comment: "other/1/2" });
      return Promise.reject(new Error("sbatch: killed at its deadline"));
    };
    await rejects(
      t.executor.execute(episode("t1"), t.context()),
      /^Error: Cannot submit the slot to Slurm: sbatch: killed at its deadline$/,
    );
    deepEqual(t.cluster.cancelled, [{ jobId: "77", indices: undefined }]);
  } finally {
    await t.executor.close();
    await t.dir[Symbol.asyncDispose]();
  }
});

Deno.test("createSlurmExecutor() withdraws a queued slot when the batch stops, and keeps a running one", async () => {
  const t = await setUp();
  try {
    const stop = new AbortController();
    const queued = t.executor.execute(episode("t1"), { ...t.context(), stop: stop.signal });
    const running = t.executor.execute(episode("t2"), { ...t.context(), stop: stop.signal });
    await t.waitForSubmit(1);
    t.cluster.states.get("100")!.set(1, { state: "RUNNING", reason: "None", node: "n1" });
    stop.abort();
    await rejects(queued, EpisodeWithdrawnError);
    deepEqual(t.cluster.cancelled, [{ jobId: "100", indices: [0] }]);
    await t.writeResult(0, 1, { ok: true, node: "n1", draft: draftOf("t2") });
    equal((await running).task_id, "t2");
  } finally {
    await t.executor.close();
    await t.dir[Symbol.asyncDispose]();
  }
});

Deno.test("createSlurmExecutor() cancels a running slot when the operator kills the episodes", async () => {
  const t = await setUp();
  try {
    const kill = new AbortController();
    const slot = t.executor.execute(episode("t1"), { ...t.context(), signal: kill.signal });
    await t.waitForSubmit(1);
    t.cluster.states.get("100")!.set(0, { state: "RUNNING", reason: "None", node: "n1" });
    kill.abort();
    await rejects(slot, EpisodeWithdrawnError);
    deepEqual(t.cluster.cancelled, [{ jobId: "100", indices: [0] }]);
  } finally {
    await t.executor.close();
    await t.dir[Symbol.asyncDispose]();
  }
});

Deno.test("createSlurmExecutor() cancels the jobs of a runner that is gone and keeps a live one's slots", async () => {
  const dir = await makeTempDir();
  try {
    const self = currentRunner();
    const gone = `${dir.path}/r1/${self.host}-999999999-1`;
    const live = `${dir.path}/r1/${self.host}-${self.pid}-${self.start}`;
    const elsewhere = `${dir.path}/r1/another-host-12-34`;
    for (const path of [gone, live, elsewhere]) await Deno.mkdir(path, { recursive: true });
    await Deno.writeTextFile(`${gone}/jobs`, "41\n42\n");
    const cluster = fakeCluster();
    const notes: string[] = [];
    const executor = await createSlurmExecutor({
      runId: "r1",
      dir: dir.path,
      client: cluster.client,
      submit: { timeLimitMinutes: 35, extraArgs: [] },
      workerCommand: ["slot"],
      note: (message) => notes.push(message),
      request: {} as never,
    });
    await executor.close();
    deepEqual(cluster.cancelled, [{ jobId: "41", indices: undefined }, {
      jobId: "42",
      indices: undefined,
    }]);
    ok(!(await pathExists(gone)));
    ok(await pathExists(live));
    ok(await pathExists(elsewhere));
    match(notes[0], /which is gone \(its Slurm jobs 41, 42 cancelled\)$/);
  } finally {
    await dir[Symbol.asyncDispose]();
  }
});
