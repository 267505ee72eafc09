/**
 * The check, before a batch, that the engine gives the sandbox its flags
 * (seed 000: a sandbox without its flags is no sandbox; where a flag has no
 * equivalent on the engine, the episode refuses to start rather than run
 * weaker), called by the environment check as an image mismatch is.
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "../docker/docker_client.ts";
import { engineCall } from "../docker/engine_call.ts";
import { type EngineIdentity, engineIdentity } from "../docker/engine_identity.ts";
import { containerSessionBackend } from "./docker_session.ts";
import type { OpenSession } from "./sandbox_session.ts";
import { VERIFIER_LIMITS } from "./sandbox_limits.ts";
import { RUNNER_LABEL } from "../remove_orphans.ts";
import { currentRunner, parseRunnerLabel, runnerAlive, runnerLabel } from "../runner_identity.ts";
import { SandboxError } from "./sandbox_error.ts";
import { networkIsolationCheckable } from "./network_isolation_problem.ts";

/** The `ledgerbench.role` of the probe container. */
const PROBE_ROLE = "probe" as const;

/** The log bound every sandbox asks for (`sandboxCreateOptions`), as Podman reports it. */
const PODMAN_LOG_SIZE = "1MB";

const checks = new WeakMap<Docker, Promise<string[]>>();

/**
 * Opens one probe session through the sandbox's own path (the container
 * engine's `SessionBackend`: the engine's request changes, then the network
 * and flag checks of every started container, `requireSandboxFlags`) with
 * the verifier's flags,
 * which are the candidate's plus `--cap-add`, tmpfs modes and read-only
 * binds: no network, read-only root, `--cap-drop ALL --cap-add SETUID
 * --cap-add SETGID --cap-add KILL`, no-new-privileges, the pids, memory,
 * swap and CPU limits, the tmpfs, and a bounded log (Docker's
 * `max-size=1m`; Podman keeps one file truncated at that size, its
 * `log_size_max`, so its log is bounded too, by one file instead of two).
 * Every flag that did not take effect is a sentence naming it and the
 * engine. The probe runs the runner's busybox in `image`, so it
 * needs nothing of the image but its existence; probes left by a runner
 * that was killed meanwhile (their `ledgerbench.runner` is gone) are removed
 * first, as `removeOrphans` removes a run's. Once per engine client;
 * when this process cannot read the container's `/proc` entries
 * (`networkIsolationCheckable`), no container's flags are checked and
 * neither is the engine's.
 *
 * Cost: one container, about 0.3 s on Docker and 0.5 s on Podman here.
 *
 * @param image an image present on the engine (the run's verifier image)
 * @param options the client (default the shared one); `tempDir`: where the probe's gate goes
 *   (the run's own temporary directory, swept when its runner is gone; default the system's)
 * @returns one sentence per flag the engine does not honour; empty when it honours all
 * @throws {SandboxError} `engine_error` when the engine fails (not a flag's problem)
 */
export function engineFlagsCheck(
  image: string,
  options: { docker?: Docker; tempDir?: string } = {},
): Promise<string[]> {
  const docker = options.docker ?? dockerClient();
  let check = checks.get(docker);
  if (check === undefined) {
    check = probe(docker, image, options.tempDir);
    check.catch(() => checks.delete(docker));
    checks.set(docker, check);
  }
  return check;
}

async function probe(docker: Docker, image: string, tempDir?: string): Promise<string[]> {
  if (!networkIsolationCheckable()) return [];
  const engine = await engineIdentity(docker);
  await removeDeadProbes(docker);
  const found: string[] = [];
  let session: OpenSession | null = null;
  try {
    session = await containerSessionBackend(docker, tempDir).open({
      role: PROBE_ROLE,
      image,
      mounts: [],
      scratch: {
        "/scratch": { bytes: VERIFIER_LIMITS.scratchBytes, mode: "1777" },
        "/logs": { bytes: VERIFIER_LIMITS.scratchBytes, mode: "0755" },
      },
      user: "0:0",
      cwd: "/tmp",
      keepCapabilities: ["SETUID", "SETGID", "KILL"],
      pidsLimit: VERIFIER_LIMITS.pidsLimit,
      memoryBytes: VERIFIER_LIMITS.memoryBytes,
      nanoCpus: VERIFIER_LIMITS.nanoCpus,
      tmpfsBytes: VERIFIER_LIMITS.tmpfsBytes,
      labels: { [RUNNER_LABEL]: runnerLabel(currentRunner()) },
    });
    const bound = await logBound(docker, session.id!, engine);
    if (bound !== null) found.push(`the ${engine.label} engine: --log-opt ${bound}`);
  } catch (error) {
    if (!(error instanceof SandboxError) || error.code !== "isolation_failed") throw error;
    found.push(`the ${engine.label} engine does not give the sandbox its flags: ${error.message}`);
  } finally {
    await session?.end();
  }
  return found;
}

/** Removes the probe containers whose runner is gone (killed before it removed its probe). */
async function removeDeadProbes(docker: Docker): Promise<void> {
  const probes = await engineCall(
    "list the probe containers",
    (abortSignal) =>
      docker.listContainers({
        all: true,
        filters: { label: [`ledgerbench.role=${PROBE_ROLE}`] },
        abortSignal,
      }),
  );
  for (const info of probes) {
    const runner = parseRunnerLabel(info.Labels?.[RUNNER_LABEL] ?? "");
    if (runner !== null && runnerAlive(runner)) continue;
    await engineCall(
      `remove probe container "${info.Id.slice(0, 12)}"`,
      (abortSignal) => docker.getContainer(info.Id).remove({ force: true, abortSignal }),
    ).catch(() => {}); // removed meanwhile by another runner's sweep
  }
}

/**
 * Why the container's log is not bounded as asked (`max-size=1m`), or null:
 * Docker's inspect keeps the option; Podman's compatible inspect drops it,
 * its own (`/v<version>/libpod/containers/<id>/json`) shows it as `LogConfig.Size`.
 */
async function logBound(
  docker: Docker,
  containerId: string,
  engine: EngineIdentity,
): Promise<string | null> {
  if (engine.name === "docker") {
    const info = await engineCall(
      "inspect the probe container",
      (abortSignal) => docker.getContainer(containerId).inspect({ abortSignal }),
    );
    const size = info.HostConfig.LogConfig?.Config?.["max-size"];
    return size === "1m" ? null : `max-size=1m: the container's log has max-size "${size}"`;
  }
  const info = await engineCall(
    "inspect the probe container (libpod)",
    () =>
      new Promise<{ HostConfig?: { LogConfig?: { Size?: string } } }>((resolve, reject) =>
        docker.modem.dial({
          path: `/v${engine.version}/libpod/containers/${containerId}/json`,
          method: "GET",
          statusCodes: { 200: true },
        }, (error, data) => error ? reject(error) : resolve(data as never))
      ),
  );
  const size = info.HostConfig?.LogConfig?.Size;
  return size === PODMAN_LOG_SIZE ? null : `max-size=1m: the container's log size is "${size}"`;
}
