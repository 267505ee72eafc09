/**
 * The tasks' own environments, prepared before a plan is frozen (issue 12:
 * "Images are built with the local engine before the plan is frozen and
 * their digests go into the plan"). A task's `environment.image` must be
 * present in the local engine; a task's `environment.dockerfile` is built
 * with the legacy builder and nothing pulled: each base image its `FROM`
 * lines name must be present first, and a missing one is an error naming
 * it. Its `RUN` steps get the build network the operator chose (issue 22:
 * building an environment at freeze is the task author's step, taken before
 * any model call, so it may use the engine's network, e.g. for `apt-get
 * install`): `default` is what `docker build` gives without `--network`,
 * `none` forbids the network, `host` or a network's name is passed on as
 * `--network`. The candidate and the verifier later run with `--network
 * none` whatever the build had (seed 000). The agents' bundles (their
 * images' files, mounted into those environments) are exported and
 * digested for the plan too.
 *
 * @module
 */
import { digestTree } from "./sandbox/digest_tree.ts";
import { exportImageBundle } from "./sandbox/image_bundle.ts";
import { removeTree } from "./sandbox/remove_tree.ts";
import { type Suite, type TaskEnvironment, taskPaths } from "../analysis/schema/suite_manifest.ts";
import type { PlannedTask } from "../analysis/schema/records.ts";
import { dockerfileBases } from "../inputs/dockerfile.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { z } from "zod";

/** A task's frozen environment (`PlannedTask.environment`). */
export type FrozenTaskEnvironment = NonNullable<PlannedTask["environment"]>;

/** Resolves an image reference to its local ID; null when absent (never pulls). */
export type ImageLookup = (ref: string) => Promise<string | null>;

/**
 * A build network (issue 22), as `ledgerbench freeze --build-network` takes
 * it: `default` (the engine's default, as `docker build` without
 * `--network`), `none` (no network for the `RUN` steps), `host`, or the name
 * of a Docker network (Docker's rule for names: a letter or digit, then
 * letters, digits, `_`, `.` or `-`).
 */
export const BuildNetwork = z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/);
/** A build network; see {@link BuildNetwork}. */
export type BuildNetwork = z.infer<typeof BuildNetwork>;

/** What {@link BuildNetwork} wants, for the message refusing another value. */
export const BUILD_NETWORK_FORM =
  '"default" (the engine\'s default network), "none", "host" or the name of a Docker network';

/** The build network when none is chosen: the engine's default, as `docker build` does. */
export const DEFAULT_BUILD_NETWORK: BuildNetwork = "default";

/** Options of {@link prepareTaskEnvironments}. */
export interface PrepareTaskEnvironmentsOptions {
  /**
   * The network of the Dockerfile builds' `RUN` steps ({@link BuildNetwork});
   * default {@link DEFAULT_BUILD_NETWORK}.
   */
  buildNetwork?: string;
}

/** A task's environment could not be prepared; the message names the task and the image or file. */
export class TaskEnvironmentError extends Error {
  /** @param message one sentence naming the task and what is missing */
  constructor(message: string) {
    super(message);
    this.name = "TaskEnvironmentError";
  }
}

/**
 * Prepares every task's environment: looks up a named image, or builds a
 * Dockerfile after checking its base images are present. The built tag is
 * `ledgerbench-env/<task_id>:<16 hex>`, the hex of the SHA-256 of the build
 * context's digest and the build network (`<digest>\nbuild-network=<mode>`),
 * so that an unchanged context built the same way reuses its image. The
 * network is in the key because the same context can build differently
 * with and without it (a `RUN` step that downloads, or one that falls back
 * when offline): a context frozen with one network never reuses an image
 * built with the other. For the same reason a build uses no cached layer
 * (`--no-cache`): the legacy builder's cache ignores the network.
 *
 * @param suite the loaded suite
 * @param lookup the image lookup (the engine's, never pulling)
 * @param log a line per build, for the operator
 * @param options the build network ({@link PrepareTaskEnvironmentsOptions})
 * @returns task id → frozen environment, for the tasks that have one
 * @throws {TaskEnvironmentError} naming the task and the missing image or the
 *   failed build (with the build network, and the build's last lines), or a
 *   build network that is not one ({@link BuildNetwork})
 */
export async function prepareTaskEnvironments(
  suite: Suite,
  lookup: ImageLookup,
  log: (line: string) => void = () => {},
  options: PrepareTaskEnvironmentsOptions = {},
): Promise<Record<string, FrozenTaskEnvironment>> {
  const network = checkedNetwork(options);
  const frozen: Record<string, FrozenTaskEnvironment> = {};
  for (const task of suite.manifest.tasks) {
    if (task.environment === undefined) continue;
    frozen[task.task_id] = await prepareOne(
      suite,
      task.task_id,
      task.environment,
      task.task_id,
      lookup,
      log,
      network,
    );
  }
  return frozen;
}

/**
 * Prepares the separate verifiers' own environments (issue 22, Harbor's
 * `[verifier.environment]`, built from the task's `tests/` as Harbor builds
 * it) exactly as {@link prepareTaskEnvironments} prepares the tasks': a
 * named image looked up, a Dockerfile built (tag
 * `ledgerbench-env/<task_id>-verifier:<16 hex>`) with the same build network.
 *
 * @param suite the loaded suite
 * @param lookup the image lookup (the engine's, never pulling)
 * @param log a line per build, for the operator
 * @param options the build network
 * @returns task id → the verifier's frozen environment, for the tasks whose verifier has one
 * @throws {TaskEnvironmentError} as {@link prepareTaskEnvironments}
 */
export async function prepareVerifierEnvironments(
  suite: Suite,
  lookup: ImageLookup,
  log: (line: string) => void = () => {},
  options: PrepareTaskEnvironmentsOptions = {},
): Promise<Record<string, FrozenTaskEnvironment>> {
  const network = checkedNetwork(options);
  const frozen: Record<string, FrozenTaskEnvironment> = {};
  for (const task of suite.manifest.tasks) {
    const environment = task.verifier?.environment;
    if (environment === undefined) continue;
    frozen[task.task_id] = await prepareOne(
      suite,
      task.task_id,
      environment,
      `${task.task_id}-verifier`,
      lookup,
      log,
      network,
    );
  }
  return frozen;
}

/** The options' build network, checked. */
function checkedNetwork(options: PrepareTaskEnvironmentsOptions): string {
  const network = options.buildNetwork ?? DEFAULT_BUILD_NETWORK;
  if (!BuildNetwork.safeParse(network).success) {
    throw new TaskEnvironmentError(`The build network must be ${BUILD_NETWORK_FORM}: "${network}"`);
  }
  return network;
}

/** Looks up or builds one environment of `taskId` (see {@link prepareTaskEnvironments}). */
async function prepareOne(
  suite: Suite,
  taskId: string,
  environment: TaskEnvironment,
  tagName: string,
  lookup: ImageLookup,
  log: (line: string) => void,
  network: string,
): Promise<FrozenTaskEnvironment> {
  if ("image" in environment) {
    const digest = await lookup(environment.image);
    if (digest === null) {
      throw new TaskEnvironmentError(
        `task "${taskId}": environment image "${environment.image}" is not present ` +
          "(images are never pulled; build or load it first)",
      );
    }
    return { image: environment.image, image_digest: digest };
  }
  const dockerfile = `${taskPaths(suite.dir, taskId).root}/${environment.dockerfile}`;
  const context = dockerfile.slice(0, dockerfile.lastIndexOf("/"));
  for (const base of dockerfileBases(await Deno.readTextFile(dockerfile))) {
    if (base.ref.includes("$")) {
      throw new TaskEnvironmentError(
        `task "${taskId}": ${dockerfile}:${base.line}: FROM "${base.ref}" uses a build ` +
          "argument; name the base image itself",
      );
    }
    if ((await lookup(base.ref)) === null) {
      throw new TaskEnvironmentError(
        `task "${taskId}": ${dockerfile}:${base.line}: base image "${base.ref}" is not ` +
          "present (nothing is pulled; build or load it first)",
      );
    }
  }
  const contextDigest = (await digestTree(context)).digest;
  const tag = `ledgerbench-env/${tagName}:${
    sha256Hex(`${contextDigest}\nbuild-network=${network}`).slice(0, 16)
  }`;
  let digest = await lookup(tag);
  if (digest === null) {
    log(
      `building the environment of task "${taskId}" from ${dockerfile} as ${tag} ` +
        `(build network "${network}")`,
    );
    const built = await new Deno.Command("docker", {
      args: [
        "build",
        ...(network === DEFAULT_BUILD_NETWORK ? [] : ["--network", network]),
        // The legacy builder's layer cache ignores the network: without this, a
        // `--network none` build reused the `apt-get install` layer a networked build
        // had left, and passed. Every RUN step of a built environment ran under its network.
        "--no-cache",
        // A failed step's container is removed too, not left on the engine.
        "--force-rm",
        "--tag",
        tag,
        "--file",
        dockerfile,
        context,
      ],
      env: { DOCKER_BUILDKIT: "0" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!built.success) {
      throw new TaskEnvironmentError(
        `task "${taskId}": building ${dockerfile} with build network "${network}" ` +
          `failed: ${buildFailure(built)}`,
      );
    }
    digest = await lookup(tag);
    if (digest === null) {
      throw new TaskEnvironmentError(`task "${taskId}": the built image "${tag}" is gone`);
    }
  }
  return { image: tag, image_digest: digest };
}

/**
 * What a failed legacy build says, on one line: the last lines of its
 * output (where the failed step's own error is: the legacy builder streams
 * a step's stdout and stderr to its stdout), then the builder's error (the
 * last line of its stderr, below its deprecation banner).
 */
function buildFailure(built: Deno.CommandOutput): string {
  const lines = (bytes: Uint8Array) =>
    new TextDecoder().decode(bytes).split("\n")
      // deno-lint-ignore no-control-regex
      .map((line) => line.replace(/\x1b\[[0-9;]*m/g, "").trim())
      .filter((line) => line !== "" && !line.startsWith("Removing intermediate container"));
  return [...lines(built.stdout).slice(-3), ...lines(built.stderr).slice(-1)].join(" | ");
}

/**
 * The digest of the bundle each image would give (`exportImageBundle`),
 * for the plan's agents when some task has its own environment.
 *
 * @param images image IDs
 * @param tempDir where to export (each removed after its digest)
 * @returns image ID → bundle digest
 * @throws {SandboxError} when an image cannot be exported or has no bundle command
 */
export async function bundleDigests(
  images: readonly string[],
  tempDir?: string,
): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const image of new Set(images)) {
    const dir = await Deno.makeTempDir({ dir: tempDir, prefix: "ledgerbench-bundle-" });
    try {
      const bundle = await exportImageBundle(image, `${dir}/root`);
      if (bundle.command === null) {
        throw new TaskEnvironmentError(
          `image "${image}" has no ledgerbench.bundle-command label, so it cannot run in a ` +
            "task's own environment (containers/build_images.sh writes it)",
        );
      }
      digests[image] = bundle.digest;
    } finally {
      await removeTree(dir);
    }
  }
  return digests;
}
