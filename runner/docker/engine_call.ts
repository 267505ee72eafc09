/**
 * Deadlines on Docker Engine API calls (issue 9, item 1): a request to an
 * engine that was killed or stalls may never be answered, so every call the
 * runner makes is bounded, and a missed deadline is a harness fault.
 *
 * @module
 */
import { WALL_CAP_KILL_MS } from "../../analysis/classify_episode.ts";

/**
 * Deadline of one engine request (inspect, logs, create, start, kill,
 * remove), and the grace the engine gets to report a container's exit after
 * its kill was requested: about 100 times what a loaded engine takes here.
 * It is `WALL_CAP_KILL_MS`, the latency `validate` allows a row killed at
 * its wall cap.
 */
export const ENGINE_DEADLINE_MS = WALL_CAP_KILL_MS;

/** An engine request that was not answered in time: the engine is lost or stalled. */
export class EngineDeadlineError extends Error {
  /**
   * @param what the request, e.g. `inspect container "3f2a..."`
   * @param ms its deadline
   */
  constructor(what: string, ms: number) {
    super(
      `The Docker engine did not answer "${what}" within ${ms} ms: the engine is lost or stalled`,
    );
    this.name = "EngineDeadlineError";
  }
}

/** Options of {@linkcode engineCall}. */
export interface EngineCallOptions {
  /** The request's deadline in milliseconds; default {@linkcode ENGINE_DEADLINE_MS}. */
  deadlineMs?: number;
}

/**
 * Runs one engine request under a deadline: the request gets an abort signal
 * (dockerode's `abortSignal`, which closes its connection), and the result
 * rejects at the deadline even if the request ignores the signal.
 *
 * @example
 * ```ts ignore
 * const info = await engineCall(`inspect ${id}`, (abortSignal) =>
 *   docker.getContainer(id).inspect({ abortSignal }));
 * ```
 *
 * @param what the request, named in the error
 * @param call makes the request with the given abort signal
 * @param options the deadline
 * @returns the request's result
 * @throws {EngineDeadlineError} when the deadline passes first
 * @throws {unknown} the request's own error
 */
export function engineCall<T>(
  what: string,
  call: (signal: AbortSignal) => Promise<T>,
  options: EngineCallOptions = {},
): Promise<T> {
  const ms = options.deadlineMs ?? ENGINE_DEADLINE_MS;
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      controller.abort();
      reject(new EngineDeadlineError(what, ms));
    }, ms);
    let request: Promise<T>;
    try {
      request = call(controller.signal);
    } catch (error) {
      request = Promise.reject(error);
    }
    request.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
