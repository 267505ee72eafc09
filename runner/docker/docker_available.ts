/**
 * Whether a Docker engine answers, and why not when it does not.
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient, dockerSocketPath } from "./docker_client.ts";

/** The outcome of {@linkcode dockerAvailable}. */
export type DockerAvailability =
  | {
    available: true;
    socketPath: string;
    /** Engine version, e.g. `"20.10.24+dfsg1"`. */
    serverVersion: string;
    /** Engine API version, e.g. `"1.41"`. */
    apiVersion: string;
  }
  | { available: false; socketPath: string; reason: string };

/** Options of {@linkcode dockerAvailable}. */
export interface DockerAvailableOptions {
  /** Engine socket (see `dockerSocketPath`). */
  socketPath?: string;
  /** Give up after this many milliseconds; default 2000. */
  timeoutMs?: number;
  /** Client to probe instead of the shared one (tests). */
  docker?: Docker;
}

/**
 * Probes the engine: the socket must exist and be accessible, `/_ping` must
 * answer, and `/version` must report the server version, all within the
 * timeout. Never throws: the reason says what to do when the engine is not
 * reachable (the issue: without an engine the runner says so clearly and falls
 * back to analysing the shipped ledgers).
 *
 * @param options socket, timeout, client
 * @returns availability with the engine version, or the reason it is unavailable
 */
export async function dockerAvailable(
  options: DockerAvailableOptions = {},
): Promise<DockerAvailability> {
  const socketPath = dockerSocketPath(options);
  const timeoutMs = options.timeoutMs ?? 2000;
  const hint = "start the engine (see .ci/install_docker.sh) or set DOCKER_HOST";
  if (!options.docker) {
    try {
      const info = await Deno.stat(socketPath);
      if (!info.isSocket) {
        return { available: false, socketPath, reason: `Not a socket: "${socketPath}"` };
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return {
          available: false,
          socketPath,
          reason: `No Docker socket at "${socketPath}": ${hint}`,
        };
      }
      return {
        available: false,
        socketPath,
        reason: `Cannot access the Docker socket "${socketPath}": ${String(error)}`,
      };
    }
  }
  const docker = options.docker ?? dockerClient({ socketPath });
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    const version = await Promise.race([
      (async () => {
        // dockerode accepts `abortSignal` here; its typings do not declare it.
        const withSignal = { abortSignal: controller.signal };
        await (docker.ping as unknown as (o: object) => Promise<unknown>).call(docker, withSignal);
        return await (docker.version as unknown as (o: object) => Promise<Docker.DockerVersion>)
          .call(docker, withSignal);
      })(),
      timeout,
    ]);
    return {
      available: true,
      socketPath,
      serverVersion: String(version.Version),
      apiVersion: String(version.ApiVersion),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const denied = /EACCES|permission denied/i.test(message)
      ? ' (add the user to the "docker" group)'
      : "";
    return {
      available: false,
      socketPath,
      reason: `The Docker engine on "${socketPath}" does not answer: ${message}${denied}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
