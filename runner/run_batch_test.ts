import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { Plan } from "../analysis/schema/records.ts";
import { seededRandom } from "../analysis/seeded_random.ts";
import type { PlannedEpisode } from "./batch_state.ts";
import type { EpisodeDraft } from "./ledger_writer.ts";
import { BatchHaltedError, type EpisodeExecutor, runBatch } from "./run_batch.ts";
import { tempDir } from "./_temp_dir_for_test.ts";

const PLAN = Plan.parse({
  plan_id: "p",
  order_seed: 11,
  tasks: ["t0", "t1", "t2", "t3", "t4"].map((task_id) => ({ task_id, lane: "A" })),
  agents: [{ agent_id: "a" }, { agent_id: "b" }, { agent_id: "c" }],
  price_table_id: "local",
});

/**
 * A deterministic in-process executor: the verdict and tokens are functions
 * of the episode id; the delay (0–15 ms, seeded by the id) scrambles the
 * completion order under --parallel.
 */
function executor(options: { invalid?: Set<string>; throws?: Set<string> } = {}): EpisodeExecutor {
  return async (episode: PlannedEpisode, context): Promise<EpisodeDraft> => {
    const random = seededRandom(episode.episode_id);
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 15)));
    if (options.throws?.has(episode.episode_id)) throw new Error("engine exploded");
    const invalid = options.invalid?.has(episode.episode_id) ?? false;
    return {
      run_id: episode.run_id,
      agent_id: episode.agent_id,
      task_id: episode.task_id,
      seed: 11,
      episode_id: episode.episode_id,
      attempt: episode.attempt,
      lane: episode.lane,
      status: invalid ? "invalid" : "scored",
      resolved: invalid ? null : random() < 0.5,
      invalid_reason: invalid ? "provider_fault" : null,
      prompt_tokens: 100 + Math.floor(random() * 100),
      completion_tokens: 50,
      tool_calls: 1,
      model_calls: 1,
      wall_ms: 5,
      price_table_id: "local",
      notes: context.notes.join("; "),
    };
  };
}

/** A row without what depends on completion order (the chain link). */
function essence(row: Record<string, unknown>): string {
  const { prev_sha256: _, ...rest } = row;
  return JSON.stringify(rest);
}

Deno.test("runBatch() gives the same set of rows at --parallel 1 and 4", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const one = await runBatch(PLAN, {
    runId: "r",
    ledger: `${dir}/one.jsonl`,
    parallel: 1,
    execute: executor(),
  });
  const four = await runBatch(PLAN, {
    runId: "r",
    ledger: `${dir}/four.jsonl`,
    parallel: 4,
    execute: executor(),
  });
  ok(one.complete && four.complete);
  equal(one.appended.length, 15);
  const a = (await loadLedger(`${dir}/one.jsonl`)).rows.map(essence).sort();
  const b = (await loadLedger(`${dir}/four.jsonl`)).rows.map(essence).sort();
  deepEqual(a, b);
  // Parallel 1 appends in schedule order (task-major).
  deepEqual(one.appended.slice(0, 4).map((r) => r.episode_id), [
    "r/a/t0/1",
    "r/b/t0/1",
    "r/c/t0/1",
    "r/a/t1/1",
  ]);
});

Deno.test("runBatch() stops starting on the signal and resumes without losing or repeating an episode", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const ledger = `${dir}/ledger.jsonl`;
  const controller = new AbortController();
  let seen = 0;
  const first = await runBatch(PLAN, {
    runId: "r",
    ledger,
    parallel: 3,
    execute: executor(),
    progress: {
      episode: () => {
        if (++seen === 4) controller.abort();
      },
      note: () => {},
      finish: () => {},
    },
    signal: controller.signal,
  });
  ok(first.interrupted);
  ok(!first.complete);
  ok(first.appended.length >= 4 && first.appended.length < 15);
  await rejects(runBatch(PLAN, { runId: "r", ledger, execute: executor() }), /pass --resume/);
  const second = await runBatch(PLAN, {
    runId: "r",
    ledger,
    resume: true,
    parallel: 2,
    execute: executor(),
  });
  ok(second.complete);
  equal(second.replayed + second.appended.length, 15);
  const rows = (await loadLedger(ledger)).rows;
  equal(new Set(rows.map((r) => r.episode_id)).size, 15);
});

Deno.test("runBatch() never records the episodes the hard signal aborts, and resume runs them", async () => {
  await using temp = await tempDir();
  const ledger = `${temp.path}/ledger.jsonl`;
  const hard = new AbortController();
  const plain = executor();
  let started = 0;
  // The fourth and fifth episodes hang until aborted, then return what a killed
  // container gives (scored, resolved false); the third recorded row aborts.
  const hanging: EpisodeExecutor = (episode, context) => {
    if (++started < 4) return plain(episode, context);
    return new Promise((resolve) => {
      context.signal.addEventListener("abort", () => {
        resolve(plain(episode, context).then((row) => ({ ...row, resolved: false })));
      });
    });
  };
  let recorded = 0;
  const first = await runBatch(PLAN, {
    runId: "r",
    ledger,
    parallel: 2,
    execute: hanging,
    progress: {
      episode: () => {
        if (++recorded === 3) setTimeout(() => hard.abort(), 20);
      },
      note: () => {},
      finish: () => {},
    },
    hardSignal: hard.signal,
  });
  ok(first.interrupted);
  ok(!first.complete);
  equal(first.appended.length, 3);
  equal(first.aborted.length, 2);
  const kept = (await loadLedger(ledger)).rows.map((r) => r.episode_id);
  deepEqual(kept, first.appended.map((r) => r.episode_id));
  ok(first.aborted.every((id) => !kept.includes(id)));

  const second = await runBatch(PLAN, { runId: "r", ledger, resume: true, execute: executor() });
  ok(second.complete);
  equal(second.replayed, 3);
  const rows = (await loadLedger(ledger)).rows;
  equal(rows.length, 15);
  equal(new Set(rows.map((r) => r.episode_id)).size, 15);
  for (const id of first.aborted) {
    const row = rows.find((r) => r.episode_id === id)!;
    equal(row.attempt, 1); // run once, on resume: the aborted run left no attempt behind
  }
});

Deno.test("runBatch() does not start an episode the hard signal aborted during its environment check", async () => {
  await using temp = await tempDir();
  const hard = new AbortController();
  let executed = 0;
  const outcome = await runBatch(PLAN, {
    runId: "r",
    ledger: `${temp.path}/ledger.jsonl`,
    parallel: 2,
    execute: (episode, context) => {
      executed++;
      return executor()(episode, context);
    },
    beforeEpisode: () => {
      hard.abort();
      return Promise.resolve(null);
    },
    hardSignal: hard.signal,
  });
  equal(executed, 0);
  deepEqual([outcome.appended.length, outcome.aborted.length], [0, 0]);
  ok(outcome.interrupted);
});

Deno.test("runBatch() records an executor that throws as an invalid harness_error row", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const outcome = await runBatch(PLAN, {
    runId: "r",
    ledger: `${dir}/ledger.jsonl`,
    execute: executor({ throws: new Set(["r/b/t0/1"]) }),
  });
  const row = outcome.appended.find((r) => r.episode_id === "r/b/t0/1")!;
  equal(row.status, "invalid");
  equal(row.invalid_reason, "harness_error");
  equal(row.stop_reason, "error");
  match(row.notes, /harness error: engine exploded/);
  // Policy halt (the plan's default): nothing after it started.
  equal(outcome.halted?.kind, "invalid_episode");
  equal(outcome.appended.length, 2);
});

Deno.test("runBatch() halts before an episode whose environment changed, and refuses to resume a halted batch", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const ledger = `${dir}/ledger.jsonl`;
  const outcome = await runBatch(PLAN, {
    runId: "r",
    ledger,
    execute: executor(),
    beforeEpisode: (episode) =>
      Promise.resolve(
        episode.task_id === "t2"
          ? 'agent "a" image "x" resolves to "sha256:1", the plan froze "sha256:0"'
          : null,
      ),
  });
  equal(outcome.appended.length, 6);
  deepEqual(outcome.halted, {
    kind: "environment_changed",
    episode_id: "r/a/t2/1",
    message: 'agent "a" image "x" resolves to "sha256:1", the plan froze "sha256:0"',
  });
  const invalid = await runBatch(PLAN, {
    runId: "q",
    ledger: `${dir}/halted.jsonl`,
    execute: executor({ invalid: new Set(["q/a/t1/1"]) }),
  });
  equal(invalid.halted?.kind, "invalid_episode");
  await rejects(
    runBatch(PLAN, {
      runId: "q",
      ledger: `${dir}/halted.jsonl`,
      resume: true,
      execute: executor(),
    }),
    (error: unknown) =>
      error instanceof BatchHaltedError && /whole run must be redone/.test(error.message),
  );
});

Deno.test("runBatch() reruns invalid attempts under rerun-task and notes why", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const plan = Plan.parse({ ...PLAN, invalid_policy: "rerun-task" });
  const outcome = await runBatch(plan, {
    runId: "r",
    ledger: `${dir}/ledger.jsonl`,
    execute: executor({ invalid: new Set(["r/c/t3/1"]) }),
  });
  ok(outcome.complete);
  equal(outcome.appended.length, 16);
  const rerun = outcome.appended.find((r) => r.episode_id === "r/c/t3/2")!;
  match(rerun.notes, /attempt 2: rerun of invalid attempt 1 under invalid policy "rerun-task"/);
});
