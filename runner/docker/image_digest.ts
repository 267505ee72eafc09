/**
 * Image identity lookups. Nothing here pulls.
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "./docker_client.ts";
import { engineCall } from "./engine_call.ts";

/** Options of {@linkcode imageDigest}. */
export interface ImageDigestOptions {
  /** Client to use; default the shared one. */
  docker?: Docker;
}

/**
 * The local image ID (`sha256:<hex>`, the digest of the image config) of an
 * image reference. This is the digest a frozen plan records (seed 002: the
 * image digest is part of the frozen environment): it changes whenever the
 * image content or configuration changes, and it is known without a registry.
 *
 * @param ref a name with tag (`ledgerbench/agent-solver:latest`) or an image ID
 * @param options the client
 * @returns the image ID, or null when no such image exists locally (it is never pulled)
 * @throws {Error} when the engine fails for another reason than a missing image
 * @throws {EngineDeadlineError} when the engine does not answer within `ENGINE_DEADLINE_MS`
 */
export async function imageDigest(
  ref: string,
  options: ImageDigestOptions = {},
): Promise<string | null> {
  const docker = options.docker ?? dockerClient();
  try {
    const info = await engineCall(
      `inspect image ${ref}`,
      (abortSignal) => docker.getImage(ref).inspect({ abortSignal } as Docker.ImageInspectOptions),
    );
    return info.Id;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
}
