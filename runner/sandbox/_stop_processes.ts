/**
 * Private: stops every process of a container but those kept, from the
 * host, with `SIGSTOP` (which a process can neither catch nor ignore,
 * signal(7)). A stopped process cannot fork, write or connect; one that
 * forked between a listing and its stop is found by the next listing. A
 * signal is delivered when the process next runs, not when it is sent, and
 * a process signalled in the middle of `fork(2)` finishes it first: the
 * child joins the cgroup after the parent was signalled, perhaps after a
 * listing that found nothing new (since Linux 5.0 a signal sent to one
 * process during its fork is not repeated to the child). So a listing is
 * final only when taken after each process signalled is seen stopped
 * (state `T`, proc(5)) or gone: nothing stopped forks, so nothing can join
 * after it. The container's `cgroup.procs` is the listing (every process
 * of the container, host PIDs, without the engine's round trip).
 *
 * What it is for: in Harbor's shared verifier mode the tests run in the
 * candidate's container; what the candidate left running must not run
 * beside them (seed 000: nothing the candidate writes may reach the
 * verifier's files or the verdict channel).
 *
 * @module
 */
import { cgroupPids } from "./_cgroup_dir.ts";
import { procStat } from "../proc_stat.ts";

/** Listings before the stopping gives up (a fork bomb under the pids limit ends well before). */
const MAX_ROUNDS = 200;

/**
 * Stops the processes listed in `cgroupProcs` that `keep` does not keep,
 * until a listing taken after all of them are seen stopped finds none
 * that is not kept.
 *
 * @param cgroupProcs the container cgroup's `cgroup.procs` file on the host
 * @param keep the host PIDs to leave running
 * @returns the PIDs stopped, ascending
 * @throws {Error} when processes still appear after {@link MAX_ROUNDS} listings
 */
export async function stopProcesses(
  cgroupProcs: string,
  keep: ReadonlySet<number>,
): Promise<number[]> {
  const stopped = new Set<number>();
  const unstopped = async () =>
    (await cgroupPids(cgroupProcs)).filter((pid) => !keep.has(pid) && !stopped.has(pid));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let running = await unstopped();
    if (running.length === 0) {
      const allStopped = await untilStopped(stopped);
      running = await unstopped();
      if (running.length === 0 && allStopped) return [...stopped].sort((a, b) => a - b);
    }
    for (const pid of running) {
      try {
        Deno.kill(pid, "SIGSTOP");
      } catch {
        // it ended meanwhile
      }
      stopped.add(pid);
    }
  }
  throw new Error(
    `Processes kept appearing in "${cgroupProcs}" after ${MAX_ROUNDS} rounds of stopping`,
  );
}

/** Rounds of 10 ms waited for a signalled process to be seen stopped (a process in `D` state stops on waking). */
const STOP_WAIT_ROUNDS = 200;

/** Waits until each of `pids` is stopped or gone, at most {@link STOP_WAIT_ROUNDS} rounds; whether they all were. */
async function untilStopped(pids: ReadonlySet<number>): Promise<boolean> {
  let waiting = [...pids];
  for (let round = 0; round < STOP_WAIT_ROUNDS && waiting.length > 0; round++) {
    const states = await Promise.all(waiting.map(async (pid) => {
      const stat = await procStat(pid);
      // Gone, a zombie, or stopped: it runs no more.
      return stat === null || ["Z", "X", "T", "t"].includes(stat.state);
    }));
    waiting = waiting.filter((_, i) => !states[i]);
    if (waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return waiting.length === 0;
}

/**
 * Lets stopped processes of a container run again (`SIGCONT`), those of
 * `pids` that are still listed in its `cgroup.procs` (a PID reused outside
 * the container is never signalled).
 *
 * @param cgroupProcs the container cgroup's `cgroup.procs` file on the host
 * @param pids the host PIDs to resume
 */
export async function resumeProcesses(
  cgroupProcs: string,
  pids: readonly number[],
): Promise<void> {
  const listed = new Set(await cgroupPids(cgroupProcs));
  for (const pid of pids.filter((pid) => listed.has(pid))) {
    try {
      Deno.kill(pid, "SIGCONT");
    } catch {
      // it ended meanwhile
    }
  }
}
