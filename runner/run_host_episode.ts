/**
 * The explicit `--unsandboxed` executor: the candidate runs as a host
 * process. Only used when the operator passes `--unsandboxed` (issue 3: never
 * run a candidate unsandboxed otherwise), and every row it writes records
 * `environment.sandbox: "unsandboxed"`, null image digests, and a note.
 *
 * What still holds: the relay on a unix socket holds the key and records
 * the evidence (a forwarder on the host's loopback gives the agent a TCP
 * endpoint), the agent's environment is cleared to a fixed list without the
 * key (plus the plan's agent `env`; the plan's `command` is the image's and
 * plays no part here), the workspace is a copy stored as a content-addressed artifact, the
 * hidden verifier files are copied only after the candidate exits and are
 * digested before and after, the same classification rules apply, and the
 * episode's log (output tails, call records and bodies) is stored beside the artifact
 * (`with_episode_log.ts`). What
 * does not: no network isolation, no read-only root, no capability drop, no
 * pids or memory limit; the verifier (`setup.sh`, `verify.sh` with `sh`)
 * runs on the host too.
 *
 * Agent contract on the host: the command runs with the workspace copy as
 * its working directory and `LEDGERBENCH_WORKSPACE`, `LEDGERBENCH_TASK_FILE`,
 * `OPENAI_BASE_URL`, `OPENAI_API_KEY` (a dummy), `ANTHROPIC_BASE_URL` (the
 * same forwarder without `/v1`), `ANTHROPIC_API_KEY` (a dummy),
 * `LEDGERBENCH_MODEL`, `PATH`
 * and `HOME` (a temporary directory) in its environment.
 *
 * @module
 */
import type { Plan, PlannedAgent } from "../analysis/schema.ts";
import type { PlannedEpisode } from "./batch_state.ts";
import { effectiveCaps } from "./effective_caps.ts";
import {
  type CandidateFacts,
  classifyEpisode,
  harnessFailureRow,
  relaySurface,
  rowBase,
  type VerifyResult,
} from "./episode_row.ts";
import type { EpisodeDraft } from "./ledger_writer.ts";
import { type Relay, startRelay } from "./relay/relay.ts";
import { type Forwarder, startForwarder } from "./relay/start_forwarder.ts";
import type { EpisodeContext, EpisodeExecutor } from "./run_batch.ts";
import type { Upstream } from "./run_episode.ts";
import { storeArtifact } from "./sandbox/artifact_store.ts";
import { copyTree } from "./sandbox/copy_tree.ts";
import { digestTree } from "./sandbox/digest_tree.ts";
import { parseVerdictLine } from "./sandbox/parse_verdict_line.ts";
import { type Suite, taskPaths } from "./suite_manifest.ts";
import { withEpisodeLog } from "./with_episode_log.ts";

/** Options of {@link createHostExecutor}. */
export interface HostExecutorOptions {
  plan: Plan;
  planSha256: string;
  suite: Suite;
  artifactsRoot: string;
  upstream: (agent: PlannedAgent) => Upstream;
  runnerVersion: string;
  /** Agent id → argv of its host command. */
  commands: Record<string, string[]>;
  tempDir?: string;
  /** Default wall cap; default 300000 (seed 002). */
  defaultWallMs?: number;
  /** Verifier wall cap; default 120000. */
  verifierWallMs?: number;
}

/** The note every unsandboxed row carries. */
export const UNSANDBOXED_NOTE =
  "UNSANDBOXED: the candidate and the verifier ran as host processes without isolation (--unsandboxed)";

/**
 * Creates the host executor (see the module doc for what it does and does
 * not guarantee).
 *
 * @param options plan, suite, store, upstreams, host commands
 * @returns the executor for `runBatch`
 */
export function createHostExecutor(options: HostExecutorOptions): EpisodeExecutor {
  const tasks = new Map(options.suite.manifest.tasks.map((task) => [task.task_id, task]));
  const agents = new Map(options.plan.agents.map((agent) => [agent.agent_id, agent]));
  return async (episode: PlannedEpisode, context: EpisodeContext): Promise<EpisodeDraft> => {
    const task = tasks.get(episode.task_id)!;
    const agent = agents.get(episode.agent_id)!;
    const command = options.commands[agent.agent_id];
    const caps = effectiveCaps(options.plan.caps, task.limits);
    const paths = taskPaths(options.suite.dir, task.task_id);
    const base = rowBase(episode, {
      plan: options.plan,
      caps,
      environment: {
        agent_image_digest: null,
        verifier_image_digest: null,
        runner_version: options.runnerVersion,
        sandbox: "unsandboxed",
        plan_sha256: options.planSha256,
      },
    });
    const notes = [UNSANDBOXED_NOTE, ...context.notes];
    const upstream = options.upstream(agent);
    // The episode's log goes beside its artifact, whatever the outcome (issue 8).
    const logSource = {
      root: options.artifactsRoot,
      episode_id: episode.episode_id,
      redact: [upstream.key],
    };
    let tails: { stdoutTail: string | null; stderrTail: string | null } = {
      stdoutTail: null,
      stderrTail: null,
    };
    const temp = await Deno.makeTempDir({ dir: options.tempDir, prefix: "ledgerbench-host-" });
    let relay: Relay | null = null;
    let forwarder: Forwarder | null = null;
    const startedAt = new Date().toISOString();
    const clock = performance.now();
    try {
      relay = await startRelay(`${temp}/relay.sock`, {
        upstreamBaseUrl: upstream.baseUrl,
        upstreamKind: upstream.kind,
        upstreamKey: upstream.key,
        tokenCap: caps.token_cap,
        stepCap: caps.step_cap,
        maxOutputTokens: options.plan.model_limits?.max_output_tokens ?? null,
        upstreamTimeoutMs: options.plan.upstream_timeout_ms,
        pinnedModel: agent.model ?? "default",
      });
      forwarder = await startForwarder({ pid: null, socketPath: relay.socketPath, port: 0 });
      const workspace = `${temp}/workspace`;
      await copyTree(paths.workspace, workspace, { mode: "writable" });
      await Deno.mkdir(`${temp}/home`);
      if (
        upstream.key !== "" && Object.values(agent.env ?? {}).some((v) => v.includes(upstream.key))
      ) {
        throw new Error(
          `Refusing to start agent "${agent.agent_id}": its plan env holds the upstream key`,
        );
      }
      const facts = await runHostCandidate(
        command,
        workspace,
        {
          // The plan's agent env first: the runner's own variables below always win.
          ...agent.env,
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: `${temp}/home`,
          OPENAI_BASE_URL: `http://127.0.0.1:${forwarder.port}/v1`,
          OPENAI_API_KEY: "sandbox",
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${forwarder.port}`,
          ANTHROPIC_API_KEY: "sandbox",
          LEDGERBENCH_MODEL: agent.model ?? "default",
          LEDGERBENCH_WORKSPACE: workspace,
          LEDGERBENCH_TASK_FILE: `${workspace}/TASK.md`,
        },
        caps.wall_ms_cap ?? options.defaultWallMs ?? 300_000,
        context.signal,
      );
      tails = { stdoutTail: facts.stdoutTail, stderrTail: facts.stderrTail };
      await forwarder.close();
      forwarder = null;
      const artifact = await storeArtifact(workspace, options.artifactsRoot);
      await relay.close();
      const records = relay.records();
      const bodies = relay.callBodies();
      const relayStop = relay.stopReason();
      const surface = relaySurface(relay.totals());
      relay = null;
      const row = await classifyEpisode({
        base,
        plan: options.plan,
        notes,
        records,
        relayStop,
        surface,
        expectedModelIds: upstream.expectedModelIds,
        candidate: { ...facts, artifactDigest: artifact.digest, artifactError: null },
        verify: () =>
          runHostVerifier(
            paths.verifier,
            artifact.dir,
            `${temp}/verify`,
            options.verifierWallMs ?? 120_000,
          ),
      });
      return await withEpisodeLog(row, { ...logSource, ...tails, records, bodies });
    } catch (error) {
      const records = relay === null ? null : relay.records();
      const wallMs = performance.now() - clock;
      const row = harnessFailureRow(base, {
        notes,
        records,
        error,
        wallMs,
        startedAt,
        modelLimits: options.plan.model_limits,
      });
      const bodies = relay === null ? null : relay.callBodies();
      return await withEpisodeLog(row, { ...logSource, ...tails, records, bodies });
    } finally {
      await forwarder?.close().catch(() => {});
      await relay?.close().catch(() => {});
      await Deno.remove(temp, { recursive: true }).catch(() => {});
    }
  };
}

interface HostRun {
  code: number;
  killed: boolean;
  stdout: string;
  stderr: string;
  wallMs: number;
  startedAt: string;
  finishedAt: string;
}

async function runHost(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  wallMs: number,
  signal?: AbortSignal,
): Promise<HostRun> {
  const startedAt = new Date().toISOString();
  const clock = performance.now();
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let killed = false;
  const kill = () => {
    killed = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(kill, wallMs);
  signal?.addEventListener("abort", kill, { once: true });
  const output = await child.output();
  clearTimeout(timer);
  signal?.removeEventListener("abort", kill);
  const decoder = new TextDecoder();
  return {
    code: output.code,
    killed,
    stdout: decoder.decode(output.stdout).slice(-65536),
    stderr: decoder.decode(output.stderr).slice(-65536),
    wallMs: performance.now() - clock,
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

async function runHostCandidate(
  argv: string[],
  workspace: string,
  env: Record<string, string>,
  wallMs: number,
  signal: AbortSignal,
): Promise<Omit<CandidateFacts, "artifactDigest" | "artifactError"> & { stderrTail: string }> {
  const run = await runHost(argv, workspace, env, wallMs, signal);
  return {
    stopReason: run.killed && !signal.aborted
      ? "wall_cap"
      : run.code !== 0 || run.killed
      ? "error"
      : "completed",
    exitCode: run.code,
    oomKilled: false,
    wallMs: run.wallMs,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    stdoutTail: run.stdout,
    stderrTail: run.stderr,
  };
}

/**
 * Runs `setup.sh` (when present) then `verify.sh` with `sh` on the host,
 * against the read-only artifact snapshot; the hidden files are copied only
 * now and their digest is checked before and after.
 */
async function runHostVerifier(
  verifierDir: string,
  artifactDir: string,
  temp: string,
  wallMs: number,
): Promise<VerifyResult> {
  const hidden = `${temp}/hidden`;
  const scratch = `${temp}/scratch`;
  const frozen = (await digestTree(verifierDir)).digest;
  await Deno.mkdir(temp, { recursive: true });
  await copyTree(verifierDir, hidden, { mode: "readonly" });
  await Deno.mkdir(scratch, { recursive: true });
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: scratch,
    LEDGERBENCH_ARTIFACT: artifactDir,
    LEDGERBENCH_HIDDEN: hidden,
    LEDGERBENCH_SCRATCH: scratch,
  };
  try {
    if ((await digestTree(hidden)).digest !== frozen) {
      return {
        kind: "fault",
        fault: "hidden_files_changed",
        detail: "the copy of the hidden files differs",
      };
    }
    const hasSetup = await Deno.stat(`${hidden}/setup.sh`).then(() => true, () => false);
    if (hasSetup) {
      const setup = await runHost(["sh", `${hidden}/setup.sh`], scratch, env, wallMs);
      if (setup.killed) {
        return { kind: "fault", fault: "timeout", detail: "setup.sh hit the wall cap" };
      }
      if (setup.code !== 0) {
        return {
          kind: "fault",
          fault: "setup_failed",
          detail: `setup.sh exited with code ${setup.code}: ${
            setup.stderr.trim().split("\n").slice(-3).join(" | ")
          }`,
        };
      }
    }
    const run = await runHost(["sh", `${hidden}/verify.sh`], scratch, env, wallMs);
    if ((await digestTree(hidden)).digest !== frozen) {
      return {
        kind: "fault",
        fault: "hidden_files_changed",
        detail: "the hidden files changed during the run",
      };
    }
    if (run.killed) {
      return { kind: "fault", fault: "timeout", detail: "verify.sh hit the wall cap" };
    }
    if (run.code !== 0) {
      return {
        kind: "fault",
        fault: "crashed",
        detail: `verify.sh exited with code ${run.code}: ${
          run.stderr.trim().split("\n").slice(-3).join(" | ")
        }`,
      };
    }
    const parsed = parseVerdictLine(run.stdout);
    if (parsed.kind === "fault") return parsed;
    return {
      kind: "verdict",
      resolved: parsed.verdict.resolved,
      failedChecks: parsed.verdict.checks.filter((c) => !c.passed).map((c) => c.name),
    };
  } finally {
    await Deno.chmod(hidden, 0o700).catch(() => {});
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", temp] }).output().catch(() => {});
  }
}
