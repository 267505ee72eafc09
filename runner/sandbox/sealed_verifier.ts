/**
 * The sealed verifier protocol (seed 000, §03–04: "验题程序也单独放进一个容器",
 * the hidden files copied in only after the candidate exits, and a verifier
 * fault never counted against the candidate), written once for every backend
 * on the session seam (`sandbox_session.ts`): the digests, the copies, the
 * workspace view, the verdict channel, the verifier's sandbox
 * ({@link sealedSessionSpec}: its mounts, its flags and limits) and the
 * classification are here; a backend only opens the session it is asked
 * for. The driver is `containers/verifier/driver.sh` on every backend: in a
 * container (Docker, Podman) the verifier image's copy, or the kit's in a
 * task's own environment; on the operator's `--unsandboxed` host the
 * repository's, on host directories. Harbor's two modes are written once on
 * the same seam (`harbor_verifier.ts`).
 *
 * @module
 */
import type { Verdict, VerificationRecord } from "../../analysis/schema/records.ts";
import { type VerifierOutput, type VerifyResult, verifyResultOf } from "../episode_row.ts";
import { type Artifact, artifactEntries } from "./artifact_store.ts";
import { confinedEntries, escapingLinks } from "./confine_links.ts";
import { copyTree } from "./copy_tree.ts";
import { digestTree, type TreeEntry, treeManifest } from "./digest_tree.ts";
import { parseRewardFiles, type RewardRule, type RewardVerdict } from "./parse_reward_file.ts";
import { parseVerdictLine } from "../../analysis/parse_verdict_line.ts";
import { removeTree } from "./remove_tree.ts";
import { SandboxError } from "./sandbox_error.ts";
import { tailText } from "./tail_text.ts";
import { VERIFIER_LIMITS } from "./sandbox_limits.ts";
import type {
  OpenSession,
  SessionBackend,
  SessionExecRun,
  SessionSpec,
} from "./sandbox_session.ts";
import { VERIFIER_KIT_MOUNT } from "./image_bundle.ts";
import { fileURLToPath } from "node:url";

/** What to verify. */
export interface VerifierJob {
  /** The candidate's stored workspace (see `storeArtifact`), given to the driver as a read-only view. */
  artifact: Artifact;
  /**
   * The task's hidden verifier directory on the host: `verify.sh` or
   * `verify.ts`, optionally `setup.sh`, and any hidden files. A fresh
   * owner-only copy is made now and given to the driver.
   */
  verifierDir: string;
  /** The digest frozen in the plan (see `digestTree`); checked before the run when given. */
  expectedVerifierDigest?: string;
}

/**
 * How a task's own verifier runs (the suite manifest's `verifier`,
 * `workdir` and `resources`); every field absent: the driver's
 * `verify.sh`/`verify.ts`, verdict by its JSON line, seed 000's limits.
 */
export interface VerifierTaskSettings {
  /** The entry point inside the hidden files, executed directly. */
  entry?: string;
  /** Harbor's reward file instead of the JSON line, with its rule. */
  reward?: RewardRule;
  /** A second path the hidden files appear at (Harbor: `/tests`). */
  mount?: string;
  /** A second path the workspace appears at, and the verifier's working directory. */
  workdir?: string;
  /** Memory in bytes (no swap) and CPUs in nano-CPUs, replacing seed 000's. */
  memoryBytes?: number;
  nanoCpus?: number;
}

/**
 * Why a verification produced no verdict. Each one makes the episode invalid
 * (`verifier_fault`), never a candidate failure (seed 000, the 89-point
 * incident):
 * - `hidden_files_changed`: the hidden verifier files differ from the frozen
 *   digest, or changed between before and after the run;
 * - `artifact_changed`: the stored artifact's manifest does not hash to its
 *   digest, or the workspace given to the verifier differs from the view
 *   that manifest describes, before or after the run;
 * - `setup_failed`: the verifier's `setup.sh` exited non-zero;
 * - `entry_missing`: neither `verify.sh` nor `verify.ts` exists;
 * - `crashed`: the verifier exited non-zero;
 * - `out_of_memory`: the 256 MB limit killed it;
 * - `timeout`: the wall cap (or an abort) killed it;
 * - `verdict_missing`: exit 0 but no last stdout line;
 * - `verdict_malformed`: the last stdout line is not a valid `Verdict`.
 *
 * Each is read from the verdict channel, which candidate code cannot write
 * (see {@linkcode runSealedVerifier}).
 */
export type VerifierFaultCode =
  | "hidden_files_changed"
  | "artifact_changed"
  | "setup_failed"
  | "entry_missing"
  | "crashed"
  | "out_of_memory"
  | "timeout"
  | "verdict_missing"
  | "verdict_malformed";

/** Facts recorded for every verification, with or without a verdict. */
export interface VerifierRunInfo {
  /** The verifier image ID that ran ({@link SealedTarget.imageId}; empty when no image runs). */
  imageId: string;
  /** Null when no container ran (a digest check failed first, or the driver runs none). */
  containerId: string | null;
  exitCode: number | null;
  /** Milliseconds from start to exit on the host; null when not started. */
  wallMs: number | null;
  stdoutTail: string;
  stderrTail: string;
  /** Digest of the hidden verifier files as found on the host before the run. */
  verifierDigest: string;
  /** Digest of the artifact verified. */
  artifactDigest: string;
}

/**
 * What the sealed verifier's run leaves for the row and the episode log,
 * set once the driver has run: how it ran (mode `sealed`, and
 * the reward file as read when the task's verdict is by reward file), and
 * its output: its stdout as the verdict channel kept it (the driver sends
 * the verifier's stdout there; else the driver's own) and the driver's
 * stderr, each its last 64 KiB. Diagnostics: nothing here is parsed for the
 * verdict. Absent on a fault found before the run (a changed hidden file, a
 * changed artifact).
 */
export interface VerifierRecordParts {
  verification?: VerificationRecord;
  output?: VerifierOutput;
}

/** The outcome: a verdict, or a fault that invalidates the episode. */
export type VerifierOutcome =
  & (
    | ({ kind: "verdict"; verdict: Verdict } & VerifierRunInfo)
    | ({ kind: "fault"; fault: VerifierFaultCode; detail: string } & VerifierRunInfo)
  )
  & VerifierRecordParts;

/** Where the sealed protocol runs its driver. */
export interface SealedTarget {
  /** The backend that opens the verifier's session. */
  backend: SessionBackend;
  /** The image ID the verifier's session runs: the verifier image, or a task's own environment; empty on the host. */
  imageId: string;
  /**
   * The verifier image's files exported to a host directory
   * (`exportImageBundle`), when `imageId` is a task's own environment:
   * mounted read-only at {@link VERIFIER_KIT_MOUNT}, and the driver runs from there.
   */
  kitDir?: string;
  /** Labels of the session, beside its role. */
  labels?: Record<string, string>;
}

/** The host directories the protocol prepared for one run. */
interface PreparedDirs {
  /** The private copy of the hidden files. */
  hidden: string;
  /** The read-only view of the artifact. */
  workspace: string;
  /**
   * The verdict channel, owner-only and empty, which the driver fills as
   * `containers/verifier/driver.sh` documents: `stages` (one marker a line:
   * `setup`, `setup-failed N`, `missing-entry`, `verify`, `verify-exited N`),
   * `verify.out` (the entry's stdout) and, for a verdict by reward file,
   * `reward.txt` and `reward.json`.
   */
  channel: string;
  /** Scratch for a session without a filesystem of its own (a container has its `/scratch`). */
  scratch: string;
}

/** Where the driver finds each prepared directory inside a container's session. */
const CONTAINER_PATHS = {
  hidden: "/verifier",
  workspace: "/workspace",
  channel: "/ledgerbench/channel",
  scratch: "/scratch",
} as const;

/** The driver inside the verifier image, and inside the kit below its mount. */
const DRIVER_PATH = "/opt/ledgerbench/verifier/driver.sh";

/** The repository's driver, which the host runs. */
const HOST_DRIVER = fileURLToPath(
  new URL("../../containers/verifier/driver.sh", import.meta.url),
);

/**
 * The verifier's session in a container (seed 000's verifier flags): the
 * hidden copy read-only at `/verifier` (and at the task's `mount`), the
 * artifact's view read-only at `/workspace` (and at the task's `workdir`,
 * where it starts), the channel read-write at `/ledgerbench/channel`, the
 * kit read-only when a task's own environment runs it; `/scratch` for
 * candidate code (and `/logs` for Harbor's reward) as tmpfs; root with
 * every capability dropped but `SETUID`, `SETGID` and `KILL`, which
 * `as_candidate.sh` uses to run candidate code as user nobody and to kill
 * it at its time limit: that code cannot read `/verifier` (owner-only),
 * write the verifier's `/tmp` or the verdict channel, open the verifier's
 * descriptors or outlive its call (containers/verifier/as_candidate.sh);
 * 256 MB without swap, half a CPU and a pids limit unless the task sets
 * its own memory and CPUs. On the host (no filesystem of its own) the
 * session starts in the scratch directory and has no mounts: the driver is
 * told the host paths instead.
 *
 * @param target the backend, the image and the kit
 * @param dirs the prepared host directories
 * @param task the task's settings
 * @returns the spec for `SessionBackend.open`
 */
export function sealedSessionSpec(
  target: SealedTarget,
  dirs: PreparedDirs,
  task: VerifierTaskSettings,
): SessionSpec {
  const base = {
    role: "verifier",
    image: target.imageId,
    user: "0:0",
    keepCapabilities: ["SETUID", "SETGID", "KILL"],
    pidsLimit: VERIFIER_LIMITS.pidsLimit,
    memoryBytes: task.memoryBytes ?? VERIFIER_LIMITS.memoryBytes,
    nanoCpus: task.nanoCpus ?? VERIFIER_LIMITS.nanoCpus,
    tmpfsBytes: VERIFIER_LIMITS.tmpfsBytes,
    labels: target.labels ?? {},
  } as const;
  if (!target.backend.capabilities.ownFilesystem) {
    return { ...base, mounts: [], cwd: dirs.scratch };
  }
  const at = (host: string, path: string, readOnly: boolean) => ({ host, path, readOnly });
  return {
    ...base,
    cwd: task.workdir ?? "/tmp",
    mounts: [
      at(dirs.hidden, CONTAINER_PATHS.hidden, true),
      ...(task.mount === undefined ? [] : [at(dirs.hidden, task.mount, true)]),
      at(dirs.workspace, CONTAINER_PATHS.workspace, true),
      ...(task.workdir === undefined ? [] : [at(dirs.workspace, task.workdir, true)]),
      at(dirs.channel, CONTAINER_PATHS.channel, false),
      ...(target.kitDir === undefined ? [] : [at(target.kitDir, VERIFIER_KIT_MOUNT, true)]),
    ],
    scratch: {
      [CONTAINER_PATHS.scratch]: { bytes: VERIFIER_LIMITS.scratchBytes, mode: "1777" },
      // Harbor's verifiers write their reward below /logs/verifier.
      ...(task.reward === undefined
        ? {}
        : { "/logs": { bytes: VERIFIER_LIMITS.scratchBytes, mode: "0755" } }),
    },
  };
}

/** How the driver's run ended, with what the session says of it. */
interface DriverRun extends SessionExecRun {
  /** The kernel's OOM killer ended one of the session's processes. */
  oomKilled: boolean;
  /** The container it ran in, or null when none did. */
  containerId: string | null;
}

/**
 * Opens the verifier's session, runs the driver there to its end with the
 * paths, the task's entry and verdict rule in its environment, and ends
 * the session.
 */
async function runDriver(
  target: SealedTarget,
  dirs: PreparedDirs,
  task: VerifierTaskSettings,
  options: SealedVerifierOptions,
): Promise<DriverRun> {
  const own = target.backend.capabilities.ownFilesystem;
  const session: OpenSession = await target.backend.open(sealedSessionSpec(target, dirs, task));
  try {
    const kit = own && target.kitDir !== undefined ? VERIFIER_KIT_MOUNT : "";
    const paths = own ? CONTAINER_PATHS : dirs;
    const run = await session.exec({
      argv: own ? [`${kit}/bin/sh`, `${kit}${DRIVER_PATH}`] : [session.busybox, "sh", HOST_DRIVER],
      env: {
        ...options.env,
        ...(kit === "" ? {} : { LEDGERBENCH_KIT: kit }),
        ...(task.entry === undefined ? {} : { LEDGERBENCH_VERIFIER_ENTRY: task.entry }),
        ...(task.reward === undefined ? {} : { LEDGERBENCH_VERDICT: "reward" }),
        LEDGERBENCH_HIDDEN: paths.hidden,
        LEDGERBENCH_ARTIFACT: paths.workspace,
        LEDGERBENCH_SCRATCH: paths.scratch,
        LEDGERBENCH_CHANNEL: paths.channel,
        // The host cannot run candidate code with fewer rights: its verifiers run it as they are.
        LEDGERBENCH_AS_CANDIDATE: own ? `${kit}/opt/ledgerbench/verifier/as_candidate.sh` : "",
        ...(own ? {} : {
          HOME: dirs.scratch,
          LEDGERBENCH_DRIVER_TMP: dirs.scratch,
          LEDGERBENCH_BUSYBOX: session.busybox,
        }),
      },
      wallMs: options.wallMs ?? VERIFIER_LIMITS.wallMs,
      signal: options.signal,
      tailBytes: options.tailBytes,
    });
    return { ...run, oomKilled: await session.oomKilled(), containerId: session.id };
  } finally {
    await session.end();
  }
}

/** Options of {@linkcode runSealedVerifier}. */
export interface SealedVerifierOptions {
  /** The task's own settings (entry, verdict, mounts, resources). */
  task?: VerifierTaskSettings;
  /** Wall-clock cap in milliseconds; default `VERIFIER_LIMITS.wallMs`. */
  wallMs?: number;
  /** Deadline of the file work on each side of the run; default `VERIFIER_LIMITS.filesDeadlineMs`. */
  filesDeadlineMs?: number;
  /** Extra environment (no secrets: the verifier never needs a key). */
  env?: Record<string, string>;
  /** Bytes kept from the end of the driver's stdout and of its stderr; default 65536. */
  tailBytes?: number;
  /** Kills the driver when aborted (a `timeout` fault). */
  signal?: AbortSignal;
  /** Directory for the temporary copies; default the system temp dir. */
  tempDir?: string;
}

/**
 * The sealed verifier's record: mode `sealed`, the reward file as
 * read and what decided when the verdict is by reward file (all null for a
 * JSON-line verdict, or when no reward was read), no hijacks (nothing the
 * candidate left runs with the sealed verifier), no egress (the sealed
 * verifier has no network).
 *
 * @param reward what the reward files gave; null: a JSON-line verdict, or no reward read
 * @returns the record for the row's `verification`
 * @example
 * ```ts
 * import { sealedVerification } from "./sealed_verifier.ts";
 * import { equal } from "node:assert/strict";
 * equal(sealedVerification(null).mode, "sealed");
 * ```
 */
export function sealedVerification(reward: RewardVerdict | null): VerificationRecord {
  const read = reward?.reward ?? null;
  return {
    mode: "sealed",
    reward: read === null ? null : { ...read.values },
    reward_file: read === null ? null : read.file,
    decided_by: reward?.kind === "verdict" ? reward.decidedBy : null,
    hijacks: [],
    egress_allowed: 0,
    egress_denied: 0,
  };
}

/**
 * The sealed verifier's outcome as the episode skeleton takes it (the
 * `VerifyResult` of `EpisodeSandbox.runVerifier`), whichever the backend:
 * the verdict's `resolved` and failed check names, or the fault and its
 * detail; with its {@link VerifierRecordParts} (a fault found before the run
 * gets the bare sealed record and the driver's output, both empty of any
 * reward).
 *
 * @param outcome what {@linkcode runSealedVerifier} returned
 * @returns the result the row is classified from
 */
export function verifierResult(outcome: VerifierOutcome): VerifyResult {
  const parts = {
    verification: outcome.verification ?? sealedVerification(null),
    output: outcome.output ?? { stdout_tail: outcome.stdoutTail, stderr_tail: outcome.stderrTail },
  };
  return verifyResultOf(outcome, parts);
}

/** Bytes kept from the end of each file of the verdict channel. */
const VERDICT_TAIL_BYTES = 65536;

/**
 * Verifies a stored artifact by seed 000's sealed protocol (§03–04), the
 * backend running only the driver. The hidden verifier files are copied only
 * now, after the candidate has exited, into a fresh owner-only directory;
 * their digest is checked against `expectedVerifierDigest` and against the
 * copy before the run, and again after it. Nothing the candidate wrote can
 * reach the hidden files, the verdict or the question of whether the attempt
 * counts (seed 000, §03–04):
 * - the artifact's manifest must hash to its digest (`artifactEntries`),
 *   and the driver gets a read-only copy of it as a view in which every link
 *   that leaves the workspace is neutralised (see `escapingLinks`: it points
 *   below `/dev/null`, so following it fails and `readlink` shows what it
 *   was); the view's digest is checked against the manifest's, with those
 *   links retargeted, before and after the run (`artifact_changed`);
 * - the verdict and the stage markers travel through the channel, a fresh
 *   owner-only directory the driver alone writes (in Docker, candidate code
 *   the verifier runs as nobody cannot: containers/verifier/as_candidate.sh);
 *   the driver's stdout and stderr are diagnostics, never parsed, and no row
 *   quotes them except a verifier fault's last stderr lines; their tails,
 *   with the verifier's stdout as the channel kept it, go to the episode log
 *   only ({@link VerifierRecordParts}).
 *
 * The verdict is the last non-empty line of the verifier's stdout as the
 * channel holds it, parsed with `Verdict` (or the reward files, by the
 * task's rule), and is accepted only after exit code 0 (also when the
 * kernel's OOM killer ended some process: candidate code the verifier ran
 * may have been that one, and the verdict says what it made of it).
 * Everything else is a fault (see {@linkcode VerifierFaultCode}): seed 000's
 * old runner counted the verifier's exit code 1 in its setup phase as the
 * model's failure, which cost 11 points of a 100-point score.
 *
 * @param job the artifact, the hidden verifier directory and its frozen digest
 * @param target the backend that opens the verifier's session, its image and kit
 * @param options the task's settings, caps and environment
 * @returns a verdict or a fault, with the run's facts
 * @throws {SandboxError} `store_deadline` when the file work misses its deadline, and the
 * backend's own harness failures: never verifier faults
 */
export async function runSealedVerifier(
  job: VerifierJob,
  target: SealedTarget,
  options: SealedVerifierOptions = {},
): Promise<VerifierOutcome> {
  const deadlineMs = options.filesDeadlineMs ?? VERIFIER_LIMITS.filesDeadlineMs;
  const deadlines: AbortSignal[] = [];
  const deadline = () => {
    deadlines.push(AbortSignal.timeout(deadlineMs));
    return deadlines.at(-1)!;
  };
  try {
    return await verify(job, target, options, deadline);
  } catch (error) {
    if (!deadlines.some((signal) => signal.aborted)) throw error;
    throw new SandboxError(
      "store_deadline",
      `Cannot copy and digest the verifier's files within ${deadlineMs} ms`,
      { cause: error },
    );
  }
}

async function verify(
  job: VerifierJob,
  target: SealedTarget,
  options: SealedVerifierOptions,
  deadline: () => AbortSignal,
): Promise<VerifierOutcome> {
  const before = deadline();
  const tailBytes = options.tailBytes ?? 65536;
  const verifierDigest = (await digestTree(job.verifierDir, { signal: before })).digest;
  const info: VerifierRunInfo = {
    imageId: target.imageId,
    containerId: null,
    exitCode: null,
    wallMs: null,
    stdoutTail: "",
    stderrTail: "",
    verifierDigest,
    artifactDigest: job.artifact.digest,
  };
  const fault = (code: VerifierFaultCode, detail: string): VerifierOutcome => ({
    kind: "fault",
    fault: code,
    detail,
    ...info,
  });
  if (job.expectedVerifierDigest && job.expectedVerifierDigest !== verifierDigest) {
    return fault(
      "hidden_files_changed",
      `The hidden verifier files in "${job.verifierDir}" have digest "${verifierDigest}", ` +
        `the plan froze "${job.expectedVerifierDigest}"`,
    );
  }
  let stored: TreeEntry[];
  try {
    stored = await artifactEntries(job.artifact);
  } catch (error) {
    return fault("artifact_changed", (error as Error).message);
  }
  // The copy's digest, checked against this view, vouches for the stored files.
  const escaping = escapingLinks(stored);
  const viewDigest = treeManifest(confinedEntries(stored)).digest;

  const temp = await Deno.makeTempDir({ dir: options.tempDir, prefix: "ledgerbench-verifier-" });
  try {
    // Copied only now: the hidden files never existed anywhere the candidate could see.
    const dirs: PreparedDirs = {
      hidden: `${temp}/verifier`,
      workspace: `${temp}/workspace`,
      channel: `${temp}/channel`,
      scratch: `${temp}/scratch`,
    };
    const { hidden, workspace, channel } = dirs;
    await copyTree(job.verifierDir, hidden, { mode: "private", signal: before });
    await copyTree(job.artifact.dir, workspace, {
      mode: "readonly",
      linkTarget: (path, target) => escaping.get(path) ?? target,
      signal: before,
    });
    await Deno.mkdir(channel, { mode: 0o700 });
    await Deno.chmod(channel, 0o700);
    await Deno.mkdir(dirs.scratch, { mode: 0o700 });
    const hiddenBefore = (await digestTree(hidden, { signal: before })).digest;
    if (hiddenBefore !== verifierDigest) {
      return fault(
        "hidden_files_changed",
        `The copy of the hidden verifier files has digest "${hiddenBefore}", ` +
          `the source has "${verifierDigest}"`,
      );
    }
    const workspaceBefore = (await digestTree(workspace, { signal: before })).digest;
    if (workspaceBefore !== viewDigest) {
      return fault(
        "artifact_changed",
        `The verifier's view of artifact "${job.artifact.digest}" has digest ` +
          `"${workspaceBefore}", expected "${viewDigest}"`,
      );
    }

    const task = options.task ?? {};
    const run = await runDriver(target, dirs, task, { ...options, tailBytes });
    info.containerId = run.containerId;
    info.exitCode = run.exitCode;
    info.wallMs = run.wallMs;
    info.stdoutTail = run.stdoutTail;
    info.stderrTail = run.stderrTail;

    const after = deadline();
    const hiddenAfter = (await digestTree(hidden, { signal: after })).digest;
    if (hiddenAfter !== verifierDigest) {
      return fault(
        "hidden_files_changed",
        `The hidden verifier files changed during the run: "${verifierDigest}" before, ` +
          `"${hiddenAfter}" after`,
      );
    }
    const workspaceAfter = (await digestTree(workspace, { signal: after })).digest;
    if (workspaceAfter !== viewDigest) {
      return fault(
        "artifact_changed",
        `The artifact changed during the run: "${viewDigest}" before, ` +
          `"${workspaceAfter}" after`,
      );
    }
    return classify(run, await readChannel(channel), task.reward, fault, info);
  } finally {
    await removeTree(temp);
  }
}

/** What the verifier wrote to its channel: its stage markers, the tail of its stdout, its reward files. */
interface Channel {
  stages: string[];
  verifyOut: string;
  rewardTxt: string | null;
  rewardJson: string | null;
}

async function readChannel(dir: string): Promise<Channel> {
  const read = async (name: string) => {
    try {
      return tailText(await Deno.readFile(`${dir}/${name}`), VERDICT_TAIL_BYTES);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  };
  const stages = ((await read("stages")) ?? "").split("\n").filter((line) => line !== "");
  return {
    stages,
    verifyOut: (await read("verify.out")) ?? "",
    rewardTxt: await read("reward.txt"),
    rewardJson: await read("reward.json"),
  };
}

function classify(
  run: DriverRun,
  channel: Channel,
  reward: RewardRule | undefined,
  fault: (code: VerifierFaultCode, detail: string) => VerifierOutcome,
  info: VerifierRunInfo,
): VerifierOutcome {
  const lastLines = (n: number) =>
    run.stderrTail.split("\n").filter((l) => l.trim() !== "").slice(-n).join(" | ");
  // The verifier's stdout went to the channel (driver.sh); the driver's own is the fallback.
  const kept: VerifierRecordParts = {
    verification: sealedVerification(null),
    output: { stdout_tail: channel.verifyOut || info.stdoutTail, stderr_tail: info.stderrTail },
  };
  if (run.wallCapHit || run.aborted) {
    return {
      ...fault("timeout", `The verifier was killed at its wall-clock cap: ${lastLines(3)}`),
      ...kept,
    };
  }
  const setup = channel.stages.map((line) => /^setup-failed (\d+)$/.exec(line)).find(Boolean);
  if (setup) {
    return {
      ...fault(
        "setup_failed",
        `The verifier's setup failed with exit code ${setup[1]} before any check ran: ${
          lastLines(3)
        }`,
      ),
      ...kept,
    };
  }
  if (channel.stages.includes("missing-entry")) {
    return {
      ...fault("entry_missing", `The hidden verifier files hold no entry point: ${lastLines(1)}`),
      ...kept,
    };
  }
  const rewarded: RewardVerdict | null = reward === undefined ? null : parseRewardFiles(
    { "reward.txt": channel.rewardTxt, "reward.json": channel.rewardJson },
    reward,
  );
  const parsed = rewarded ?? parseVerdictLine(channel.verifyOut);
  // What the row and the episode log keep of the run, verdict or fault.
  const parts: VerifierRecordParts = { ...kept, verification: sealedVerification(rewarded) };
  if (run.exitCode === 0) {
    if (parsed.kind === "verdict") {
      return { kind: "verdict", verdict: parsed.verdict, ...info, ...parts };
    }
    if (!run.oomKilled) return { ...fault(parsed.fault, parsed.detail), ...parts };
  }
  if (run.oomKilled) {
    return {
      ...fault("out_of_memory", "The verifier was killed by its 256 MB memory limit"),
      ...parts,
    };
  }
  return {
    ...fault(
      "crashed",
      `The verifier exited with code ${run.exitCode} without a verdict: ${lastLines(3)}`,
    ),
    ...parts,
  };
}
