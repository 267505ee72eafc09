/**
 * The verifier run of one episode, in its own container (seed 000, "验题程序
 * 也单独放进一个容器"): the sealed protocol (`sealed_verifier.ts`, seed 000
 * §03–04) on a backend's sessions, the container engine's by default.
 *
 * @module
 */
import { dockerClient } from "../docker/docker_client.ts";
import type { SessionBackend } from "./sandbox_session.ts";
import { containerSessionBackend } from "./docker_session.ts";
import { SandboxError } from "./sandbox_error.ts";
import {
  runSealedVerifier,
  type SealedTarget,
  type SealedVerifierOptions,
  type VerifierJob,
  type VerifierOutcome,
} from "./sealed_verifier.ts";

/** Options of {@linkcode runVerifier}: the sealed protocol's, and the container's. */
export interface RunVerifierOptions
  extends SealedVerifierOptions, Pick<SealedTarget, "kitDir" | "labels"> {
  /** Where the verifier's sandbox opens and its image is read; default the container engine. */
  backend?: SessionBackend;
}

/**
 * Verifies a stored artifact by the sealed protocol (`runSealedVerifier`:
 * the hidden files copied only now and checked against their frozen digest,
 * the artifact's manifest and view checked, before and after the run; the
 * verdict read from the channel), its driver run in a container of its own
 * with seed 000's verifier flags (`sealedSessionSpec`); as for every
 * session, the started container is checked to be alone in its own network
 * namespace and to run with its flags.
 *
 * @param image verifier image reference (name:tag or `sha256:` ID); never pulled
 * @param job the artifact, the hidden verifier directory and its frozen digest
 * @param options caps and environment
 * @returns a verdict or a fault, with the run's facts
 * @throws {SandboxError} `image_missing`, `engine_error` or `store_deadline`: harness failures,
 * not verifier faults
 */
export async function runVerifier(
  image: string,
  job: VerifierJob,
  options: RunVerifierOptions = {},
): Promise<VerifierOutcome> {
  const backend = options.backend ?? containerSessionBackend(dockerClient(), options.tempDir);
  const facts = await backend.image(image);
  if (facts === null) {
    throw new SandboxError(
      "image_missing",
      `Cannot run the verifier: image "${image}" is not present (images are never pulled; ` +
        `run containers/build_images.sh)`,
    );
  }
  return await runSealedVerifier(job, {
    backend,
    imageId: facts.id,
    kitDir: options.kitDir,
    labels: options.labels,
  }, options);
}
