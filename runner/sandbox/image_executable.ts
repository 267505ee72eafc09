/**
 * Whether an image's `PATH` finds a program, read from the image's file
 * system as built, without running anything of it. Harbor runs a task's
 * tests as `bash /tests/test.sh` in its environment (Harbor's verifier), so
 * an environment without `bash` can be refused when the task is checked or
 * frozen, not found at its first verification as a verifier fault.
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "../docker/docker_client.ts";
import { imagePath } from "./image_facts.ts";
import { withUnstartedContainer } from "./image_bundle.ts";

/** Symbolic links followed before a program counts as not found (Linux's own limit is 40). */
const MAX_LINKS = 8;

/** A path's entry as the engine stats it (`X-Docker-Container-Path-Stat`: Go's `FileMode` bits). */
interface PathStat {
  mode: number;
  linkTarget: string;
}

/** Go's `os.ModeDir` and `os.ModeSymlink` bits of a `FileMode`. */
const MODE_DIR = 2 ** 31;
const MODE_SYMLINK = 2 ** 27;

/**
 * Where the image's `PATH` (its `ENV`, else Docker's default) finds an
 * executable file called `name`, as a shell's lookup would: the first
 * directory holding a non-directory entry of that name with an execute
 * bit, symbolic links followed.
 *
 * @param image the image ID or reference
 * @param name the program, e.g. `bash`
 * @param options the engine's client
 * @returns the path found, or null when no directory of the `PATH` has it
 * @throws {Error} when the image is absent or the engine fails
 */
export async function findInImagePath(
  image: string,
  name: string,
  options: { docker?: Docker } = {},
): Promise<string | null> {
  const docker = options.docker ?? dockerClient();
  const info = await docker.getImage(image).inspect();
  const dirs = imagePath({ env: info.Config?.Env ?? [] }).split(":").filter((dir) => dir !== "");
  return await withUnstartedContainer(docker, image, "path-lookup", async (container) => {
    for (const dir of dirs) {
      const path = `${dir.replace(/\/+$/, "")}/${name}`;
      if (await isExecutable(container, path)) return path;
    }
    return null;
  });
}

/** Whether `path` is an executable non-directory in the container, links followed. */
async function isExecutable(container: Docker.Container, path: string): Promise<boolean> {
  let current = path;
  for (let links = 0; links <= MAX_LINKS; links++) {
    const stat = await pathStat(container, current);
    if (stat === null || (stat.mode & MODE_DIR) !== 0) return false;
    if ((stat.mode & MODE_SYMLINK) === 0) return (stat.mode & 0o111) !== 0;
    current = stat.linkTarget.startsWith("/")
      ? stat.linkTarget
      : `${current.slice(0, current.lastIndexOf("/"))}/${stat.linkTarget}`;
  }
  return false;
}

/** The engine's stat of `path` in the container (Engine API `HEAD /containers/{id}/archive`), null when absent. */
async function pathStat(container: Docker.Container, path: string): Promise<PathStat | null> {
  try {
    const response = await container.infoArchive({ path }) as {
      headers: Record<string, string | undefined>;
      resume?: () => void;
    };
    response.resume?.();
    const header = response.headers["x-docker-container-path-stat"];
    if (header === undefined) return null;
    const stat = JSON.parse(atob(header)) as Partial<PathStat>;
    return { mode: Number(stat.mode ?? 0), linkTarget: String(stat.linkTarget ?? "") };
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
}
