/**
 * One candidate episode in its sandbox (seed 000, "为什么要关进断网容器").
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type Docker from "dockerode";
import { dockerClient } from "../docker/docker_client.ts";
import { imageDigest } from "../docker/image_digest.ts";
import { type Artifact, storeArtifact } from "./artifact_store.ts";
import { copyTree } from "./copy_tree.ts";
import { removeTree } from "./remove_tree.ts";
import { ownerOf } from "./_owner_of.ts";
import { runContainer, sandboxCreateOptions } from "./_run_container.ts";
import { SandboxError } from "./sandbox_error.ts";
import { tailText } from "./tail_text.ts";

/** One gibibyte. */
const GIB = 1024 ** 3;

/** The candidate sandbox's fixed limits (seed 000's `docker run` flags). */
export const CANDIDATE_LIMITS = {
  /** `--memory 1g`; swap is set equal, so no swap. */
  memoryBytes: GIB,
  /** `--pids-limit 128`. */
  pidsLimit: 128,
  /** Size of the writable tmpfs at `/tmp` (counted in the memory limit). */
  tmpfsBytes: 256 * 1024 ** 2,
  /** Seed 002's per-task wall clock, 300 s. */
  wallMs: 300_000,
} as const;

/** What to run the candidate on, and where its workspace goes. */
export interface CandidateJob {
  /** The task's workspace directory: copied, never modified, mounted at `/workspace`. */
  workspace: string;
  /**
   * Root of the artifact store: after the container exits, the workspace copy
   * is stored there (see `storeArtifact`) and the copy is removed.
   */
  artifactsRoot: string;
}

/** Options of {@linkcode runCandidate}. */
export interface RunCandidateOptions {
  /**
   * The container's environment, added to the image's fixed `ENV` (PATH,
   * HOME=/tmp, DENO_DIR=/tmp/deno, ...); nothing from the runner's own
   * environment is passed. Typically `OPENAI_BASE_URL`, `OPENAI_API_KEY`
   * (a dummy such as `"sandbox"`), `LEDGERBENCH_MODEL`.
   */
  env?: Record<string, string>;
  /**
   * Values that must never enter the sandbox (the upstream key): the run is
   * refused when any environment value or any workspace file contains one.
   */
  forbiddenValues?: readonly string[];
  /** Wall-clock cap in milliseconds; default 300000 (seed 002). */
  wallMs?: number;
  /**
   * Called right after start with the container's init PID on the host, so
   * that the relay forwarder can `nsenter -t <pid> -n` into its network
   * namespace; the wall clock runs meanwhile. Not called when the container
   * exited before its PID could be read. If it throws, the container is
   * killed and `SandboxError` `hook_failed` is thrown.
   */
  onStarted?: (pid: number, containerId: string) => void | Promise<void>;
  /**
   * Called once the candidate has exited (no process of it is left), while
   * the engine removes the container and the workspace is being stored; the
   * runner closes the relay here. `runCandidate` resolves after it; if it
   * throws, `runCandidate` throws that error (after the removal).
   */
  onExited?: () => Promise<void>;
  /** Kills the container when aborted (result `aborted: true`, stop reason `error`). */
  signal?: AbortSignal;
  /** Command replacing the image's `CMD` (tests and benchmarks); default the image's. */
  command?: string[];
  /**
   * `user[:group]` inside the container; default the runner's own uid:gid, so
   * that the workspace copy (owned by the runner) is writable without any
   * capability and the files the agent writes belong to the runner.
   */
  user?: string;
  /** Bytes kept from the end of stdout and of stderr; default 65536. */
  tailBytes?: number;
  /** Largest workspace that is stored; default 1 GiB (see `artifactError`). */
  maxArtifactBytes?: number;
  /** Labels added to the container (e.g. run and episode ids). */
  labels?: Record<string, string>;
  /** Directory for the temporary workspace copy; default the system temp dir. */
  tempDir?: string;
  /** Client to use; default the shared one. */
  docker?: Docker;
}

/** The sandbox's view of one finished candidate episode. */
export interface CandidateResult {
  /** The image ID the container ran (resolved once, before create). */
  imageId: string;
  containerId: string;
  /** Host PID of the container's init process (0 if it exited before inspection). */
  pid: number;
  /** Exit code (137 after a kill). */
  exitCode: number;
  /** `State.OOMKilled`: the memory limit killed a process. */
  oomKilled: boolean;
  /** The runner killed the container at its wall-clock cap. */
  wallCapHit: boolean;
  /** The runner killed the container because `signal` was aborted. */
  aborted: boolean;
  /**
   * The sandbox's stop reason: `wall_cap` when the cap killed it; `error` when
   * aborted, OOM-killed or exited non-zero; else `completed`. The relay's
   * reasons (`token_cap`, `step_cap`, `rate_limited`) take precedence and are
   * merged by the runner.
   */
  stopReason: "completed" | "wall_cap" | "error";
  /** Milliseconds from start to exit, measured on the host. */
  wallMs: number;
  /** ISO times of start and end. */
  startedAt: string;
  finishedAt: string;
  /** Bounded tails of the container's stdout and stderr. */
  stdoutTail: string;
  stderrTail: string;
  /** Forks refused by the pids limit (lower bound; null when unreadable). */
  pidsLimitHits: number | null;
  /** The stored workspace, or null when it could not be stored (see `artifactError`). */
  artifact: Artifact | null;
  /**
   * Why the workspace was not stored: the candidate filled it beyond
   * `maxArtifactBytes` (its own doing: a scored failure, not a harness fault).
   */
  artifactError: string | null;
}

/**
 * Runs one candidate in its sandbox, with exactly seed 000's flags:
 * `--network none --read-only --cap-drop ALL --security-opt
 * no-new-privileges:true --pids-limit 128 --memory 1g` (swap equal to
 * memory), plus a tmpfs `/tmp` and a writable copy of the task workspace at
 * `/workspace` (the original is never touched). The container never sees the
 * runner's environment, the key (checked against `forbiddenValues`) or any
 * hidden verifier file. The wall-clock cap is enforced by the runner (kill),
 * the container is always removed, and the workspace is stored as a
 * content-addressed artifact once the candidate has exited (concurrently with
 * the container's removal, which the result still waits for).
 *
 * The create request also sets the Engine API's `NetworkDisabled`: the
 * engine then leaves the container's network namespace to runc (a fresh one
 * holding only loopback, as `--network none` promises) instead of building a
 * libnetwork sandbox for it, whose `libnetwork-setkey` prestart hook
 * re-executes the dockerd binary on every start (about 0.25 s per container
 * on our machines). Whatever the engine does, every started container is
 * checked to be alone in its own network namespace with only `lo`
 * (`isolation_failed` otherwise). Both need `/proc/<pid>` access, which Deno
 * grants only under `--allow-all` (see `networkIsolationCheckable`); without
 * it the container gets plain `--network none` and no check, as before.
 *
 * Cost: besides the engine's own container start and removal, a few engine
 * round trips, one workspace copy and the artifact store (tens of ms for a
 * small workspace).
 *
 * @param image image reference (name:tag or `sha256:` ID); never pulled
 * @param job the task's `workspace` directory (copied, never modified) and the `artifactsRoot`
 * @param options environment, caps and hooks
 * @returns what happened, with the stored artifact
 * @throws {SandboxError} `image_missing`, `forbidden_value`, `hook_failed`, `engine_error`,
 * `isolation_failed`
 */
export async function runCandidate(
  image: string,
  job: CandidateJob,
  options: RunCandidateOptions = {},
): Promise<CandidateResult> {
  const docker = options.docker ?? dockerClient();
  const env = options.env ?? {};
  const forbidden = (options.forbiddenValues ?? []).filter((v) => v.length > 0);
  for (const [name, value] of Object.entries(env)) {
    if (forbidden.some((secret) => value.includes(secret) || name.includes(secret))) {
      throw new SandboxError(
        "forbidden_value",
        `Refusing to start the candidate: environment variable "${name}" contains a forbidden value`,
      );
    }
  }
  const imageId = await imageDigest(image, { docker });
  if (imageId === null) {
    throw new SandboxError(
      "image_missing",
      `Cannot run the candidate: image "${image}" is not present (images are never pulled; ` +
        `run containers/build_images.sh)`,
    );
  }

  const temp = await Deno.makeTempDir({ dir: options.tempDir, prefix: "ledgerbench-candidate-" });
  try {
    const copy = `${temp}/workspace`;
    await copyTree(job.workspace, copy, { mode: "writable" });
    if (forbidden.length > 0) {
      const leak = await findForbidden(copy, forbidden);
      if (leak) {
        throw new SandboxError(
          "forbidden_value",
          `Refusing to start the candidate: workspace file "${leak}" contains a forbidden value`,
        );
      }
    }
    const tailBytes = options.tailBytes ?? 65536;
    let artifact: Artifact | null = null;
    let artifactError: string | null = null;
    // Runs once the candidate has exited, while the engine removes the container.
    const store = async () => {
      try {
        artifact = await storeArtifact(copy, job.artifactsRoot, {
          maxBytes: options.maxArtifactBytes,
        });
      } catch (error) {
        if (!(error instanceof SandboxError && error.code === "too_large")) throw error;
        artifactError = error.message;
      }
      await removeTree(temp);
    };
    const run = await runContainer(
      sandboxCreateOptions({
        image: imageId,
        command: options.command,
        env,
        user: options.user ?? await ownerOf(temp),
        workingDir: "/workspace",
        labels: { "ledgerbench.role": "candidate", ...options.labels },
        pidsLimit: CANDIDATE_LIMITS.pidsLimit,
        memoryBytes: CANDIDATE_LIMITS.memoryBytes,
        tmpfsBytes: CANDIDATE_LIMITS.tmpfsBytes,
        binds: [`${copy}:/workspace:rw`],
      }),
      {
        docker,
        wallMs: options.wallMs ?? CANDIDATE_LIMITS.wallMs,
        onStarted: options.onStarted,
        onExited: async () => {
          const settled = await Promise.allSettled([store(), options.onExited?.()]);
          for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
        },
        signal: options.signal,
      },
    );
    const stopReason = run.wallCapHit
      ? "wall_cap"
      : run.aborted || run.oomKilled || run.exitCode !== 0
      ? "error"
      : "completed";
    return {
      imageId,
      containerId: run.containerId,
      pid: run.pid,
      exitCode: run.exitCode,
      oomKilled: run.oomKilled,
      wallCapHit: run.wallCapHit,
      aborted: run.aborted,
      stopReason,
      wallMs: run.wallMs,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      stdoutTail: tailText(run.stdout, tailBytes),
      stderrTail: tailText(run.stderr, tailBytes),
      pidsLimitHits: run.pidsLimitHits,
      artifact,
      artifactError,
    };
  } finally {
    await removeTree(temp);
  }
}

/** The relative path of the first regular file containing a forbidden value, or null. */
async function findForbidden(dir: string, values: readonly string[]): Promise<string | null> {
  const needles = values.map((v) => Buffer.from(v, "utf8"));
  async function visit(abs: string, rel: string): Promise<string | null> {
    for await (const entry of Deno.readDir(abs)) {
      const childAbs = `${abs}/${entry.name}`;
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory) {
        const found = await visit(childAbs, childRel);
        if (found) return found;
      } else if (entry.isFile) {
        const bytes = Buffer.from(await Deno.readFile(childAbs));
        if (needles.some((needle) => bytes.includes(needle))) return childRel;
      }
    }
    return null;
  }
  return await visit(dir, "");
}
