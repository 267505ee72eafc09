/**
 * One rule for every test file that needs a real Slurm cluster: on a
 * developer's machine without one those tests are skipped with a loud
 * message, but in CI (`CI=true`, set by `.ci/run`) a missing cluster is a
 * failure, so a broken install can never pass as green (as
 * tests/_docker_engine.ts does for the Docker engine).
 *
 * @module
 */
import { type SlurmAvailability, slurmAvailable } from "../runner/slurm/slurm_available.ts";

/**
 * Probes the cluster once for `testFile`.
 *
 * @param testFile the test file, named in the message
 * @returns the availability; when it is false the caller marks its tests `ignore`
 * @throws {Error} when no cluster answers under `CI=true`, or when the probe
 *   lacked a Deno permission (a misconfigured test run, not an absent cluster)
 */
export async function requireSlurmCluster(testFile: string): Promise<SlurmAvailability> {
  const cluster = await slurmAvailable({ timeoutMs: 10_000 });
  if (cluster.available) return cluster;
  if (cluster.code === "no_permission" || Deno.env.get("CI") === "true") {
    throw new Error(
      `${testFile} needs a Slurm cluster: ${cluster.reason} (run .ci/install_slurm.sh)`,
    );
  }
  console.warn(`${testFile} skipped: no Slurm cluster: ${cluster.reason}`);
  return cluster;
}
