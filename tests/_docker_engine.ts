/**
 * One rule for every test file that needs the real Docker engine: on a
 * developer's machine without an engine those tests are skipped with a loud
 * message, but in CI (`CI=true`, set by `.ci/run`) a missing engine is a
 * failure, so a broken install can never pass as green.
 *
 * The same files run against Podman's Docker-compatible service (issue 24)
 * with `LEDGERBENCH_TEST_ENGINE=podman`: `DOCKER_HOST` then defaults to
 * rootful Podman's socket (for the test process and every process it
 * starts), and the engine that answers must be Podman (Docker otherwise).
 *
 * @module
 */
import { type DockerAvailability, dockerAvailable } from "../runner/docker/docker_available.ts";
import { dockerClient } from "../runner/docker/docker_client.ts";
import { engineIdentity, type EngineName } from "../runner/docker/engine_identity.ts";

/** Where rootful Podman's API service listens (`.ci/install_podman.sh` starts it). */
export const PODMAN_SOCKET = "/run/podman/podman.sock";

/** The variable naming the engine the tests run against: `docker` (default) or `podman`. */
export const TEST_ENGINE_VARIABLE = "LEDGERBENCH_TEST_ENGINE";

/**
 * Probes the engine once for `testFile`: the one `LEDGERBENCH_TEST_ENGINE`
 * names (Podman's socket for `podman` unless `DOCKER_HOST` names another).
 *
 * @returns the availability; when it is false the caller marks its tests `ignore`
 * @throws {Error} when the engine is unreachable under `CI=true`, when the
 *   probe lacked a Deno permission (a misconfigured test run, not an absent
 *   engine), or when another engine than the one asked for answers
 */
export async function requireDockerEngine(testFile: string): Promise<DockerAvailability> {
  const wanted = (Deno.env.get(TEST_ENGINE_VARIABLE) || "docker") as EngineName;
  if (wanted !== "docker" && wanted !== "podman") {
    throw new Error(`${TEST_ENGINE_VARIABLE} must be "docker" or "podman", not "${wanted}"`);
  }
  if (wanted === "podman" && !Deno.env.get("DOCKER_HOST")) {
    Deno.env.set("DOCKER_HOST", `unix://${PODMAN_SOCKET}`);
  }
  const [name, install] = wanted === "podman"
    ? ["Podman", ".ci/install_podman.sh"]
    : ["Docker", ".ci/install_docker.sh"];
  const engine = await dockerAvailable();
  if (engine.available) {
    const answering = await engineIdentity(dockerClient());
    if (answering.name !== wanted) {
      throw new Error(
        `${testFile} asked for the ${name} engine (${TEST_ENGINE_VARIABLE}), but ` +
          `${answering.label} answers on "${engine.socketPath}"`,
      );
    }
    return engine;
  }
  if (engine.code === "no_permission" || Deno.env.get("CI") === "true") {
    throw new Error(`${testFile} needs the ${name} engine: ${engine.reason} (run ${install})`);
  }
  console.warn(`${testFile} skipped: no ${name} engine: ${engine.reason}`);
  return engine;
}
