/**
 * One episode, written once for every sandbox (issue 3, "One episode"; seed
 * 000 §03–04; issue 12): the skeleton below runs behind an
 * {@link EpisodeSandbox} (`runner/sandbox/episode_sandbox.ts`), implemented by
 * Docker (`docker_sandbox.ts`) and by the explicit `--unsandboxed` host
 * (`host_sandbox.ts`).
 *
 * 1. a per-episode host relay on a unix socket, holding the upstream key and
 *    the episode's token and step caps, and applying the plan's output cap
 *    (`model_limits.max_output_tokens`) to every forwarded call
 *    (runner/relay);
 * 2. the candidate, started by the sandbox on a writable copy of the task
 *    workspace; in Docker, a container with seed 000's flags and the
 *    workspace on its own size-limited file system, where as soon as it
 *    starts, and before the candidate's own code runs, a forwarder listens
 *    inside its network namespace (opened in-process with `setns(2)`, or an
 *    `nsenter` process when FFI is unavailable), so
 *    `OPENAI_BASE_URL=http://127.0.0.1:<port>/v1` (and
 *    `ANTHROPIC_BASE_URL` and `GOOGLE_GEMINI_BASE_URL`, both
 *    `http://127.0.0.1:<port>`, without `/v1` as the Anthropic and Gemini
 *    clients expect) reaches the relay and nothing else, with placeholder
 *    keys `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` and `GEMINI_API_KEY`
 *    (runner/sandbox, runner/relay); the relay is closed as soon as the
 *    candidate has exited;
 * 3. the evidence gate over the relay's call records (tokens and calls always
 *    come from the relay, never from the agent);
 * 4. the workspace stored as a content-addressed artifact; the verifier in its
 *    own sandbox, hidden files copied in only now, checked against the digest
 *    frozen for the run (`environment_check.ts`);
 * 5. one row, pointing at the episode's log (the candidate's output tails,
 *    the relay's call records and bodies, the verifier's mode and output
 *    tails) stored beside the artifact, also when the harness failed
 *    (`with_episode_log.ts`); a row the verifier decided or faulted records
 *    how it ran (`verification`, issue 22).
 *
 * Classification, in this order:
 *
 * | condition | status | invalid_reason | resolved |
 * |---|---|---|---|
 * | the harness failed (engine, relay, forwarder) | invalid | harness_error | null |
 * | a successful call without server model id or usage, or over the plan's `model_limits` (output cap, context limit) | invalid | evidence_missing | null |
 * | an upstream 5xx / key rejected / connection failure / no answer within the plan's `upstream_timeout_ms` (also a call the wall cap cut off after waiting that long) | invalid | provider_fault | null |
 * | upstream 429 under invalid policy `rerun-task` (seed 002: rate limits are invalid attempts, rerun) | invalid | provider_fault | null |
 * | a call's prompt alone over the plan's declared context limit (the agent's doing) | scored | – | false (verifier not run) |
 * | zero forwarded model calls (seed 000; not for `suite check`'s runner programs) | scored | – | false (verifier not run) |
 * | the workspace cannot be stored: past the artifact budget, a name that is not UTF-8, too deep or too long a path (the agent's doing) | scored | – | false |
 * | the verifier faulted (setup, crash, no verdict, changed files) | invalid | verifier_fault | null |
 * | a judged task's judge gave no usable judgment within its attempts (issue 14) | invalid | judge_fault | null |
 * | a judge call without server model id or usage, or failed by the provider | invalid | evidence_missing / provider_fault | null |
 * | otherwise | scored | – | the verdict's `resolved` (a judged task: the judge's total at least the rubric's threshold, and with `with_program` the program's verdict too) |
 *
 * A judged task (`judge` in the suite, `runner/judge/judge_episode.ts`) is
 * verified by the plan's LLM judge after its program verifier, if it has
 * one, has passed; the judge's calls go through a relay of their own, and
 * every row of the task carries the judge's record (`judge`), whether the
 * judge was asked or an earlier rule decided the row.
 *
 * Under `halt`, an upstream 429 keeps the row scored with stop reason
 * `rate_limited`: censored, never counted as a plain failure (seed 003), and
 * visible in the censoring rate.
 *
 * Stop reason: the relay's (`token_cap`, `step_cap`, `rate_limited`) when it
 * has one, else the sandbox's (`wall_cap`; `error` for a crash, an OOM kill
 * or a non-zero exit), else `completed`; a harness failure is `error`.
 *
 * `tool_calls` is the larger of the forwarded model calls and the tool calls
 * the model's responses asked for, both from the relay's records; nothing
 * in a row comes from the agent's own output.
 *
 * The container gets the plan's agent `env` beside the runner's own
 * variables (`RUNNER_ENV_NAMES`, which a plan cannot name) and runs the
 * plan's agent `command` instead of the image's `CMD` when it names one; a
 * value or argument holding the upstream key is refused (`forbidden_value`,
 * a harness error row).
 *
 * The relay is pinned to the model the runner names to the agent
 * (`LEDGERBENCH_MODEL`: the plan's `agent.model`, or `default` when the plan
 * names none): a call naming another model is refused, never forwarded.
 *
 * @module
 */
import { agentEgressSummary } from "./egress/agent_egress.ts";
import type { Plan, PlannedAgent } from "../analysis/schema/records.ts";
import type { PlannedEpisode } from "./batch_state.ts";
import { effectiveCaps, RUNNER_WALL_MS } from "./effective_caps.ts";
import type { EpisodeDraft } from "./ledger_writer.ts";
import { withEpisodeLog } from "./with_episode_log.ts";
import { workspaceDiff } from "./sandbox/workspace_diff.ts";
import type { EpisodeLogInput } from "./episode_log_store.ts";
import { classifyEpisode, harnessFailureRow, relaySurface, rowBase } from "./episode_row.ts";
import type { EpisodeContext, EpisodeExecutor } from "./run_batch.ts";
import { type Suite, taskPaths } from "../analysis/schema/suite_manifest.ts";
import { type Relay, startRelay } from "./relay/relay.ts";
import { runnerSocketPath } from "./runner_socket_path.ts";
import { type DiskPlace, nameFullDisk } from "./name_full_disk.ts";
import type { Upstream } from "./relay/upstream.ts";
import type { CandidateRun, EpisodeSandbox, RunnerProgram } from "./sandbox/episode_sandbox.ts";
import type { JudgeRecord } from "../analysis/schema/records.ts";
import type { VerifyResult } from "./episode_row.ts";
import {
  judgeEpisode,
  type LoadedJudgeMaterial,
  loadJudgeMaterial,
  unjudgedRecord,
} from "./judge/judge_episode.ts";

/** Options of {@link createEpisodeExecutor}: what every sandbox's episodes share. */
export interface EpisodeExecutorOptions {
  plan: Plan;
  /** SHA-256 of the plan file, recorded in every row. */
  planSha256: string;
  suite: Suite;
  /** The artifact store's root. */
  artifactsRoot: string;
  /** The upstream of each agent. */
  upstream: (agent: PlannedAgent) => Upstream;
  /**
   * The upstream of the plan's LLM judge (issue 14); required when the
   * suite has a judged task.
   */
  judgeUpstream?: Upstream;
  runnerVersion: string;
  /** Frozen digests (`digestTree`) of each task's hidden verifier files. */
  verifierDigests: Record<string, string>;
  /**
   * The runner's temporary directory (run_temp_dir.ts), named by a harness
   * error when its file system is full (`name_full_disk.ts`).
   */
  tempDir?: string;
  /** Default wall cap when neither plan nor task has one; default `RUNNER_WALL_MS` (seed 002). */
  defaultWallMs?: number;
  /**
   * `suite check` only: the runner-owned program each agent id stands for
   * (the oracle, or no change), run in place of an agent. Such an episode
   * makes no model call by design, so the zero-calls rule does not apply and
   * the verifier decides.
   */
  runnerPrograms?: (agentId: string, taskId: string) => RunnerProgram;
}

/**
 * Creates the executor that runs each episode through the skeleton of the
 * module doc in `sandbox`, so that every sandbox writes its rows by the same
 * rules; only what the sandbox describes (`environment.sandbox`, the image
 * digests, its notes) tells the rows of two sandboxes apart.
 *
 * Cost: one relay per episode, plus what the sandbox spends (in Docker: one
 * in-namespace listener, two containers and two tree copies; the engine's
 * container start and removal dominate the harness's own share).
 *
 * @param sandbox where the candidate and the verifier run
 * @param options plan, suite, stores, upstreams, frozen digests
 * @returns the executor for `runBatch`
 */
export function createEpisodeExecutor(
  sandbox: EpisodeSandbox,
  options: EpisodeExecutorOptions,
): EpisodeExecutor {
  const tasks = new Map(options.suite.manifest.tasks.map((task) => [task.task_id, task]));
  // Where a full disk of a harness error may be (issue 24).
  const disks: DiskPlace[] = [
    ...(options.tempDir === undefined
      ? []
      : [{ place: "runner's temporary directory", path: options.tempDir }]),
    { place: "artifact store", path: options.artifactsRoot },
  ];
  const agents = new Map(options.plan.agents.map((agent) => [agent.agent_id, agent]));
  const judgeConfig = options.plan.judge;
  // Each judged task's question, reference and rubric, read once, when its first episode runs,
  // its hidden files checked against the run's frozen digest.
  const materials = new Map<string, Promise<LoadedJudgeMaterial>>();
  const materialOf = (taskId: string) => {
    let material = materials.get(taskId);
    if (material === undefined) {
      material = loadJudgeMaterial(
        taskPaths(options.suite.dir, taskId),
        options.verifierDigests[taskId],
      );
      materials.set(taskId, material);
    }
    return material;
  };
  const runOne = async (
    episode: PlannedEpisode,
    context: EpisodeContext,
  ): Promise<EpisodeDraft> => {
    const task = tasks.get(episode.task_id);
    const agent = agents.get(episode.agent_id);
    if (task === undefined || agent === undefined) {
      throw new Error(
        `Cannot run episode "${episode.episode_id}": task or agent not in the suite/plan`,
      );
    }
    const caps = effectiveCaps(options.plan.caps, task.limits);
    const paths = taskPaths(options.suite.dir, task.task_id);
    const described = sandbox.describeEnvironment(agent, task.task_id);
    const base = rowBase(episode, {
      plan: options.plan,
      caps,
      environment: {
        agent_image_digest: described.agent_image_digest,
        verifier_image_digest: described.verifier_image_digest,
        runner_version: options.runnerVersion,
        sandbox: described.sandbox,
        plan_sha256: options.planSha256,
        ...(described.task_image_digest === undefined ? {} : {
          task_image_digest: described.task_image_digest,
          agent_bundle_digest: described.agent_bundle_digest,
        }),
      },
    });
    const upstream = options.upstream(agent);
    const model = agent.model ?? "default";
    const notes = [...described.notes, ...context.notes];
    if (
      task.judge !== undefined && (judgeConfig === undefined || options.judgeUpstream === undefined)
    ) {
      throw new Error(
        `Task "${task.task_id}" is judged: the plan must name a judge and the run its upstream`,
      );
    }
    const material = task.judge === undefined ? undefined : await materialOf(task.task_id);
    // Every row of a judged task carries the judge's record (issue 14).
    let judgeRecord: JudgeRecord | undefined = material === undefined
      ? undefined
      : unjudgedRecord(material, judgeConfig!);
    const withJudge = (row: EpisodeDraft): EpisodeDraft =>
      judgeRecord === undefined ? row : { ...row, judge: judgeRecord };
    let judgeCalls: EpisodeLogInput["judge"];
    // The episode's log goes beside its artifact, whatever the outcome (issue 8).
    const logSource = {
      root: options.artifactsRoot,
      episode_id: episode.episode_id,
      redact: [
        upstream.key,
        ...(options.judgeUpstream === undefined ? [] : [options.judgeUpstream.key]),
      ],
    };
    let relay: Relay | null = null;
    let closing: Promise<void> | null = null;
    // Once the agent has gone (the sandbox closed its forwarder): close the
    // relay, which removes its socket.
    const close = () => closing ??= (async () => await relay?.close().catch(() => {}))();
    let candidate: CandidateRun;
    const startedAt = new Date().toISOString();
    const clock = performance.now();
    const wallCapMs = caps.wall_ms_cap ?? options.defaultWallMs ?? RUNNER_WALL_MS;
    try {
      relay = await startRelay(await runnerSocketPath("relay"), {
        upstreamBaseUrl: upstream.baseUrl,
        upstreamKind: upstream.kind,
        upstreamKey: upstream.key,
        tokenCap: caps.token_cap,
        stepCap: caps.step_cap,
        maxOutputTokens: options.plan.model_limits?.max_output_tokens ?? null,
        upstreamTimeoutMs: options.plan.upstream_timeout_ms,
        pinnedModel: model,
        allowedProviderFeatures: options.plan.provider_features ?? [],
        wallCapMs,
      });
      candidate = await sandbox.startCandidate({
        episode,
        agent,
        model,
        workspace: paths.workspace,
        artifactsRoot: options.artifactsRoot,
        program: options.runnerPrograms?.(agent.agent_id, task.task_id),
        relaySocket: relay.socketPath,
        forbiddenValues: [upstream.key],
        wallMs: wallCapMs,
        verifier: { dir: paths.verifier, expectedDigest: options.verifierDigests[task.task_id] },
        signal: context.signal,
        onExited: close,
      });
    } catch (error) {
      await close();
      const records = relay === null ? null : relay.records();
      const wallMs = performance.now() - clock;
      const row = withJudge(harnessFailureRow(base, {
        notes,
        records,
        error: nameFullDisk(error, disks),
        wallMs,
        startedAt,
        modelLimits: options.plan.model_limits,
      }));
      return await withEpisodeLog(row, {
        ...logSource,
        stdoutTail: null,
        stderrTail: null,
        records,
        bodies: relay === null ? null : relay.callBodies(),
        denied: relay?.denied(),
      });
    }
    await close();
    const artifact = candidate.artifact;
    // The program verifier's output, for the episode log (issue 22).
    let verifierLog: EpisodeLogInput["verifier"];
    const runVerifier = async () => {
      const result = await sandbox.runVerifier({
        episode,
        artifact: artifact!,
        verifierDir: paths.verifier,
        expectedVerifierDigest: options.verifierDigests[task.task_id],
        signal: context.signal,
      });
      if (result.output !== undefined && result.verification !== undefined) {
        verifierLog = {
          mode: result.verification.mode,
          stdoutTail: result.output.stdout_tail,
          stderrTail: result.output.stderr_tail,
          changes: result.output.changes,
          processes: result.output.processes,
          egress: result.output.egress,
        };
      }
      return result;
    };
    const verify = async (): Promise<VerifyResult> => {
      if (task.judge === undefined || material === undefined) return await runVerifier();
      // With the program's verdict first, the row records how the program verifier ran.
      let programRecord: Pick<VerifyResult, "verification"> = {};
      if (task.judge.with_program) {
        const program = await runVerifier();
        if (program.kind === "fault" || !program.resolved) return program;
        if (program.verification !== undefined) {
          programRecord = { verification: program.verification };
        }
      }
      const judged = await judgeEpisode({
        judge: task.judge,
        material,
        artifactDir: artifact!.dir,
        config: judgeConfig!,
        upstream: options.judgeUpstream!,
        upstreamTimeoutMs: options.plan.upstream_timeout_ms,
      });
      judgeRecord = judged.record;
      judgeCalls = judged.calls;
      return { ...judged.result, ...programRecord };
    };
    const row = withJudge(
      await classifyEpisode({
        base,
        plan: options.plan,
        notes,
        records: relay.records(),
        relayStop: relay.stopReason(),
        surface: relaySurface(relay.totals()),
        expectedModelIds: upstream.expectedModelIds,
        runnerProgram: options.runnerPrograms !== undefined,
        candidate: {
          stopReason: candidate.stopReason,
          exitCode: candidate.exitCode,
          oomKilled: candidate.oomKilled,
          wallMs: candidate.wallMs,
          startedAt: candidate.startedAt,
          finishedAt: candidate.finishedAt,
          stdoutTail: candidate.stdoutTail,
          artifactDigest: artifact?.digest ?? null,
          artifactError: candidate.artifactError,
        },
        verify: () =>
          verify().catch((error) => {
            throw nameFullDisk(error, disks);
          }),
      }),
    );
    // What the candidate changed (issue 25), when its start is the suite's workspace directory.
    const workspaceChanges = artifact === null || described.task_image_digest !== undefined
      ? undefined
      : await workspaceDiff(paths.workspace, artifact.dir).catch(() => undefined);
    const egress = candidate.agentEgress;
    return await withEpisodeLog(
      egress === undefined ? row : { ...row, agent_egress: agentEgressSummary(egress) },
      {
        ...logSource,
        workspaceDiff: workspaceChanges,
        agentEgress: egress,
        stdoutTail: candidate.stdoutTail,
        stderrTail: candidate.stderrTail,
        records: relay.records(),
        bodies: relay.callBodies(),
        denied: relay.denied(),
        judge: judgeCalls,
        verifier: verifierLog,
      },
    );
  };
  // Whatever the episode left running ends with it, verified or not (issue 22).
  return async (episode: PlannedEpisode, context: EpisodeContext): Promise<EpisodeDraft> => {
    try {
      return await runOne(episode, context);
    } finally {
      await sandbox.endEpisode?.(episode).catch(() => {});
    }
  };
}
