/**
 * Private: the candidate workspace's own size-limited file system, a size
 * and a file-count limit enforced while the candidate runs (seed 000:
 * nothing the candidate writes may reach the host's resources).
 *
 * @module
 */
import { SandboxError } from "./sandbox_error.ts";
import type { SandboxSession } from "./sandbox_session.ts";
import { ownerOf } from "./_owner_of.ts";
import { CANDIDATE_LIMITS } from "./sandbox_limits.ts";

/** The limits of one workspace file system. */
export interface QuotaLimits {
  /** `size=`: bytes of file data. */
  bytes: number;
  /** `nr_inodes=`: files, directories and symlinks (the root included), and hard links. */
  inodes: number;
}

async function run(args: string[]): Promise<string | null> {
  const out = await new Deno.Command(args[0], { args: args.slice(1), stderr: "piped" }).output();
  return out.success ? null : new TextDecoder().decode(out.stderr).trim();
}

/**
 * Mounts a tmpfs with the limits at `dir` (an empty directory), owned by
 * `owner` with mode 0700, `nosuid,nodev`. A write past either limit fails
 * with ENOSPC inside the container, whatever writes it; the pages written
 * from inside the container are charged to its memory cgroup.
 *
 * @param dir the mount point (created by the caller)
 * @param limits `bytes` and `inodes`
 * @param owner `"<uid>:<gid>"` of the file system's root
 * @throws {SandboxError} `workspace_failed` when `mount` fails (it needs root)
 */
export async function mountQuota(dir: string, limits: QuotaLimits, owner: string): Promise<void> {
  const [uid, gid] = owner.split(":");
  const options =
    `size=${limits.bytes},nr_inodes=${limits.inodes},mode=0700,uid=${uid},gid=${gid},nosuid,nodev`;
  const problem = await run(["mount", "-t", "tmpfs", "-o", options, "ledgerbench-workspace", dir]);
  if (problem !== null) {
    throw new SandboxError(
      "workspace_failed",
      `Cannot mount the candidate's workspace file system at "${dir}": ${problem}`,
    );
  }
}

/**
 * Unmounts the workspace file system (its content is gone with it); lazily
 * when a process still holds it, so that the mount never outlives the episode.
 *
 * @param dir the mount point
 * @throws {SandboxError} `workspace_failed` when even the lazy unmount fails
 */
export async function unmountQuota(dir: string): Promise<void> {
  if (await run(["umount", dir]) === null) return;
  const problem = await run(["umount", "--lazy", dir]);
  if (problem !== null) {
    throw new SandboxError(
      "workspace_failed",
      `Cannot unmount the candidate's workspace file system at "${dir}": ${problem}`,
    );
  }
}

/**
 * Makes `quota` (inside a fresh directory of the runner's) the candidate's
 * workspace file system: its own tmpfs with `CANDIDATE_LIMITS`'
 * `workspaceBytes` and `workspaceInodes`, owned by the runner (seed 000: nothing the
 * candidate writes may reach the host's resources), for every sandbox that copies a workspace in.
 *
 * @param quota the directory to create and mount on
 * @returns the runner's `uid:gid`, which owns it
 * @throws {SandboxError} `workspace_failed` when the mount fails
 */
export async function mountCandidateQuota(quota: string): Promise<string> {
  const owner = await ownerOf(quota.slice(0, quota.lastIndexOf("/")));
  await Deno.mkdir(quota);
  await mountQuota(quota, {
    bytes: CANDIDATE_LIMITS.workspaceBytes,
    inodes: CANDIDATE_LIMITS.workspaceInodes,
  }, owner);
  return owner;
}

/**
 * Why a sandbox's `/workspace` is not a tmpfs (the bind of the runner's
 * quota file system), from the sandbox's own `/proc/self/mountinfo` (read
 * by the runner's busybox inside it, so any backend answers alike); null
 * when it is, or when the file cannot be read (no check possible).
 *
 * @param session the sandbox, before the candidate's code runs in it
 * @returns the problem, or null
 */
export async function workspaceMountProblem(session: SandboxSession): Promise<string | null> {
  const bytes = await session.readFile("/proc/self/mountinfo", MOUNTINFO_BYTES);
  if (bytes === null) return null;
  // Fields: id parent major:minor root mount-point options ... - fstype source super-options
  const line = new TextDecoder().decode(bytes).split("\n")
    .findLast((l) => l.split(" ")[4] === "/workspace");
  if (line === undefined) return "nothing is mounted at /workspace";
  const fstype = line.split(" - ")[1]?.split(" ")[0];
  return fstype === "tmpfs" ? null : `/workspace is a "${fstype}" mount, not the runner's tmpfs`;
}

/** More than any sandbox's mount table takes. */
const MOUNTINFO_BYTES = 1 << 20;
