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
 * after it. A process is judged by its state in each listing, never by
 * having been signalled before (its PID may name another process by now). The container's `cgroup.procs` is the listing (every process
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

/** Rounds before the stopping gives up (a fork bomb under the pids limit ends well before). */
const MAX_ROUNDS = 2000;

/** Milliseconds between rounds that signalled a process (its stop is delivered when it next runs). */
const ROUND_PAUSE_MS = 5;

/** Whether a process's `stat` says it runs no more: gone, a zombie, or stopped (proc(5)). */
async function runsNoMore(pid: number): Promise<boolean> {
  const stat = await procStat(pid);
  return stat === null || ["Z", "X", "T", "t"].includes(stat.state);
}

/**
 * Stops the processes listed in `cgroupProcs` that `keep` does not keep,
 * until every one listed is seen stopped and a listing taken after that
 * finds no other.
 *
 * Each round reads the listing and each listed process's state, and stops
 * those not stopped, whatever was signalled before: a PID is a name, not a
 * process, and a fork loop wraps the host's PIDs within seconds (`pid_max`
 * is 32768 by default), so a PID signalled in an earlier round may by now
 * name a new child that was never stopped.
 *
 * @param cgroupProcs the container cgroup's `cgroup.procs` file on the host
 * @param keep the host PIDs to leave running
 * @returns the PIDs stopped, ascending
 * @throws {Error} when processes still run after {@link MAX_ROUNDS} rounds
 */
export async function stopProcesses(
  cgroupProcs: string,
  keep: ReadonlySet<number>,
): Promise<number[]> {
  const stopped = new Set<number>();
  const listing = async () => (await cgroupPids(cgroupProcs)).filter((pid) => !keep.has(pid));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const listed = await listing();
    const still = await Promise.all(listed.map(runsNoMore));
    const running = listed.filter((_, i) => !still[i]);
    if (running.length === 0) {
      const seen = new Set(listed);
      if ((await listing()).every((pid) => seen.has(pid))) {
        return [...stopped].filter((pid) => seen.has(pid)).sort((a, b) => a - b);
      }
      continue;
    }
    for (const pid of running) {
      try {
        Deno.kill(pid, "SIGSTOP");
        stopped.add(pid);
      } catch {
        // it ended meanwhile
      }
    }
    await new Promise((resolve) => setTimeout(resolve, ROUND_PAUSE_MS));
  }
  throw new Error(
    `Processes kept running in "${cgroupProcs}" after ${MAX_ROUNDS} rounds of stopping`,
  );
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
