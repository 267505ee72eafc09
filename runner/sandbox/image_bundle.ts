/**
 * An image's files as a bundle for another image (the candidate runs in
 * the task's environment with the agent brought in, as Harbor installs its
 * agents into a task's environment): the agent's
 * image is exported to a host directory once per run and mounted read-only
 * at {@link AGENT_BUNDLE_MOUNT} inside the task's environment, where its
 * label {@link BUNDLE_COMMAND_LABEL} names the command that runs it from
 * there (containers/build_images.sh writes it: Deno through its own loader
 * and libraries, the Codex CLI's static binary). The verifier image is
 * exported the same way and mounted at {@link VERIFIER_KIT_MOUNT}, so its
 * driver and busybox run inside the task's environment too.
 *
 * The bundle is the image's own file tree (the engine's per-container files
 * `/.dockerenv`, `/etc/hostname`, `/etc/hosts`, `/etc/resolv.conf`,
 * `/etc/mtab` and the mount points `/dev`, `/proc`, `/sys` removed, since
 * they are not the image's), and its `digestTree` digest is what a plan
 * records and a run checks.
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "../docker/docker_client.ts";
import { engineCall } from "../docker/engine_call.ts";
import { digestTree } from "./digest_tree.ts";
import { removeTree } from "./remove_tree.ts";
import { SandboxError } from "./sandbox_error.ts";

/** Where an agent's bundle appears inside a task's environment. */
export const AGENT_BUNDLE_MOUNT = "/opt/ledgerbench/agent";

/** Where the verifier image's files appear inside a task's environment. */
export const VERIFIER_KIT_MOUNT = "/opt/ledgerbench/kit";

/** The image label holding the bundle's command, a JSON array of strings. */
export const BUNDLE_COMMAND_LABEL = "ledgerbench.bundle-command";

/** Directories of a bundle whose programs are appended to the environment's `PATH`. */
export const BUNDLE_PATH_DIRS = ["/usr/local/bin", "/bin"].map((dir) => AGENT_BUNDLE_MOUNT + dir);

/** The engine's per-container entries, not part of the image's files. */
const ENGINE_ENTRIES = [
  ".dockerenv",
  "etc/hostname",
  "etc/hosts",
  "etc/resolv.conf",
  "etc/mtab",
  "dev",
  "proc",
  "sys",
];

/** An exported image. */
export interface ImageBundle {
  /** The host directory holding the image's files. */
  dir: string;
  /** `digestTree` of `dir`. */
  digest: string;
  /** The label's command (null: the image has none, so it cannot run as an agent bundle). */
  command: string[] | null;
}

/**
 * Exports the files of image `imageId` into `dir` (which must not exist):
 * creates a container that never starts, streams `docker export` into `tar
 * -x`, removes the container and the engine's own entries, and digests the
 * tree. Cost: the image's size once (about 100 MB and 1 s for ours).
 *
 * @param imageId the image ID (never pulled)
 * @param dir the directory to create
 * @param options the engine client
 * @returns the bundle
 * @throws {SandboxError} `engine_error` when the engine or `tar` fails,
 *   `image_missing` when the image is absent, `bundle_invalid` when the label is not an argv
 */
export async function exportImageBundle(
  imageId: string,
  dir: string,
  options: { docker?: Docker } = {},
): Promise<ImageBundle> {
  const docker = options.docker ?? dockerClient();
  let info: Docker.ImageInspectInfo;
  try {
    info = await engineCall(
      `inspect image ${imageId}`,
      (abortSignal) =>
        docker.getImage(imageId).inspect({ abortSignal } as Docker.ImageInspectOptions),
    );
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) {
      throw new SandboxError(
        "image_missing",
        `Cannot bundle image "${imageId}": it is not present (images are never pulled)`,
      );
    }
    throw engineError(imageId, error);
  }
  const command = bundleCommand(imageId, info.Config?.Labels?.[BUNDLE_COMMAND_LABEL]);
  await Deno.mkdir(dir, { recursive: false });
  try {
    await unpackFromImage(
      docker,
      imageId,
      "bundle-export",
      async (container) => await container.export() as unknown as AsyncIterable<Uint8Array>,
      ["-x", "-C", dir, "--no-same-owner", "--numeric-owner"],
    );
  } catch (error) {
    await removeTree(dir).catch(() => {});
    throw engineError(imageId, error);
  }
  for (const entry of ENGINE_ENTRIES) {
    await Deno.remove(`${dir}/${entry}`, { recursive: true }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
  return { dir, digest: (await digestTree(dir)).digest, command };
}

/**
 * Streams an archive out of a container of `imageId` that never starts
 * ({@link withUnstartedContainer}) into `tar` with `tarArgs`.
 *
 * @param docker the engine client
 * @param imageId the image ID
 * @param role the container's `ledgerbench.role` label (for `removeOrphans`)
 * @param archive what to read of the container (`export()`, `getArchive(...)`)
 * @param tarArgs the unpacking `tar`'s arguments (`-x -C DIR ...`)
 * @throws {Error} the engine's error, or `tar`'s stderr when it fails
 */
export async function unpackFromImage(
  docker: Docker,
  imageId: string,
  role: string,
  archive: (container: Docker.Container) => Promise<AsyncIterable<Uint8Array>>,
  tarArgs: readonly string[],
): Promise<void> {
  await withUnstartedContainer(docker, imageId, role, async (container) => {
    const stream = await archive(container);
    const tar = new Deno.Command("tar", { args: [...tarArgs], stdin: "piped", stderr: "piped" })
      .spawn();
    const writer = tar.stdin.getWriter();
    for await (const chunk of stream) await writer.write(chunk);
    await writer.close();
    const done = await tar.output();
    if (!done.success) throw new Error(`tar: ${new TextDecoder().decode(done.stderr).trim()}`);
  });
}

/**
 * Runs `use` on a container of `imageId` that never starts: its file system
 * as built is readable through the engine's archive endpoints, and nothing
 * of the image runs. The container is removed afterwards, whatever `use` did.
 *
 * @param docker the engine client
 * @param imageId the image ID or reference
 * @param role the container's `ledgerbench.role` label (for `removeOrphans`)
 * @param use what to do with the container
 * @returns what `use` returned
 * @throws {Error} the engine's error or `use`'s
 */
export async function withUnstartedContainer<T>(
  docker: Docker,
  imageId: string,
  role: string,
  use: (container: Docker.Container) => Promise<T>,
): Promise<T> {
  let container: Docker.Container | null = null;
  try {
    container = await docker.createContainer({
      Image: imageId,
      Entrypoint: ["/ledgerbench-never-started"],
      Cmd: [],
      NetworkDisabled: true,
      Labels: { "ledgerbench.role": role },
    });
    return await use(container);
  } finally {
    await container?.remove({ force: true }).catch(() => {});
  }
}

/** The label's argv, or null when absent. */
function bundleCommand(imageId: string, label: string | undefined): string[] | null {
  if (label === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(label);
  } catch {
    parsed = null;
  }
  if (
    !Array.isArray(parsed) || parsed.length === 0 ||
    !parsed.every((arg) => typeof arg === "string")
  ) {
    throw new SandboxError(
      "bundle_invalid",
      `Cannot bundle image "${imageId}": its label ${BUNDLE_COMMAND_LABEL} is not a JSON array of strings`,
    );
  }
  return parsed;
}

function engineError(imageId: string, error: unknown): SandboxError {
  return error instanceof SandboxError ? error : new SandboxError(
    "engine_error",
    `Cannot export image "${imageId}": ${error instanceof Error ? error.message : error}`,
    { cause: error },
  );
}
