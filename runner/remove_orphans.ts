/**
 * Containers left behind by a runner that was killed (SIGKILL, power loss):
 * the runner labels every candidate and verifier container with
 * `ledgerbench.run=<run id>`, and a resumed run removes that run's leftovers
 * before it starts, so an orphaned agent cannot keep spending or writing
 * while its episode is re-run. Each container also carries its runner
 * (`ledgerbench.runner=<host>/<pid>/<start>`, runner_identity.ts), and only
 * a container whose runner is gone is removed: a live run's never is, even
 * one of the same run id on another ledger (issue 9, item 4).
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "./docker/docker_client.ts";
import { engineCall } from "./docker/engine_call.ts";
import { currentRunner, parseRunnerLabel, runnerAlive, runnerLabel } from "./runner_identity.ts";

/** The label carrying the run id. */
export const RUN_LABEL = "ledgerbench.run";

/** The label carrying the runner process (`runnerLabel`). */
export const RUNNER_LABEL = "ledgerbench.runner";

/**
 * The labels of an episode's containers: its run, the episode and this
 * runner process.
 *
 * @param episode the episode's run and episode ids
 * @returns the labels
 */
export function episodeLabels(
  episode: { run_id: string; episode_id: string },
): Record<string, string> {
  return {
    [RUN_LABEL]: episode.run_id,
    "ledgerbench.episode": episode.episode_id,
    [RUNNER_LABEL]: runnerLabel(currentRunner()),
  };
}

/**
 * Force-removes every container (running or not) labelled with `runId`
 * whose runner is gone: its `ledgerbench.runner` label names a process that
 * is no longer running, or it has none (written before the label existed;
 * only when the caller holds the ledger's lock, `unlabelled: true`).
 *
 * @param runId the run whose containers to remove
 * @param options the client (default the shared one); `unlabelled`: also
 *   remove containers without a runner label (default true: `run` holds the
 *   ledger's lock; a cluster node, which does not, passes false)
 * @returns the ids of the containers removed
 * @throws {Error} when the engine refuses the listing
 * @throws {EngineDeadlineError} when the engine does not answer a request within its deadline
 */
export async function removeOrphans(
  runId: string,
  options: { docker?: Docker; unlabelled?: boolean } = {},
): Promise<string[]> {
  const docker = options.docker ?? dockerClient();
  const found = await engineCall(
    `list the containers of run "${runId}"`,
    (abortSignal) =>
      docker.listContainers({
        all: true,
        filters: { label: [`${RUN_LABEL}=${runId}`] },
        abortSignal,
      }),
  );
  const removed: string[] = [];
  for (const info of found) {
    const label = info.Labels?.[RUNNER_LABEL];
    const runner = label === undefined ? null : parseRunnerLabel(label);
    if (
      label === undefined ? options.unlabelled === false : runner === null || runnerAlive(runner)
    ) {
      continue;
    }
    try {
      await engineCall(
        `remove container "${info.Id.slice(0, 12)}"`,
        (abortSignal) => docker.getContainer(info.Id).remove({ force: true, abortSignal }),
      );
      removed.push(info.Id);
    } catch (error) {
      // Already gone, or on its way out (removed by its own runner, or by another runner's
      // sweep: the engine answers 409 "removal ... already in progress"), is fine.
      const status = (error as { statusCode?: number }).statusCode;
      if (status !== 404 && status !== 409) throw error;
    }
  }
  return removed;
}
