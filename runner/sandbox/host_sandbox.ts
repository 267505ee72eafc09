/**
 * The explicit `--unsandboxed` implementation of {@link EpisodeSandbox}: the
 * candidate runs as a host process. Only used when the operator passes
 * `--unsandboxed` (seed 000: a candidate runs in its sandbox, never otherwise), and
 * every row it writes records `environment.sandbox: "unsandboxed"`, null
 * image digests, and a note.
 *
 * What still holds (the episode skeleton in `run_episode.ts` is the
 * sandboxed one): the relay on a unix socket holds the key and records the
 * evidence (a forwarder on the host's loopback gives the agent a TCP
 * endpoint), the agent's environment is cleared to a fixed list without the
 * key (plus the plan's agent `env`; the plan's `command` is the image's and
 * plays no part here), the workspace is a copy stored as a content-addressed
 * artifact within the Docker sandbox's workspace limits (one the candidate
 * made unstorable is its scored failure there and here), both run on the
 * host's session (`host_session.ts`: the session seam's primitives on host
 * processes and host paths), the candidate by the candidate protocol
 * written once for every sandbox (`candidate_protocol.ts`: the key check,
 * the forwarder first, the wall cap, the store), the verifier by the sealed
 * protocol written once for every backend
 * (`runSealedVerifier`, seed 000 §03–04: the hidden verifier files copied
 * only after the candidate exits and checked against the digest frozen for
 * the run before and after, the artifact's manifest and its read-only view
 * checked before and after, the verdict read from the channel and
 * classified by the same rules, with the same verification record and
 * output), and the episode's log is stored beside the artifact. What does
 * not: no network isolation, no read-only root, no capability drop, no pids
 * or memory limit, nothing keeps candidate code the verifier runs from the
 * channel or the hidden copy; the verifier's driver (`containers/verifier/driver.sh`,
 * with the host's busybox: `setup.sh`, then `verify.sh`) runs on the host too.
 *
 * Agent contract on the host: the command runs with the workspace copy as
 * its working directory and `LEDGERBENCH_WORKSPACE`, `LEDGERBENCH_TASK_FILE`,
 * `OPENAI_BASE_URL`, `OPENAI_API_KEY` (a dummy), `ANTHROPIC_BASE_URL` (the
 * same forwarder without `/v1`), `ANTHROPIC_API_KEY` (a dummy),
 * `GOOGLE_GEMINI_BASE_URL` (the same again), `GEMINI_API_KEY` (a dummy),
 * `LEDGERBENCH_MODEL`, `PATH` and `HOME` (a temporary directory) in its
 * environment.
 *
 * @module
 */
import type { VerifyResult } from "../episode_row.ts";
import { runCandidateProtocol } from "./candidate_protocol.ts";
import { copyTree } from "./copy_tree.ts";
import { removeTree } from "./remove_tree.ts";
import {
  type CandidateRequest,
  type CandidateRun,
  type EpisodeSandbox,
  relayEnvironment,
  type VerifierRequest,
} from "./episode_sandbox.ts";
import { runSealedVerifier, verifierResult } from "./sealed_verifier.ts";
import { VERIFIER_LIMITS } from "./sandbox_limits.ts";
import { hostSessionBackend, startHostSession } from "./host_session.ts";

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
  let forwarder: { port: number; close(): Promise<void> } | null = null;
  const closeForwarder = async () => {
    await forwarder?.close().catch(() => {});
    forwarder = null;
  };
  try {
    const workspace = `${temp}/workspace`;
    await copyTree(request.workspace, workspace, { mode: "writable" });
    await Deno.mkdir(`${temp}/home`);
    const { result } = await runCandidateProtocol({
      open: () => startHostSession({ cwd: workspace }),
      imageId: "",
      workspace,
      argv: options.commands[agent.agent_id],
      started: async (session) => {
        forwarder = await session.forwardPort(0, request.relaySocket);
        return {
          // The plan's agent env first: the runner's own variables below always win.
          ...agent.env,
          HOME: `${temp}/home`,
          ...relayEnvironment(forwarder.port, request.model),
          LEDGERBENCH_WORKSPACE: workspace,
          LEDGERBENCH_TASK_FILE: `${workspace}/TASK.md`,
        };
      },
      forbiddenValues: request.forbiddenValues,
      wallMs: request.wallMs,
      signal: request.signal,
      keepAlive: false,
      onExited: async () => {
        await closeForwarder();
        await request.onExited();
      },
      artifactsRoot: request.artifactsRoot,
    });
    return result;
  } finally {
    await closeForwarder();
    await removeTree(temp);
  }
}

/**
 * Runs the sealed verifier (`runSealedVerifier`) on the host's sessions,
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
    { backend: hostSessionBackend(), imageId: "" },
    {
      wallMs: options.verifierWallMs ?? VERIFIER_LIMITS.wallMs,
      signal: request.signal,
      tempDir: options.tempDir,
    },
  );
  return verifierResult(outcome);
}
