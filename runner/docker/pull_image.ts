/**
 * Pulling a task's prebuilt environment image, and the registry digest that
 * pins it. Harbor runs a task's `docker_image` as it is published (every
 * Terminal-Bench 2 task names one); `freeze` pulls it when the engine lacks
 * it, so the plan names the image the leaderboard used, by digest (seed
 * 002: the image digest is part of the frozen environment).
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "./docker_client.ts";
import { engineCall } from "./engine_call.ts";

/**
 * Pulls `ref` into the engine (Engine API `POST /images/create`), waiting
 * for the whole transfer; a reference without a tag or digest is `:latest`,
 * as the Docker CLI reads it.
 *
 * @param ref an image reference (`registry/name:tag` or `name@sha256:…`)
 * @param options the engine's client
 * @throws {Error} with the engine's or the registry's message when the pull fails
 */
export async function pullImage(ref: string, options: { docker?: Docker } = {}): Promise<void> {
  const docker = options.docker ?? dockerClient();
  // Without a tag or digest the API pulls every tag of the repository; the CLI's rule is `latest`.
  const named = ref.includes("@") || repositoryOf(ref) !== ref ? ref : `${ref}:latest`;
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.pull(named) as NodeJS.ReadableStream;
  } catch (error) {
    // The engine's own words (dockerode prefixes "(HTTP code 500) server error - ").
    const json = (error as { json?: { message?: unknown } }).json;
    throw new Error(String(json?.message ?? (error as Error).message).trim());
  }
  const messages = await new Promise<unknown[]>((resolve, reject) =>
    docker.modem.followProgress(
      stream,
      (error: Error | null, output: unknown[]) => error ? reject(error) : resolve(output),
    )
  );
  const failed = messages.findLast((message) =>
    typeof (message as { error?: unknown })?.error === "string"
  ) as { error: string } | undefined;
  if (failed !== undefined) throw new Error(failed.error.replace(/\s+/g, " ").trim());
}

/**
 * The registry digest the engine knows for `ref`'s repository
 * (`RepoDigests`, `repository@sha256:…`: the manifest a registry serves),
 * or null for an image no registry gave (built or loaded here).
 *
 * @param ref an image reference present in the engine
 * @param options the engine's client
 * @returns the digest reference, or null
 * @throws {Error} when the engine fails (a missing image included)
 */
export async function repoDigest(
  ref: string,
  options: { docker?: Docker } = {},
): Promise<string | null> {
  const docker = options.docker ?? dockerClient();
  const info = await engineCall(
    `inspect image ${ref}`,
    (abortSignal) => docker.getImage(ref).inspect({ abortSignal } as Docker.ImageInspectOptions),
  );
  const repository = repositoryOf(ref);
  return (info.RepoDigests ?? []).find((digest) => digest.split("@")[0] === repository) ?? null;
}

/**
 * A reference's repository: without its digest and its tag (a tag is the
 * part after the last `:` of the last path component, so a registry's port
 * stays).
 *
 * @example
 * ```ts
 * import { repositoryOf } from "./pull_image.ts";
 * import { equal } from "node:assert/strict";
 * equal(repositoryOf("127.0.0.1:5000/tb2/hello:latest"), "127.0.0.1:5000/tb2/hello");
 * equal(repositoryOf("ubuntu@sha256:ab"), "ubuntu");
 * ```
 */
export function repositoryOf(ref: string): string {
  const name = ref.split("@")[0];
  const slash = name.lastIndexOf("/");
  const colon = name.lastIndexOf(":");
  return colon > slash ? name.slice(0, colon) : name;
}
