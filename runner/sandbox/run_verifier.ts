/**
 * The verifier run of one episode, in its own container (seed 000, "验题程序
 * 也单独放进一个容器"): Docker's driver of the sealed protocol
 * (`sealed_verifier.ts`, seed 000 §03–04).
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "../docker/docker_client.ts";
import { imageDigest } from "../docker/image_digest.ts";
import { VERIFIER_KIT_MOUNT } from "./image_bundle.ts";
import { runContainer, sandboxCreateOptions } from "./_run_container.ts";
import { SandboxError } from "./sandbox_error.ts";
import {
  runSealedVerifier,
  type SealedDriver,
  type SealedVerifierOptions,
  type VerifierJob,
  type VerifierOutcome,
} from "./sealed_verifier.ts";
import { VERIFIER_LIMITS } from "./sandbox_limits.ts";

/** Options of {@linkcode runVerifier}: the sealed protocol's, and the container's. */
export interface RunVerifierOptions extends SealedVerifierOptions {
  /**
   * The verifier image's files exported to a host directory (`exportImageBundle`),
   * when `image` is a task's own environment: mounted read-only at
   * {@link VERIFIER_KIT_MOUNT}, and the driver runs from there.
   */
  kitDir?: string;
  /** Labels added to the container. */
  labels?: Record<string, string>;
  /** Client to use; default the shared one. */
  docker?: Docker;
}

/**
 * Verifies a stored artifact by the sealed protocol (`runSealedVerifier`:
 * the hidden files copied only now and checked against their frozen digest,
 * the artifact's manifest and view checked, before and after the run; the
 * verdict read from the channel), its driver run in a separate container:
 * network none, read-only root, no-new-privileges, 256 MB (no swap), half a
 * CPU, a pids limit. As for the candidate (under `--allow-all`),
 * `NetworkDisabled` spares the engine's libnetwork sandbox, and the started
 * container is checked to be alone in its own network namespace.
 *
 * The container's part of keeping the candidate away from the hidden files,
 * the verdict and the question of whether the attempt counts (issue 7,
 * items 1 and 2):
 * - the private copy of the hidden files is mounted read-only at `/verifier`
 *   (and at the task's `mount`), the artifact's view read-only at
 *   `/workspace` (and at the task's `workdir`, the working directory), the
 *   channel read-write at `/ledgerbench/channel` (containers/verifier/driver.sh);
 * - the verifier runs as root with every capability dropped except `SETUID`,
 *   `SETGID` and `KILL`, which `as_candidate.sh` uses to run candidate code as
 *   user nobody and to kill it at its time limit: that code cannot read
 *   `/verifier` (owner-only), write the verifier's `/tmp` or the verdict
 *   channel, open the verifier's descriptors or outlive its call
 *   (containers/verifier/as_candidate.sh); it writes only `/scratch`, a tmpfs
 *   of its own.
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
  const docker = options.docker ?? dockerClient();
  const imageId = await imageDigest(image, { docker });
  if (imageId === null) {
    throw new SandboxError(
      "image_missing",
      `Cannot run the verifier: image "${image}" is not present (images are never pulled; ` +
        `run containers/build_images.sh)`,
    );
  }
  return await runSealedVerifier(job, containerDriver(imageId, docker, options), options);
}

/**
 * Docker's {@link SealedDriver}: the image's `driver.sh` (or the kit's, in a
 * task's own environment) in a container with seed 000's verifier flags.
 */
function containerDriver(
  imageId: string,
  docker: Docker,
  options: RunVerifierOptions,
): SealedDriver {
  const kit = options.kitDir === undefined ? {} : {
    Entrypoint: [
      `${VERIFIER_KIT_MOUNT}/bin/sh`,
      `${VERIFIER_KIT_MOUNT}/opt/ledgerbench/verifier/driver.sh`,
    ],
    Cmd: [],
  };
  return {
    imageId,
    run: ({ hidden, workspace, channel, settings: task, wallMs, signal, env }) =>
      runContainer(
        {
          ...sandboxCreateOptions({
            image: imageId,
            env: {
              ...env,
              ...(options.kitDir === undefined ? {} : { LEDGERBENCH_KIT: VERIFIER_KIT_MOUNT }),
              ...(task.entry === undefined ? {} : { LEDGERBENCH_VERIFIER_ENTRY: task.entry }),
              ...(task.reward === undefined ? {} : { LEDGERBENCH_VERDICT: "reward" }),
            },
            user: "0:0",
            capAdd: ["SETUID", "SETGID", "KILL"],
            workingDir: task.workdir ?? "/tmp",
            labels: { "ledgerbench.role": "verifier", ...options.labels },
            pidsLimit: VERIFIER_LIMITS.pidsLimit,
            memoryBytes: task.memoryBytes ?? VERIFIER_LIMITS.memoryBytes,
            nanoCpus: task.nanoCpus ?? VERIFIER_LIMITS.nanoCpus,
            tmpfsBytes: VERIFIER_LIMITS.tmpfsBytes,
            extraTmpfs: {
              "/scratch": { bytes: VERIFIER_LIMITS.scratchBytes, mode: "1777" },
              // Harbor's verifiers write their reward below /logs/verifier.
              ...(task.reward === undefined
                ? {}
                : { "/logs": { bytes: VERIFIER_LIMITS.scratchBytes, mode: "0755" } }),
            },
            binds: [
              `${hidden}:/verifier:ro`,
              ...(task.mount === undefined ? [] : [`${hidden}:${task.mount}:ro`]),
              `${workspace}:/workspace:ro`,
              ...(task.workdir === undefined ? [] : [`${workspace}:${task.workdir}:ro`]),
              `${channel}:/ledgerbench/channel:rw`,
              ...(options.kitDir === undefined
                ? []
                : [`${options.kitDir}:${VERIFIER_KIT_MOUNT}:ro`]),
            ],
          }),
          ...kit,
        },
        { docker, wallMs, signal },
      ),
  };
}
