/**
 * The one place that constructs dockerode clients.
 *
 * @module
 */
import Docker from "dockerode";

/** Where the engine listens when neither the option nor `DOCKER_HOST` says otherwise. */
export const DEFAULT_DOCKER_SOCKET = "/var/run/docker.sock";

/** Options of {@linkcode dockerClient}. */
export interface DockerClientOptions {
  /**
   * Unix socket of the engine; default: the path of a `unix://` `DOCKER_HOST`,
   * else `/var/run/docker.sock`.
   */
  socketPath?: string;
}

const clients = new Map<string, Docker>();

/**
 * Resolves the socket path: the explicit option, else a `unix://` `DOCKER_HOST`,
 * else `/var/run/docker.sock`. Only unix sockets are supported: the runner
 * and the engine share a machine (seed 000's host relay needs `nsenter`).
 *
 * @param options the explicit socket path, if any
 * @returns the socket path to use
 */
export function dockerSocketPath(options: DockerClientOptions = {}): string {
  if (options.socketPath) return options.socketPath;
  let host: string | undefined;
  try {
    host = Deno.env.get("DOCKER_HOST");
  } catch {
    host = undefined; // no --allow-env: use the default
  }
  if (host?.startsWith("unix://")) return host.slice("unix://".length);
  return DEFAULT_DOCKER_SOCKET;
}

/**
 * A dockerode client bound to the engine's unix socket, shared per socket
 * path. The client never pulls: every image the runner uses is built offline
 * by `containers/build_images.sh`.
 *
 * @param options the socket to connect to
 * @returns the cached client for that socket
 */
export function dockerClient(options: DockerClientOptions = {}): Docker {
  const socketPath = dockerSocketPath(options);
  let client = clients.get(socketPath);
  if (!client) {
    client = new Docker({ socketPath });
    clients.set(socketPath, client);
  }
  return client;
}
