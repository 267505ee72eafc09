/**
 * The error the sandbox layer throws for harness failures.
 *
 * @module
 */

/**
 * What went wrong, for programs to branch on:
 * - `image_missing`: the image is not present locally (it is never pulled);
 * - `forbidden_value`: a secret would have entered the sandbox (environment
 *   or workspace), so the container was not started;
 * - `hook_failed`: the `onStarted` hook (the relay forwarder) threw;
 * - `too_large`: a tree exceeded its byte budget (a candidate that fills its
 *   workspace; the episode is the candidate's failure, not the harness's);
 * - `unstorable`: a tree holds a name that is not UTF-8, or a path deeper or
 *   longer than its budget (what the candidate wrote: its failure too);
 * - `workspace_failed`: the runner could not mount the candidate's
 *   size-limited workspace, or the container did not get it;
 * - `store_deadline`: storing a workspace within the limits took longer than
 *   its deadline (the harness's fault);
 * - `engine_error`: the Docker engine refused or failed a request, or did
 *   not answer it within its deadline (`engineCall`: a killed or stalled engine);
 * - `isolation_failed`: a started container was not alone in its own network
 *   namespace with only loopback (it shared the runner's, or had another
 *   interface), so it was killed;
 * - `bundle_invalid`: an image to bring into a task's environment has a
 *   bundle label that is not a command (`image_bundle.ts`);
 * - `unsupported`: a protocol asked a session for what its backend declares
 *   it cannot do (`SessionCapabilities`): the runner's fault for choosing it;
 * - `environment_unhealthy`: a task's environment never passed its
 *   healthcheck (Harbor's `[environment.healthcheck]`) before the agent
 *   could start: the task's fault, never the agent's.
 */
export type SandboxErrorCode =
  | "image_missing"
  | "forbidden_value"
  | "hook_failed"
  | "too_large"
  | "unstorable"
  | "workspace_failed"
  | "store_deadline"
  | "engine_error"
  | "isolation_failed"
  | "bundle_invalid"
  | "unsupported"
  | "environment_unhealthy";

/**
 * A harness-side failure of the sandbox layer (the runner records it as an
 * invalid `harness_error` episode, except `too_large` and `unstorable`, see
 * the codes). The
 * error is data: `code` for programs, `message` for people.
 */
export class SandboxError extends Error {
  /** Machine-readable reason. */
  readonly code: SandboxErrorCode;

  /**
   * @param code machine-readable reason
   * @param message sentence-case message, no final period
   * @param options the underlying error, if any
   */
  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SandboxError";
    this.code = code;
  }
}
