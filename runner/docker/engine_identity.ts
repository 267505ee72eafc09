/**
 * Which engine answers on the socket: Docker's, or Podman's Docker-compatible
 * API service (issue 24: Podman as a node's engine).
 *
 * @module
 */
import type Docker from "dockerode";
import { engineCall } from "./engine_call.ts";

/** The engines the runner drives through the Docker Engine API. */
export type EngineName = "docker" | "podman";

/** What the runner knows of the engine it talks to. */
export interface EngineIdentity {
  name: EngineName;
  /** The engine's own version, e.g. `"20.10.24+dfsg1"` or `"4.3.1"`. */
  version: string;
  /** The Engine API version it serves, e.g. `"1.41"`. */
  apiVersion: string;
  /** How messages name it, e.g. `"Docker 20.10.24+dfsg1"`, `"Podman 4.3.1"`. */
  label: string;
  /**
   * Whether the engine's `State.OOMKilled` says when the kernel's OOM
   * killer ended a process of the container: Docker's does; Podman's only
   * from 5.0 (before, it is always false: containers/podman#13102, fixed by
   * containers/podman#21523).
   */
  reportsOomKills: boolean;
}

/**
 * The engine a `GET /version` answer describes. Podman's compatible service
 * names its main component `"Podman Engine"` (Docker's is `"Engine"`); an
 * answer without components is Docker's (engines before API 1.35).
 *
 * @param version the engine's `/version` answer
 * @returns its identity
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { engineIdentityOf } from "./engine_identity.ts";
 * const podman = engineIdentityOf({
 *   Version: "4.3.1",
 *   ApiVersion: "1.41",
 *   Components: [{ Name: "Podman Engine", Version: "4.3.1" }],
 * });
 * equal(podman.label, "Podman 4.3.1");
 * equal(podman.reportsOomKills, false);
 * ```
 */
export function engineIdentityOf(
  version: Pick<Docker.DockerVersion, "Version" | "ApiVersion"> & {
    Components?: ReadonlyArray<{ Name: string; Version: string }> | null;
  },
): EngineIdentity {
  const podman = (version.Components ?? []).find((c) => c.Name === "Podman Engine");
  const name: EngineName = podman === undefined ? "docker" : "podman";
  const engineVersion = String(podman?.Version ?? version.Version);
  const major = Number(/^(\d+)\./.exec(engineVersion)?.[1] ?? 0);
  return {
    name,
    version: engineVersion,
    apiVersion: String(version.ApiVersion),
    label: `${name === "podman" ? "Podman" : "Docker"} ${engineVersion}`,
    reportsOomKills: name === "docker" || major >= 5,
  };
}

const identities = new WeakMap<Docker, Promise<EngineIdentity>>();

/**
 * Asks the engine behind `docker` who it is (`GET /version`, under the
 * engine deadline), once per client: a client is bound to one socket.
 *
 * @param docker the engine client
 * @returns its identity
 * @throws {Error} when the engine does not answer (`EngineDeadlineError` past the deadline)
 */
export function engineIdentity(docker: Docker): Promise<EngineIdentity> {
  let identity = identities.get(docker);
  if (identity === undefined) {
    identity = engineCall(
      "read the engine's version",
      (abortSignal) =>
        (docker.version as unknown as (o: object) => Promise<Docker.DockerVersion>).call(docker, {
          abortSignal,
        }),
    ).then(engineIdentityOf);
    identity.catch(() => identities.delete(docker));
    identities.set(docker, identity);
  }
  return identity;
}
