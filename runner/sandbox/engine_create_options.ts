/**
 * The one engine-specific change to a sandbox's create request:
 * what Podman needs to give the container Docker's flags.
 *
 * @module
 */
import type Docker from "dockerode";
import type { EngineIdentity } from "../docker/engine_identity.ts";

/**
 * Where Podman's Docker-compatible service mounts writable tmpfs into a
 * container with a read-only root unless the request mounts something
 * there (Podman's `--read-only-tmpfs`, always on in its compat API:
 * `ReadWriteTmpFS: true` in pkg/api/handlers/compat/containers_create.go;
 * `/tmp` the sandbox mounts itself).
 */
const PODMAN_READ_ONLY_TMPFS = ["/run", "/var/tmp"] as const;

/**
 * The request to send to `engine` for `create`: unchanged for Docker; for
 * Podman with a read-only root, an empty read-only tmpfs at each of
 * {@link PODMAN_READ_ONLY_TMPFS} the request leaves free, so that they stay
 * as unwritable as on Docker's read-only root (where they are the image's
 * directories, absent from ours). `sandboxFlagsProblem` checks the result
 * against `create` itself.
 *
 * @param create the sandbox's create request
 * @param engine the engine it goes to
 * @returns the request for that engine (a new object when it differs)
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { engineCreateOptions } from "./engine_create_options.ts";
 * const create = { Image: "sha256:1", HostConfig: { ReadonlyRootfs: true, Tmpfs: { "/tmp": "rw" } } };
 * const podman = { name: "podman", version: "4.3.1", apiVersion: "1.41", label: "Podman 4.3.1", reportsOomKills: false } as const;
 * deepEqual(Object.keys(engineCreateOptions(create, podman).HostConfig!.Tmpfs!), ["/tmp", "/run", "/var/tmp"]);
 * ```
 */
export function engineCreateOptions(
  create: Docker.ContainerCreateOptions,
  engine: EngineIdentity,
): Docker.ContainerCreateOptions {
  const host = create.HostConfig;
  if (engine.name !== "podman" || host?.ReadonlyRootfs !== true) return create;
  const tmpfs = { ...host.Tmpfs };
  for (const path of PODMAN_READ_ONLY_TMPFS) {
    const bound = (host.Binds ?? []).some((bind) => bind.split(":")[1] === path);
    if (!bound && tmpfs[path] === undefined) tmpfs[path] = "ro,nosuid,nodev,noexec,size=4096";
  }
  return { ...create, HostConfig: { ...host, Tmpfs: tmpfs } };
}
