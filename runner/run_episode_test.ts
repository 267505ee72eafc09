import { deepEqual, equal } from "node:assert/strict";
import { Plan } from "../analysis/schema/records.ts";
import { DEMO_SEED, MINI_SUITE } from "../suites/demo_suite.ts";
import { effectiveCaps } from "./effective_caps.ts";
import { openEpisodeLog } from "./episode_log_store.ts";
import { freezePlan } from "./freeze_plan.ts";
import { generateSuite } from "./generate_suite.ts";
import { startScriptedProvider } from "./relay/scripted_provider.ts";
import { startForwarder } from "./relay/start_forwarder.ts";
import { createEpisodeExecutor } from "./run_episode.ts";
import { storeArtifact } from "./sandbox/artifact_store.ts";
import { digestTree } from "./sandbox/digest_tree.ts";
import type { EpisodeSandbox } from "./sandbox/episode_sandbox.ts";
import { taskPaths } from "../analysis/schema/suite_manifest.ts";
import { tempDir } from "./_temp_dir_for_test.ts";

const DIGEST = `sha256:${"0".repeat(64)}`;

/** A suite, a plan of one agent, a scripted upstream, and the executor options around them. */
async function setup(dir: string) {
  const suite = await generateSuite(MINI_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
  const plan = Plan.parse(freezePlan(suite, {
    plan_id: "fake",
    created_at: "2026-12-01T00:00:00.000Z",
    agents: [{ agent_id: "k", image: null, image_digest: DIGEST }],
    order_seed: 1,
    price_table_id: "test",
    runner_version: "0.1.0+src.test",
    verifier_image: "none",
    verifier_image_digest: DIGEST,
  }));
  const key = crypto.randomUUID();
  const provider = await startScriptedProvider({ model: "m-fake" }, { apiKey: key });
  const task = suite.manifest.tasks[0];
  const verifierDigest = (await digestTree(taskPaths(suite.dir, task.task_id).verifier)).digest;
  await Deno.mkdir(`${dir}/temp`);
  return {
    provider,
    task,
    verifierDigest,
    episode: {
      run_id: "fake",
      agent_id: "k",
      task_id: task.task_id,
      lane: task.lane,
      position: 0,
      attempt: 1,
      episode_id: `fake/k/${task.task_id}/1`,
    },
    options: {
      plan,
      planSha256: "f".repeat(64),
      suite,
      artifactsRoot: `${dir}/artifacts`,
      upstream: () => ({ baseUrl: provider.baseUrl, key }),
      runnerVersion: "0.1.0+src.test",
      verifierDigests: { [task.task_id]: verifierDigest },
      tempDir: `${dir}/temp`,
    },
  };
}

/** How the fake backend's verifier says it ran (issue 22). */
const VERIFICATION = {
  mode: "sealed" as const,
  reward: { reward: 0 },
  reward_file: "reward.txt" as const,
  decided_by: 'key "reward"',
  hijacks: [],
  egress_allowed: 0,
  egress_denied: 0,
};

/** A backend of the kind a Kubernetes one would be: it only runs things and reports events. */
function fakeSandbox(events: string[], fail: Error | null): EpisodeSandbox {
  return {
    describeEnvironment: (agent) => ({
      sandbox: "docker",
      agent_image_digest: `image-of-${agent.agent_id}`,
      verifier_image_digest: "verifier-image",
      notes: ["FAKE BACKEND"],
    }),
    startCandidate: async (request) => {
      events.push(`start ${request.model} wall ${request.wallMs}`);
      if (fail !== null) throw fail;
      const forwarder = await startForwarder({
        pid: null,
        socketPath: request.relaySocket,
        port: 0,
      });
      const response = await fetch(`http://127.0.0.1:${forwarder.port}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sandbox" },
        body: JSON.stringify({
          model: request.model,
          messages: [{ role: "user", content: "hello" }],
        }),
      });
      events.push(`call ${response.status}`);
      await response.body?.cancel();
      await forwarder.close();
      events.push("exited");
      await request.onExited();
      return {
        stopReason: "completed",
        exitCode: 0,
        oomKilled: false,
        wallMs: 12.4,
        startedAt: "2026-12-01T00:00:01.000Z",
        finishedAt: "2026-12-01T00:00:02.000Z",
        stdoutTail: "out\n",
        stderrTail: "err\n",
        artifact: await storeArtifact(request.workspace, request.artifactsRoot),
        artifactError: null,
      };
    },
    runVerifier: (request) => {
      events.push(`verify ${request.expectedVerifierDigest}`);
      return Promise.resolve({
        kind: "verdict",
        resolved: false,
        failedChecks: ["answer"],
        verification: VERIFICATION,
        output: { stdout_tail: "1 failed\n", stderr_tail: "assert 41 == 42\n" },
      });
    },
  };
}

Deno.test("createEpisodeExecutor() runs any sandbox through the one skeleton: relay, candidate, verifier after exit, row", async () => {
  await using temp = await tempDir();
  const { provider, episode, options, verifierDigest, task } = await setup(temp.path);
  const wallMs = effectiveCaps(options.plan.caps, task.limits).wall_ms_cap ?? 300_000;
  try {
    const events: string[] = [];
    const execute = createEpisodeExecutor(fakeSandbox(events, null), options);
    const row = await execute(episode, {
      notes: ["rerun"],
      signal: new AbortController().signal,
    });
    // The model the relay is pinned to, the episode's wall cap; the verifier runs after the exit.
    deepEqual(events, [
      `start default wall ${wallMs}`,
      "call 200",
      "exited",
      `verify ${verifierDigest}`,
    ]);
    deepEqual(row.environment, {
      agent_image_digest: "image-of-k",
      verifier_image_digest: "verifier-image",
      runner_version: "0.1.0+src.test",
      sandbox: "docker",
      plan_sha256: "f".repeat(64),
    });
    deepEqual(
      [row.status, row.resolved, row.invalid_reason, row.stop_reason, row.model_calls],
      ["scored", false, null, "completed", 1],
    );
    equal(row.wall_ms, 12);
    equal(row.evidence?.server_model_id, "m-fake");
    equal(row.notes, "FAKE BACKEND; rerun; failed checks: answer");
    const log = await openEpisodeLog(options.artifactsRoot, row.episode_log_digest!);
    deepEqual([log.stdout_tail, log.stderr_tail, log.calls.length], ["out\n", "err\n", 1]);
    // How the verifier ran goes on the row; its output tails go to the log (issue 22).
    deepEqual(row.verification, VERIFICATION);
    deepEqual(log.verifier, {
      mode: "sealed",
      stdout_tail: "1 failed\n",
      stderr_tail: "assert 41 == 42\n",
    });
    // The workspace diff against the task's start (issue 25): this backend changed nothing.
    deepEqual(log.workspace_diff, { text: "", truncated: false, files: [], files_omitted: 0 });
    // The episode's directory (the relay's socket) is gone.
    deepEqual(await Array.fromAsync(Deno.readDir(options.tempDir)), []);
  } finally {
    await provider.close();
  }
});

Deno.test("createEpisodeExecutor() records a backend's throw as a harness_error row and closes the relay", async () => {
  await using temp = await tempDir();
  const { provider, episode, options } = await setup(temp.path);
  try {
    const events: string[] = [];
    const execute = createEpisodeExecutor(
      fakeSandbox(events, new Error("Cannot schedule the pod")),
      options,
    );
    const row = await execute(episode, { notes: [], signal: new AbortController().signal });
    equal(events.length, 1);
    deepEqual(
      [row.status, row.resolved, row.invalid_reason, row.stop_reason, row.model_calls],
      ["invalid", null, "harness_error", "error", 0],
    );
    equal(row.environment?.sandbox, "docker");
    equal(row.notes, "FAKE BACKEND; harness error: Cannot schedule the pod");
    equal("verification" in row, false);
    deepEqual(await Array.fromAsync(Deno.readDir(options.tempDir)), []);
  } finally {
    await provider.close();
  }
});
