/**
 * Private: the started-container check of every sandbox (one-shot and
 * session containers alike) that its flags took effect.
 *
 * @module
 */
import type Docker from "dockerode";
import { engineIdentity } from "../docker/engine_identity.ts";
import { networkIsolationCheckable } from "./network_isolation_problem.ts";
import { sandboxFlagsProblem } from "./sandbox_flags_problem.ts";
import { SandboxError } from "./sandbox_error.ts";
import { procStat } from "../proc_stat.ts";

/** Looks, 100 ms apart, for a container that is ending before its problem is believed. */
const EXIT_WAITS = 10;

/**
 * Refuses a started container whose init does not run with the flags its
 * request asked for (`sandboxFlagsProblem`), before its own command runs.
 * Checked whenever the network isolation is (`networkIsolationCheckable`:
 * the same `/proc` reads), so a run that checks one checks both.
 *
 * @param docker the engine client (its identity names the engine in the message)
 * @param create the create request, before `engineCreateOptions`
 * @param containerId the container's ID
 * @param pid its init's host pid (0: it has exited, nothing to check). A
 *   container without a gate whose command ended before it could be read
 *   (its init a zombie, whose `/proc` shows the root cgroup, or gone) is
 *   not refused: nothing of it runs any more, and the probe before the batch
 *   (engine_flags_check.ts) proved the engine gives these flags
 * @throws {SandboxError} `isolation_failed` naming each flag that did not take effect and the engine
 */
export async function requireSandboxFlags(
  docker: Docker,
  create: Docker.ContainerCreateOptions,
  containerId: string,
  pid: number,
): Promise<void> {
  if (!(pid > 0) || !networkIsolationCheckable()) return;
  let problem = sandboxFlagsProblem(create, pid);
  // An exiting init is moved to the root cgroup (cgroup v1) before it turns zombie: give it
  // a second to end, then read once more; only a container that runs on refuses.
  for (let wait = 0; problem !== null && wait < EXIT_WAITS; wait++) {
    if (await exitedMeanwhile(docker, containerId, pid)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (problem !== null && await exitedMeanwhile(docker, containerId, pid)) return;
  if (problem !== null) problem = sandboxFlagsProblem(create, pid);
  if (problem === null) return;
  const engine = await engineIdentity(docker).then((e) => e.label, () => "its engine");
  throw new SandboxError(
    "isolation_failed",
    `Container "${
      containerId.slice(0, 12)
    }" does not run with the sandbox's flags on ${engine}: ${problem}`,
  );
}

/**
 * Whether the container's init `pid` has ended since it was inspected: it is
 * gone or a zombie (`/proc/<pid>/stat` state `Z`), or the engine no longer
 * reports the container running with that pid.
 */
async function exitedMeanwhile(docker: Docker, containerId: string, pid: number): Promise<boolean> {
  const stat = await procStat(pid);
  if (stat === null || stat.state === "Z") return true;
  const state = await docker.getContainer(containerId).inspect().then(
    (info) => info.State,
    () => null,
  );
  return state !== null && (!state.Running || state.Pid !== pid);
}
