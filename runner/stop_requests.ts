/**
 * What a stop signal asks of a run: the operator's first Ctrl-C (SIGINT) or
 * SIGTERM stops starting episodes, a second one kills the running ones
 * (README, "Stopping a run"). One keypress must be one request whatever
 * launched the runner: a terminal sends Ctrl-C's SIGINT to every process of
 * its foreground process group, and a launcher in that group may forward
 * its own copy to its child as well, so the runner receives one keypress
 * more than once, less than a millisecond apart. `npm exec` forwards
 * SIGINT to its child (`@npmcli/run-script`'s signal manager), and when its
 * script shell execs that child (bash, macOS's `/bin/sh`) the child is
 * `deno task`, which forwards every signal it receives to its own child
 * (`listen_and_forward_all_signals`, denoland/deno `cli/task_runner.rs`):
 * under `npx deno task ledgerbench run` one Ctrl-C reached the runner two
 * or three times and killed the running episodes. A signal's sender cannot
 * be read from Deno, so a stop signal within {@link SAME_REQUEST_MS} of the
 * first is taken as that same request; a deliberate second Ctrl-C, typed
 * after the runner's line about the first, comes later.
 *
 * @module
 */

/**
 * Stop signals this close (ms) after the first are the same request: its
 * copies from launchers arrive within milliseconds (measured under `npx deno
 * task`: 0.3 to 0.8 ms), a person's second keypress after reading the
 * runner's line takes longer.
 */
export const SAME_REQUEST_MS = 1000;

/** What one received stop signal asks: the first stops, a later one kills, a copy of the first nothing. */
export type StopRequest = "stop" | "kill" | "same";

/**
 * The stop-request rule of the module doc, as a function of each signal's
 * arrival time: the first signal is `"stop"`; any signal within
 * {@link SAME_REQUEST_MS} of the first is `"same"` (a launcher's copy of
 * it); any later one is `"kill"`. O(1) per signal.
 *
 * @param now the clock, in ms (default `performance.now`)
 * @returns a function to call on each stop signal, saying what it asks
 * @example
 * ```ts
 * import { stopRequests } from "./stop_requests.ts";
 * let t = 0;
 * const receive = stopRequests(() => t);
 * const asked = [receive(), receive()]; // a keypress and a launcher's copy of it
 * t = 2500;
 * asked.push(receive()); // a second keypress
 * if (asked.join() !== "stop,same,kill") throw new Error(asked.join());
 * ```
 */
export function stopRequests(now: () => number = () => performance.now()): () => StopRequest {
  let first: number | null = null;
  return () => {
    const at = now();
    if (first === null) {
      first = at;
      return "stop";
    }
    return at - first < SAME_REQUEST_MS ? "same" : "kill";
  };
}
