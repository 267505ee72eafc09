/**
 * The tasks' own environments, prepared before a plan is frozen (issue 12:
 * "Images are built with the local engine before the plan is frozen and
 * their digests go into the plan"). A task's `environment.image` must be
 * present in the local engine; a task's `environment.dockerfile` is built
 * with the legacy builder, with the network off for its `RUN` steps and
 * nothing pulled: each base image its `FROM` lines name must be present
 * first, and a missing one is an error naming it. The agents' bundles (their
 * images' files, mounted into those environments) are exported and digested
 * for the plan too.
 *
 * @module
 */
import { digestTree } from "./sandbox/digest_tree.ts";
import { exportImageBundle } from "./sandbox/image_bundle.ts";
import { removeTree } from "./sandbox/remove_tree.ts";
import { type Suite, taskPaths } from "./suite_manifest.ts";
import type { PlannedTask } from "../analysis/schema.ts";
import { dockerfileBases } from "../inputs/dockerfile.ts";

/** A task's frozen environment (`PlannedTask.environment`). */
export type FrozenTaskEnvironment = NonNullable<PlannedTask["environment"]>;

/** Resolves an image reference to its local ID; null when absent (never pulls). */
export type ImageLookup = (ref: string) => Promise<string | null>;

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
 * `ledgerbench-env/<task_id>:<16 hex of the build context's digest>`, so an
 * unchanged context reuses its image.
 *
 * @param suite the loaded suite
 * @param lookup the image lookup (the engine's, never pulling)
 * @param log a line per build, for the operator
 * @returns task id → frozen environment, for the tasks that have one
 * @throws {TaskEnvironmentError} naming the task and the missing image or the failed build
 */
export async function prepareTaskEnvironments(
  suite: Suite,
  lookup: ImageLookup,
  log: (line: string) => void = () => {},
): Promise<Record<string, FrozenTaskEnvironment>> {
  const frozen: Record<string, FrozenTaskEnvironment> = {};
  for (const task of suite.manifest.tasks) {
    const environment = task.environment;
    if (environment === undefined) continue;
    if ("image" in environment) {
      const digest = await lookup(environment.image);
      if (digest === null) {
        throw new TaskEnvironmentError(
          `task "${task.task_id}": environment image "${environment.image}" is not present ` +
            "(images are never pulled; build or load it first)",
        );
      }
      frozen[task.task_id] = { image: environment.image, image_digest: digest };
      continue;
    }
    const dockerfile = `${taskPaths(suite.dir, task.task_id).root}/${environment.dockerfile}`;
    const context = dockerfile.slice(0, dockerfile.lastIndexOf("/"));
    for (const base of dockerfileBases(await Deno.readTextFile(dockerfile))) {
      if (base.ref.includes("$")) {
        throw new TaskEnvironmentError(
          `task "${task.task_id}": ${dockerfile}:${base.line}: FROM "${base.ref}" uses a build ` +
            "argument; name the base image itself",
        );
      }
      if ((await lookup(base.ref)) === null) {
        throw new TaskEnvironmentError(
          `task "${task.task_id}": ${dockerfile}:${base.line}: base image "${base.ref}" is not ` +
            "present (nothing is pulled; build or load it first)",
        );
      }
    }
    const tag = `ledgerbench-env/${task.task_id}:${
      (await digestTree(context)).digest.slice("sha256:".length, "sha256:".length + 16)
    }`;
    let digest = await lookup(tag);
    if (digest === null) {
      log(`building the environment of task "${task.task_id}" from ${dockerfile} as ${tag}`);
      const built = await new Deno.Command("docker", {
        args: ["build", "--network", "none", "--tag", tag, "--file", dockerfile, context],
        env: { DOCKER_BUILDKIT: "0" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!built.success) {
        const tail = new TextDecoder().decode(built.stderr).trim().split("\n").slice(-3).join(
          " | ",
        );
        throw new TaskEnvironmentError(
          `task "${task.task_id}": building ${dockerfile} failed: ${tail}`,
        );
      }
      digest = await lookup(tag);
      if (digest === null) {
        throw new TaskEnvironmentError(`task "${task.task_id}": the built image "${tag}" is gone`);
      }
    }
    frozen[task.task_id] = { image: tag, image_digest: digest };
  }
  return frozen;
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
