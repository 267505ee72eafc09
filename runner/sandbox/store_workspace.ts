/**
 * Storing a candidate's workspace once it has exited, by one rule for every
 * sandbox: within the
 * candidate's workspace limits (`CANDIDATE_LIMITS`: bytes, depth, path
 * length) and its store deadline. A workspace the candidate made
 * unstorable (past the budget, a name that is not UTF-8, too deep, too long
 * a path) is the candidate's doing: no artifact, and the reason, for a
 * scored failure. A missed deadline is the harness's fault. The byte
 * budget is of apparent size (what storing reads); the artifact keeps the
 * workspace's holes (see `copyTree`), so it takes no more
 * of the host's disk than the workspace took of its tmpfs.
 *
 * @module
 */
import { type Artifact, storeArtifact } from "./artifact_store.ts";
import { SandboxError } from "./sandbox_error.ts";

/** The limits a stored workspace is held to (`CANDIDATE_LIMITS`' store fields). */
export interface StoreLimits {
  maxBytes: number;
  maxDepth: number;
  maxPathBytes: number;
  deadlineMs: number;
}

/** The stored workspace, or why the candidate's workspace could not be stored. */
export type StoredWorkspace =
  | { artifact: Artifact; artifactError: null }
  | { artifact: null; artifactError: string };

/** The store's refusals that are the candidate's doing. */
const UNSTORABLE = new Set(["too_large", "unstorable"]);

/**
 * Stores `dir` content-addressed in `artifactsRoot` within `limits`.
 *
 * @param dir the workspace copy the candidate worked in
 * @param artifactsRoot the artifact store's root
 * @param limits the bytes, depth, path length and deadline
 * @returns the artifact, or the reason (paths in it relative to `/workspace`)
 * @throws {SandboxError} `store_deadline` when the deadline passes; any other store failure as is
 */
export async function storeWorkspace(
  dir: string,
  artifactsRoot: string,
  limits: StoreLimits,
): Promise<StoredWorkspace> {
  const deadline = AbortSignal.timeout(limits.deadlineMs);
  try {
    const artifact = await storeArtifact(dir, artifactsRoot, {
      maxBytes: limits.maxBytes,
      maxDepth: limits.maxDepth,
      maxPathBytes: limits.maxPathBytes,
      signal: deadline,
    });
    return { artifact, artifactError: null };
  } catch (error) {
    if (deadline.aborted) {
      throw new SandboxError(
        "store_deadline",
        `Cannot store the candidate's workspace within ${limits.deadlineMs} ms`,
        { cause: error },
      );
    }
    if (!(error instanceof SandboxError && UNSTORABLE.has(error.code))) throw error;
    return { artifact: null, artifactError: error.message.replaceAll(`"${dir}"`, '"/workspace"') };
  }
}
