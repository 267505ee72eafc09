/**
 * One rule for every test file that needs the real Docker engine: on a
 * developer's machine without an engine those tests are skipped with a loud
 * message, but in CI (`CI=true`, set by `.ci/run`) a missing engine is a
 * failure, so a broken install can never pass as green.
 *
 * @module
 */
import { type DockerAvailability, dockerAvailable } from "../runner/docker/docker_available.ts";

/**
 * Probes the engine once for `testFile`.
 *
 * @returns the availability; when it is false the caller marks its tests `ignore`
 * @throws {Error} when the engine is unreachable under `CI=true`, or when the
 *   probe lacked a Deno permission (a misconfigured test run, not an absent engine)
 */
export async function requireDockerEngine(testFile: string): Promise<DockerAvailability> {
  const engine = await dockerAvailable({ timeoutMs: 5000 });
  if (engine.available) return engine;
  if (engine.code === "no_permission" || Deno.env.get("CI") === "true") {
    throw new Error(
      `${testFile} needs the Docker engine: ${engine.reason} (run .ci/install_docker.sh)`,
    );
  }
  console.warn(`${testFile} skipped: no Docker engine: ${engine.reason}`);
  return engine;
}
