/**
 * The tasks' own environments, prepared before a plan is frozen (seed 002:
 * the environment's image digest is part of the frozen plan). A task's
 * `environment.image` (a prebuilt image, as Harbor's `docker_image`) is
 * pulled when the engine lacks it, and the plan names it by its registry
 * digest when the engine knows one (`repository@sha256:…`), beside its
 * image ID, so `run` refuses any other image under the name; a task's
 * `environment.dockerfile` is built (`buildImage`: BuildKit where the
 * engine has it, as Harbor builds) and nothing pulled: each base image its
 * `FROM` lines name must be present first, and a missing one is an error
 * naming it. Its `RUN` steps get the build network the operator chose
 * (building an environment at freeze is the task author's step, taken
 * before any model call, so it may use the engine's network, e.g. for
 * `apt-get install`): `default` is what `docker build` gives without `--network`,
 * `none` forbids the network, `host` or a network's name is passed on as
 * `--network`. The candidate and the verifier later run with `--network
 * none` whatever the build had (seed 000). The agents' bundles (their
 * images' files, mounted into those environments) are exported and
 * digested for the plan too.
 *
 * @module
 */
import { buildImage } from "./docker/build_image.ts";
import { pullImage, repoDigest } from "./docker/pull_image.ts";
import { digestTree } from "./sandbox/digest_tree.ts";
import { exportImageBundle } from "./sandbox/image_bundle.ts";
import { findInImagePath } from "./sandbox/image_executable.ts";
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
 * A build network, as `ledgerbench freeze --build-network` takes
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
  /**
   * Where a task whose environment cannot be prepared is reported, the task
   * left out of the result (`suite check`, which fails that task and checks
   * the others); absent: the error is thrown (`freeze`, which refuses).
   */
  onTaskError?: (taskId: string, error: TaskEnvironmentError) => void;
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
 * Prepares every task's environment: looks up a named image (pulling it
 * when absent, pinning it by registry digest), or builds a Dockerfile
 * after checking its base images are present. The built tag is
 * `ledgerbench-env/<task_id>:<16 hex>` (`_` as `-`), the hex of the SHA-256 of the build
 * context's digest and the build network (`<digest>\nbuild-network=<mode>`),
 * so that an unchanged context built the same way reuses its image. The
 * network is in the key because the same context can build differently
 * with and without it (a `RUN` step that downloads, or one that falls back
 * when offline): a context frozen with one network never reuses an image
 * built with the other. For the same reason a build uses no cached layer
 * (`nocache`): the legacy builder's cache ignores the network.
 *
 * @param suite the loaded suite
 * @param lookup the image lookup (the engine's, never pulling)
 * @param log a line per build or pull, for the operator
 * @param options the build network ({@link PrepareTaskEnvironmentsOptions})
 * @returns task id → frozen environment, for the tasks that have one
 * @throws {TaskEnvironmentError} naming the task and the missing image or the
 *   failed build (with the build network, and the build's last lines), an
 *   image where a Harbor task's tests run that has no `bash`, or a build
 *   network that is not one ({@link BuildNetwork})
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
    const environment = task.environment;
    if (environment === undefined) continue;
    await eachTask(task.task_id, options, async () => {
      const prepared = await prepareOne(
        suite,
        task.task_id,
        environment,
        task.task_id,
        lookup,
        log,
        network,
      );
      const testsRunHere = task.verifier?.mode === "shared" ||
        (task.verifier?.mode === "separate" && task.verifier.environment === undefined);
      if (testsRunHere) await requireBash(task.task_id, prepared.image);
      frozen[task.task_id] = prepared;
    });
  }
  return frozen;
}

/**
 * Prepares the separate verifiers' own environments (Harbor's
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
    await eachTask(task.task_id, options, async () => {
      const prepared = await prepareOne(
        suite,
        task.task_id,
        environment,
        `${task.task_id}-verifier`,
        lookup,
        log,
        network,
      );
      await requireBash(task.task_id, prepared.image);
      frozen[task.task_id] = prepared;
    });
  }
  return frozen;
}

/** A task's frozen sidecar services (`PlannedTask.services`). */
export type FrozenServices = NonNullable<PlannedTask["services"]>;

/**
 * Prepares the images of the tasks' sidecar services (Harbor's Compose
 * services beside `main`) exactly as {@link prepareTaskEnvironments}
 * prepares the tasks': a named image looked up (pulled when absent), a
 * Dockerfile built (tag `ledgerbench-env/<task_id>-<service>:<16 hex>`)
 * with the same build network.
 *
 * @param suite the loaded suite
 * @param lookup the image lookup (the engine's, never pulling)
 * @param log a line per build or pull, for the operator
 * @param options the build network
 * @returns task id → its services' frozen images, for the tasks that have services
 * @throws {TaskEnvironmentError} as {@link prepareTaskEnvironments}
 */
export async function prepareServiceEnvironments(
  suite: Suite,
  lookup: ImageLookup,
  log: (line: string) => void = () => {},
  options: PrepareTaskEnvironmentsOptions = {},
): Promise<Record<string, FrozenServices>> {
  const network = checkedNetwork(options);
  const frozen: Record<string, FrozenServices> = {};
  for (const task of suite.manifest.tasks) {
    const services = task.services;
    if (services === undefined) continue;
    await eachTask(task.task_id, options, async () => {
      const prepared: FrozenServices = [];
      for (const service of services) {
        const image = await prepareOne(
          suite,
          task.task_id,
          service.environment,
          `${task.task_id}-${service.name}`,
          lookup,
          log,
          network,
        );
        prepared.push({ name: service.name, ...image });
      }
      frozen[task.task_id] = prepared;
    });
  }
  return frozen;
}

/**
 * Prepares one task's environment: a {@link TaskEnvironmentError} goes to
 * `options.onTaskError` when there is one (the task is then left out),
 * else it is thrown.
 */
async function eachTask(
  taskId: string,
  options: PrepareTaskEnvironmentsOptions,
  prepare: () => Promise<void>,
): Promise<void> {
  try {
    await prepare();
  } catch (error) {
    if (!(error instanceof TaskEnvironmentError) || options.onTaskError === undefined) throw error;
    options.onTaskError(taskId, error);
  }
}

/**
 * Refuses an image where Harbor's tests cannot start: Harbor runs them as
 * `bash /tests/test.sh` (its verifier), so the image's `PATH` must find
 * `bash`; without it every verification would end as a verifier fault.
 */
async function requireBash(taskId: string, image: string): Promise<void> {
  if ((await findInImagePath(image, "bash")) !== null) return;
  throw new TaskEnvironmentError(
    `task "${taskId}": image "${image}" has no bash on its PATH, and Harbor runs the tests ` +
      'as "bash /tests/test.sh" (install bash in the environment)',
  );
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
    const ref = environment.image;
    let digest = await lookup(ref);
    if (digest === null) {
      log(`pulling the environment image "${ref}" of task "${taskId}"`);
      try {
        await pullImage(ref);
      } catch (error) {
        throw new TaskEnvironmentError(
          `task "${taskId}": environment image "${ref}" is not present and cannot be pulled: ` +
            (error instanceof Error ? error.message : String(error)),
        );
      }
      digest = await lookup(ref);
      if (digest === null) {
        throw new TaskEnvironmentError(`task "${taskId}": the pulled image "${ref}" is gone`);
      }
    }
    return { image: (await repoDigest(ref)) ?? ref, image_digest: digest };
  }
  const root = taskPaths(suite.dir, taskId).root;
  const dockerfile = `${root}/${environment.dockerfile}`;
  const context = environment.context === undefined
    ? dockerfile.slice(0, dockerfile.lastIndexOf("/"))
    : `${root}/${environment.context}`;
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
  // A Docker repository name takes `_` only between letters or digits; `-` anywhere inside.
  const tag = `ledgerbench-env/${tagName.replaceAll("_", "-")}:${
    sha256Hex(`${contextDigest}\nbuild-network=${network}`).slice(0, 16)
  }`;
  let digest = await lookup(tag);
  if (digest === null) {
    log(
      `building the environment of task "${taskId}" from ${dockerfile} as ${tag} ` +
        `(build network "${network}")`,
    );
    const built = await buildImage({
      context,
      dockerfile: dockerfile.slice(context.length + 1),
      tag,
      network,
    });
    if (!built.ok) {
      throw new TaskEnvironmentError(
        `task "${taskId}": building ${dockerfile} with build network "${network}" ` +
          `failed: ${built.failure}`,
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
