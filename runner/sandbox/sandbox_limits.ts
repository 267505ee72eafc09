/**
 * The sandbox seam's limits, in one place: what each sandbox a protocol
 * starts may use (seed 000's `docker run` flags for the candidate and the
 * verifier, seed 002's 300 s per task, the task environment's larger
 * allowances for Harbor's tasks). Protocols and backends read them here;
 * a task's own settings (`task_settings.ts`) may replace the memory, CPUs,
 * wall caps and storage.
 *
 * @module
 */

/** One mebibyte. */
const MIB = 1024 ** 2;

/**
 * The candidate sandbox's fixed limits: seed 000's `docker run` flags, and
 * the workspace's limits, enforced while the candidate runs (its tmpfs) and
 * checked when it is stored (`store_workspace.ts`).
 */
export const CANDIDATE_LIMITS = {
  /** `--memory 1g`; swap is set equal, so no swap. */
  memoryBytes: 1024 * MIB,
  /** `--pids-limit 128`. */
  pidsLimit: 128,
  /** Size of the writable tmpfs at `/tmp` (counted in the memory limit). */
  tmpfsBytes: 256 * MIB,
  /**
   * Bytes of file data in `/workspace`: its own tmpfs (`size=`), mounted by
   * the runner on the host, so a write past it fails with ENOSPC inside the
   * sandbox and nothing reaches the host's disk. What the candidate writes
   * there is charged to its memory limit, like `/tmp`: 512 MiB + 256 MiB
   * full still leaves 256 MiB of the 1 GiB for its processes. Also the
   * largest workspace stored (a sparse or hard-linked file can exceed it in
   * apparent size: `too_large`, the candidate's scored failure).
   */
  workspaceBytes: 512 * MIB,
  /**
   * Inodes of `/workspace`'s tmpfs (`nr_inodes=`): every file, directory,
   * symlink and hard link, the tmpfs root and the workspace directory
   * included; one past it fails with ENOSPC. It bounds the harness's work
   * after the candidate exits: storing 10,000 empty files takes about 3 s on
   * our 2-core machine (200,000 took 305-457 s before the limit).
   */
  workspaceInodes: 10_000,
  /**
   * Deepest entry stored (one directly in `/workspace` has depth 1); deeper is
   * an unstorable workspace, refused by rule long before PATH_MAX (4096 bytes).
   */
  workspaceDepth: 64,
  /** Longest relative path stored, in UTF-8 bytes; longer is an unstorable workspace. */
  workspacePathBytes: 1024,
  /**
   * Deadline for storing a workspace within the limits (digest, copy,
   * digest of the copy): about 20 times the cost of the largest one. Missed,
   * it is a harness fault (`store_deadline`), never the candidate's.
   */
  storeDeadlineMs: 60_000,
  /** Seed 002's per-task wall clock, 300 s. */
  wallMs: 300_000,
} as const;

/**
 * The verifier sandbox's limits: seed 000's 256 MB and half a CPU. The
 * protocol applies the wall cap and the files deadline; a backend that
 * isolates (Docker) enforces the rest.
 */
export const VERIFIER_LIMITS = {
  /** 256 MiB; swap set equal, so no swap. */
  memoryBytes: 256 * 1024 ** 2,
  /** Half a CPU. */
  nanoCpus: 500_000_000,
  pidsLimit: 64,
  /** Size of the verifier's own tmpfs at `/tmp` (counted in the memory limit). */
  tmpfsBytes: 64 * 1024 ** 2,
  /** Size of `/scratch`, the tmpfs candidate code run by the verifier may write (counted too). */
  scratchBytes: 64 * 1024 ** 2,
  /** Default wall-clock cap of one verification. */
  wallMs: 120_000,
  /**
   * Deadline of the verifier's file work on each side of the run (digests and
   * copies of the hidden files and of the artifact, which is within the
   * candidate's workspace limits): missing it is the harness's fault
   * (`store_deadline`), never the candidate's.
   */
  filesDeadlineMs: 60_000,
} as const;

/** A task environment's pids limit: a package install forks more than an agent alone. */
export const ENVIRONMENT_PIDS_LIMIT = 512;

/**
 * The disk an agent may fill in its environment's writable layer when the
 * task sets no `storage_mb`: Harbor's own default, 10 GiB.
 */
export const ENVIRONMENT_STORAGE_BYTES = 10_240 * 1024 ** 2;

/** Bytes of archive copied from the candidate's environment into the verifier's, all paths together. */
export const SEPARATE_ARTIFACT_BYTES = 64 * 1024 ** 2;
