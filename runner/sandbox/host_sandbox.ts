/**
 * The explicit `--unsandboxed` implementation of {@link EpisodeSandbox}: the
 * candidate runs as a host process. Only used when the operator passes
 * `--unsandboxed` (issue 3: never run a candidate unsandboxed otherwise), and
 * every row it writes records `environment.sandbox: "unsandboxed"`, null
 * image digests, and a note.
 *
 * What still holds (the episode skeleton in `run_episode.ts` is the
 * sandboxed one): the relay on a unix socket holds the key and records the
 * evidence (a forwarder on the host's loopback gives the agent a TCP
 * endpoint), the agent's environment is cleared to a fixed list without the
 * key (plus the plan's agent `env`; the plan's `command` is the image's and
 * plays no part here), the workspace is a copy stored as a content-addressed
 * artifact within the Docker sandbox's workspace limits (`storeWorkspace`:
 * one the candidate made unstorable is its scored failure there and here),
 * the hidden verifier files are copied only after the candidate
 * exits and are checked against the digest frozen for the run before and
 * after, the same classification rules apply, and the episode's log is
 * stored beside the artifact. What does not: no network isolation, no
 * read-only root, no capability drop, no pids or memory limit; the verifier
 * (`setup.sh`, `verify.sh` with `sh`) runs on the host too.
 *
 * Agent contract on the host: the command runs with the workspace copy as
 * its working directory and `LEDGERBENCH_WORKSPACE`, `LEDGERBENCH_TASK_FILE`,
 * `OPENAI_BASE_URL`, `OPENAI_API_KEY` (a dummy), `ANTHROPIC_BASE_URL` (the
 * same forwarder without `/v1`), `ANTHROPIC_API_KEY` (a dummy),
 * `LEDGERBENCH_MODEL`, `PATH` and `HOME` (a temporary directory) in its
 * environment.
 *
 * @module
 */
import type { VerifyResult } from "../episode_row.ts";
import { startForwarder } from "../relay/start_forwarder.ts";
import { storeWorkspace } from "./store_workspace.ts";
import { storeLimits } from "./run_candidate.ts";
import { copyTree } from "./copy_tree.ts";
import { digestTree } from "./digest_tree.ts";
import {
  type CandidateRequest,
  type CandidateRun,
  type EpisodeSandbox,
  relayEnvironment,
  type VerifierRequest,
} from "./episode_sandbox.ts";
import { parseVerdictLine } from "./parse_verdict_line.ts";

/** Options of {@link createHostSandbox}. */
export interface HostSandboxOptions {
  /** Agent id → argv of its host command. */
  commands: Record<string, readonly string[]>;
  /** Directory for the workspace copies and the verifier's files; default the system temp dir. */
  tempDir?: string;
  /** Verifier wall cap; default 120000. */
  verifierWallMs?: number;
}

/** The note every unsandboxed row carries. */
export const UNSANDBOXED_NOTE =
  "UNSANDBOXED: the candidate and the verifier ran as host processes without isolation (--unsandboxed)";

/**
 * Creates the host sandbox (see the module doc for what it does and does
 * not guarantee).
 *
 * @param options the host commands, the temporary directory, the verifier's wall cap
 * @returns the sandbox for `createEpisodeExecutor`
 */
export function createHostSandbox(options: HostSandboxOptions): EpisodeSandbox {
  return {
    describeEnvironment: () => ({
      sandbox: "unsandboxed",
      agent_image_digest: null,
      verifier_image_digest: null,
      notes: [UNSANDBOXED_NOTE],
    }),
    startCandidate: (request) => runHostCandidate(request, options),
    runVerifier: (request) => runHostVerifier(request, options),
  };
}

/**
 * Copies the workspace, listens on the host's loopback for the relay, runs
 * the agent's host command there, and stores the workspace once it exits.
 */
async function runHostCandidate(
  request: CandidateRequest,
  options: HostSandboxOptions,
): Promise<CandidateRun> {
  if (request.program !== undefined) {
    throw new Error("suite check's runner programs run only in the Docker sandbox");
  }
  const { agent } = request;
  const forbidden = request.forbiddenValues.filter((value) => value !== "");
  if (Object.values(agent.env ?? {}).some((v) => forbidden.some((value) => v.includes(value)))) {
    throw new Error(
      `Refusing to start agent "${agent.agent_id}": its plan env holds the upstream key`,
    );
  }
  const temp = await Deno.makeTempDir({ dir: options.tempDir, prefix: "ledgerbench-host-" });
  let forwarder: { close(): Promise<void> } | null = null;
  const closeForwarder = async () => {
    await forwarder?.close().catch(() => {});
    forwarder = null;
  };
  try {
    const listening = await startForwarder({ pid: null, socketPath: request.relaySocket, port: 0 });
    forwarder = listening;
    const workspace = `${temp}/workspace`;
    await copyTree(request.workspace, workspace, { mode: "writable" });
    await Deno.mkdir(`${temp}/home`);
    const run = await runHost(
      options.commands[agent.agent_id],
      workspace,
      {
        // The plan's agent env first: the runner's own variables below always win.
        ...agent.env,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: `${temp}/home`,
        ...relayEnvironment(listening.port, request.model),
        LEDGERBENCH_WORKSPACE: workspace,
        LEDGERBENCH_TASK_FILE: `${workspace}/TASK.md`,
      },
      request.wallMs,
      request.signal,
    );
    await closeForwarder();
    await request.onExited();
    // The Docker sandbox's rule: an unstorable workspace is the candidate's scored failure.
    const stored = await storeWorkspace(workspace, request.artifactsRoot, storeLimits());
    return {
      stopReason: run.killed && !request.signal.aborted
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
      ...stored,
    };
  } finally {
    await closeForwarder();
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", temp] }).output().catch(() => {});
    await Deno.remove(temp, { recursive: true }).catch(() => {});
  }
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
  argv: readonly string[],
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

/**
 * Runs `setup.sh` (when present) then `verify.sh` with `sh` on the host,
 * against the artifact snapshot; the hidden files are copied only now and
 * their copy is checked against the digest frozen for the run before and
 * after.
 */
async function runHostVerifier(
  request: VerifierRequest,
  options: HostSandboxOptions,
): Promise<VerifyResult> {
  const wallMs = options.verifierWallMs ?? 120_000;
  const artifactDir = request.artifact.dir;
  const frozen = request.expectedVerifierDigest;
  const temp = await Deno.makeTempDir({ dir: options.tempDir, prefix: "ledgerbench-host-" });
  const hidden = `${temp}/hidden`;
  const scratch = `${temp}/scratch`;
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: scratch,
    LEDGERBENCH_ARTIFACT: artifactDir,
    LEDGERBENCH_HIDDEN: hidden,
    LEDGERBENCH_SCRATCH: scratch,
  };
  try {
    await copyTree(request.verifierDir, hidden, { mode: "readonly" });
    await Deno.mkdir(scratch, { recursive: true });
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
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", temp] }).output().catch(() => {});
    await Deno.remove(temp, { recursive: true }).catch(() => {});
  }
}
