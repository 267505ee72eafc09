/**
 * What an image says about how it runs, as a backend reads it
 * (`SessionBackend.image`; Docker's image config, `docker image inspect`),
 * and the two rules the sandboxes apply to it: the argv a container of it
 * runs, and its `PATH`.
 *
 * @module
 */

/** The `PATH` of an image that sets none (Docker's default). */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** What an image says about how it runs. */
export interface ImageFacts {
  /** Its ID. */
  id: string;
  /** `ENTRYPOINT`; empty when it sets none. */
  entrypoint: string[];
  /** `CMD`; empty when it sets none. */
  cmd: string[];
  /** `ENV`, as `NAME=value` entries. */
  env: string[];
  /** `WORKDIR`, or null when it sets none. */
  workdir: string | null;
  /** `USER`, or null when it sets none. */
  user: string | null;
}

/**
 * The argv a container of the image would run, by Docker's rule: the image's
 * `ENTRYPOINT` followed by `command` when given, else by the image's `CMD`.
 *
 * @param image the image's entrypoint and command
 * @param command the caller's command replacing `CMD`, if any
 * @returns the argv
 * @throws {Error} when the argv is empty (an image with neither entrypoint nor command)
 * @example
 * ```ts
 * import { imageArgv } from "./image_facts.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(imageArgv({ entrypoint: ["/entry.sh"], cmd: ["serve"] }, ["check"]), ["/entry.sh", "check"]);
 * ```
 */
export function imageArgv(
  image: Pick<ImageFacts, "entrypoint" | "cmd">,
  command?: readonly string[],
): string[] {
  const argv = [...image.entrypoint, ...(command ?? image.cmd)];
  if (argv.length === 0) throw new Error("the image has neither an entrypoint nor a command");
  return argv;
}

/**
 * The image's `PATH` (its `ENV` entry), else Docker's default.
 *
 * @param image the image's environment
 * @returns the `PATH`
 */
export function imagePath(image: Pick<ImageFacts, "env">): string {
  return image.env.find((entry) => entry.startsWith("PATH="))?.slice("PATH=".length) ??
    DEFAULT_PATH;
}
