/**
 * Containers left behind by a runner that was killed (SIGKILL, power loss):
 * the runner labels every candidate and verifier container with
 * `ledgerbench.run=<run id>`, and a resumed run removes that run's leftovers
 * before it starts, so an orphaned agent cannot keep spending or writing
 * while its episode is re-run.
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "./docker/docker_client.ts";

/** The label carrying the run id. */
export const RUN_LABEL = "ledgerbench.run";

/**
 * Force-removes every container (running or not) labelled with `runId`.
 *
 * @param runId the run whose containers to remove
 * @param options the client (default the shared one)
 * @returns the ids of the containers removed
 * @throws {Error} when the engine refuses the listing
 */
export async function removeOrphans(
  runId: string,
  options: { docker?: Docker } = {},
): Promise<string[]> {
  const docker = options.docker ?? dockerClient();
  const found = await docker.listContainers({
    all: true,
    filters: { label: [`${RUN_LABEL}=${runId}`] },
  });
  const removed: string[] = [];
  for (const info of found) {
    try {
      await docker.getContainer(info.Id).remove({ force: true });
      removed.push(info.Id);
    } catch (error) {
      // Already gone (removed by its own runner on the way out) is fine.
      if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    }
  }
  return removed;
}
