/**
 * How a process a sandbox ran ended: the one record every backend's runs
 * share (a session's `exec`, a container run to its end, a candidate, a
 * host process, a sealed verifier's driver), so that the protocols above
 * read the same fields whatever ran it. The wall cap and the abort are
 * told apart because they are judged apart: the cap is the candidate's
 * stop reason `wall_cap`, an abort is the operator's.
 *
 * @module
 */

/** How one process (or a container's) ended, measured by the runner. */
export interface ProcessEnd {
  /** Its exit code (137 after a kill; -1 when the engine reported none). */
  exitCode: number;
  /** The runner killed it at its wall-clock cap. */
  wallCapHit: boolean;
  /** The runner killed it because its signal aborted. */
  aborted: boolean;
  /** Milliseconds from its start to its end, measured on the host. */
  wallMs: number;
  /** ISO time of its start. */
  startedAt: string;
  /** ISO time of its end. */
  finishedAt: string;
}
