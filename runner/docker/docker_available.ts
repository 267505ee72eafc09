/**
 * Whether a Docker engine answers, and why not when it does not.
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient, dockerSocketPath } from "./docker_client.ts";

/**
 * Why no engine is usable:
 * - `no_socket`: nothing at the socket path (no engine running here);
 * - `not_a_socket`: the path exists but is not a socket;
 * - `no_permission`: Deno lacks the permission to use the socket (run with
 *   `--allow-net`, `--allow-read`, `--allow-write`): a configuration error of
 *   the caller, not an absent engine;
 * - `access_denied`: the OS refused the socket (user not in the `docker` group);
 * - `no_answer`: the socket exists but the engine fails or times out.
 */
export type DockerUnavailableCode =
  | "no_socket"
  | "not_a_socket"
  | "no_permission"
  | "access_denied"
  | "no_answer";

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
  | { available: false; socketPath: string; code: DockerUnavailableCode; reason: string };

/**
 * How long {@linkcode dockerAvailable} waits for an engine whose socket is
 * there to answer `/_ping` and `/version`. A missing socket is reported at
 * once; a present one that does not answer in this time is taken as hung.
 * Podman's service answered in over 2 s on a loaded two-core machine (the
 * CI's, two test lanes side by side), so a shorter wait refused a working
 * engine.
 */
export const ENGINE_PROBE_TIMEOUT_MS = 10_000;

/** Options of {@linkcode dockerAvailable}. */
export interface DockerAvailableOptions {
  /** Engine socket (see `dockerSocketPath`). */
  socketPath?: string;
  /** Give up after this many milliseconds; default {@linkcode ENGINE_PROBE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Client to probe instead of the shared one (tests). */
  docker?: Docker;
}

/**
 * Probes the engine: the socket must exist and be accessible, `/_ping` must
 * answer, and `/version` must report the server version, all within the
 * timeout. Never throws: `code` says why the engine is unusable and `reason`
 * what to do (issue 3: without an engine the runner says so clearly and falls
 * back to analysing the shipped ledgers; a missing Deno permission is a
 * different matter, `no_permission`, which callers should not treat as "no
 * engine").
 *
 * @param options socket, timeout, client
 * @returns availability with the engine version, or the code and reason it is unavailable
 */
export async function dockerAvailable(
  options: DockerAvailableOptions = {},
): Promise<DockerAvailability> {
  const socketPath = dockerSocketPath(options);
  const timeoutMs = options.timeoutMs ?? ENGINE_PROBE_TIMEOUT_MS;
  const unavailable = (code: DockerUnavailableCode, reason: string): DockerAvailability => ({
    available: false,
    socketPath,
    code,
    reason,
  });
  if (!options.docker) {
    try {
      const info = await Deno.stat(socketPath);
      if (!info.isSocket) return unavailable("not_a_socket", `Not a socket: "${socketPath}"`);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return unavailable(
          "no_socket",
          `No Docker socket at "${socketPath}": start the engine (see .ci/install_docker.sh) ` +
            `or set DOCKER_HOST`,
        );
      }
      return classify(error, socketPath, unavailable);
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
    return classify(error, socketPath, unavailable);
  } finally {
    clearTimeout(timer);
  }
}

function classify(
  error: unknown,
  socketPath: string,
  unavailable: (code: DockerUnavailableCode, reason: string) => DockerAvailability,
): DockerAvailability {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Deno.errors.NotCapable || /^Requires \w+ access/.test(message)) {
    return unavailable(
      "no_permission",
      `Deno may not use the Docker socket "${socketPath}": ${message}`,
    );
  }
  if (error instanceof Deno.errors.PermissionDenied || /EACCES|permission denied/i.test(message)) {
    return unavailable(
      "access_denied",
      `Cannot open the Docker socket "${socketPath}": ${message} (add the user to the "docker" group)`,
    );
  }
  return unavailable(
    "no_answer",
    `The Docker engine on "${socketPath}" does not answer: ${message}`,
  );
}
