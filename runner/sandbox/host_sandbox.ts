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
 * the verifier runs the sealed protocol written once for every backend
 * (`runSealedVerifier`, seed 000 §03–04: the hidden verifier files copied
 * only after the candidate exits and checked against the digest frozen for
 * the run before and after, the artifact's manifest and its read-only view
 * checked before and after, the verdict read from the channel and
 * classified by the same rules, with the same verification record and
 * output), and the episode's log is stored beside the artifact. What does
 * not: no network isolation, no read-only root, no capability drop, no pids
 * or memory limit, nothing keeps candidate code the verifier runs from the
 * channel or the hidden copy; the verifier's driver (`setup.sh`, then
 * `verify.sh`, with `sh`) runs on the host too.
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
import { refuseForbiddenValues } from "./forbidden_values.ts";
import { killDescendants } from "./_kill_descendants.ts";
import { removeTree } from "./remove_tree.ts";
import { tailText } from "./tail_text.ts";
import {
  type CandidateRequest,
  type CandidateRun,
  type EpisodeSandbox,
  relayEnvironment,
  type VerifierRequest,
} from "./episode_sandbox.ts";
import {
  runSealedVerifier,
  type SealedDriver,
  type SealedDriverRun,
  verifierResult,
} from "./sealed_verifier.ts";
import { VERIFIER_LIMITS } from "./sandbox_limits.ts";
import type { ProcessEnd } from "./process_end.ts";

/** Options of {@link createHostSandbox}. */
export interface HostSandboxOptions {
  /** Agent id → argv of its host command. */
  commands: Record<string, readonly string[]>;
  /** Directory for the workspace copies and the verifier's files; default the system temp dir. */
  tempDir?: string;
  /** Verifier wall cap; default `VERIFIER_LIMITS.wallMs`. */
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
    const env = {
      // The plan's agent env first: the runner's own variables below always win.
      ...agent.env,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: `${temp}/home`,
      ...relayEnvironment(listening.port, request.model),
      LEDGERBENCH_WORKSPACE: workspace,
      LEDGERBENCH_TASK_FILE: `${workspace}/TASK.md`,
    };
    const argv = options.commands[agent.agent_id];
    await refuseForbiddenValues({ env, argv, workspace }, request.forbiddenValues);
    const run = await runHost(argv, workspace, env, request.wallMs, request.signal);
    await closeForwarder();
    await request.onExited();
    // The Docker sandbox's rule: an unstorable workspace is the candidate's scored failure.
    const stored = await storeWorkspace(workspace, request.artifactsRoot, storeLimits());
    return {
      stopReason: run.wallCapHit
        ? "wall_cap"
        : run.exitCode !== 0 || run.aborted
        ? "error"
        : "completed",
      exitCode: run.exitCode,
      oomKilled: false,
      wallMs: run.wallMs,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      stdoutTail: tailText(run.stdout, TAIL_BYTES),
      stderrTail: tailText(run.stderr, TAIL_BYTES),
      ...stored,
    };
  } finally {
    await closeForwarder();
    await removeTree(temp);
  }
}

/** Bytes kept from the end of a host process's stdout and of its stderr. */
const TAIL_BYTES = 65536;

/** How one host process ended, and its whole output. */
interface HostRun extends ProcessEnd {
  stdout: Uint8Array<ArrayBuffer>;
  stderr: Uint8Array<ArrayBuffer>;
}

/**
 * Runs one host process with exactly `env`, stdin closed; at `wallMs`, or
 * when `signal` aborts (already or later), it is killed with what it
 * started that is still its descendant.
 */
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
  let killedBy: "wall" | "abort" | null = null;
  const kill = (by: "wall" | "abort") => {
    killedBy ??= by;
    void killDescendants(child.pid);
  };
  const timer = setTimeout(() => kill("wall"), wallMs);
  const onAbort = () => kill("abort");
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const output = await child.output();
  clearTimeout(timer);
  signal?.removeEventListener("abort", onAbort);
  return {
    exitCode: output.code,
    wallCapHit: killedBy === "wall",
    aborted: killedBy === "abort",
    stdout: output.stdout,
    stderr: output.stderr,
    wallMs: performance.now() - clock,
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

/**
 * Runs the sealed verifier (`runSealedVerifier`) with the host's driver,
 * against the artifact's view; its outcome as the Docker sandbox gives it
 * (`verifierResult`: the verdict or fault with the sealed record and the
 * output tails).
 */
async function runHostVerifier(
  request: VerifierRequest,
  options: HostSandboxOptions,
): Promise<VerifyResult> {
  const outcome = await runSealedVerifier(
    {
      artifact: request.artifact,
      verifierDir: request.verifierDir,
      expectedVerifierDigest: request.expectedVerifierDigest,
    },
    hostDriver(options.tempDir),
    {
      wallMs: options.verifierWallMs ?? VERIFIER_LIMITS.wallMs,
      signal: request.signal,
      tempDir: options.tempDir,
    },
  );
  return verifierResult(outcome);
}

/**
 * The host's {@link SealedDriver}: what `containers/verifier/driver.sh` does
 * in the verifier's container, as host processes under one wall cap:
 * `setup.sh` (when present) with `sh`, its output to stderr, `setup-failed N`
 * in `stages` when it fails (exit 97); then `verify.sh` with `sh`, its stdout
 * to `verify.out`, `verify-exited N` (a missing one: `missing-entry`, exit
 * 98). Seed 000's contract only: the host runs no `verify.ts`, no task entry
 * and no reward file. Each runs in a scratch directory of its own with
 * `LEDGERBENCH_ARTIFACT` (the workspace view), `LEDGERBENCH_HIDDEN`,
 * `LEDGERBENCH_SCRATCH`, `PATH` and `HOME` (the scratch).
 */
function hostDriver(tempDir: string | undefined): SealedDriver {
  return {
    imageId: "",
    async run({ hidden, workspace, channel, wallMs, signal, env }): Promise<SealedDriverRun> {
      const scratch = await Deno.makeTempDir({ dir: tempDir, prefix: "ledgerbench-host-" });
      const environment = {
        ...env,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: scratch,
        LEDGERBENCH_ARTIFACT: workspace,
        LEDGERBENCH_HIDDEN: hidden,
        LEDGERBENCH_SCRATCH: scratch,
      };
      const clock = performance.now();
      const stderr: Uint8Array<ArrayBuffer>[] = [];
      let killed: Pick<ProcessEnd, "wallCapHit" | "aborted"> = {
        wallCapHit: false,
        aborted: false,
      };
      const step = async (argv: readonly string[]) => {
        const left = wallMs - (performance.now() - clock);
        const run = await runHost(argv, scratch, environment, left, signal);
        stderr.push(run.stderr);
        killed = run;
        return run;
      };
      const stage = (line: string) =>
        Deno.writeTextFile(`${channel}/stages`, `${line}\n`, { append: true });
      const ended = async (exitCode: number): Promise<SealedDriverRun> => ({
        exitCode,
        oomKilled: false,
        wallCapHit: killed.wallCapHit,
        aborted: killed.aborted,
        wallMs: performance.now() - clock,
        stdout: new Uint8Array(),
        stderr: new Uint8Array(await new Blob(stderr).arrayBuffer()),
        containerId: null,
      });
      try {
        if (await isFile(`${hidden}/setup.sh`)) {
          await stage("setup");
          const setup = await step(["sh", "-c", 'exec sh "$0" 1>&2', `${hidden}/setup.sh`]);
          if (killed.wallCapHit || killed.aborted) return await ended(setup.exitCode);
          if (setup.exitCode !== 0) {
            await stage(`setup-failed ${setup.exitCode}`);
            return await ended(97);
          }
        }
        if (!(await isFile(`${hidden}/verify.sh`))) {
          await stage("missing-entry");
          stderr.push(new TextEncoder().encode("driver: the hidden files hold no verify.sh\n"));
          return await ended(98);
        }
        await stage("verify");
        const verify = await step(["sh", `${hidden}/verify.sh`]);
        await Deno.writeFile(`${channel}/verify.out`, verify.stdout);
        if (!killed.wallCapHit && !killed.aborted) await stage(`verify-exited ${verify.exitCode}`);
        return await ended(verify.exitCode);
      } finally {
        await removeTree(scratch);
      }
    },
  };
}

/** Whether `path` is a regular file (followed through links, as `[ -f ]` does). */
async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
