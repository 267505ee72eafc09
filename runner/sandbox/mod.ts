/**
 * The sandbox layer of the runner (seed 000, sections 02–04): candidate
 * sandboxes with seed 000's flags, content-addressed artifacts, and the
 * sealed verifier protocol (written once, `sealed_verifier.ts`) whose faults
 * are never counted against the candidate; the {@link EpisodeSandbox}
 * interface the episode skeleton runs behind, with its Docker and
 * `--unsandboxed` host implementations; the one session seam every
 * protocol runs on ({@link SandboxSession}, opened by a
 * {@link SessionBackend}: the container engine's, the host's); and for
 * Harbor's tasks a task's environment run as built, and Harbor's shared and
 * separate verifier modes written once on the session primitives.
 *
 * Typical episode:
 * ```ts ignore
 * const cand = await runCandidate(agentImage, { workspace: task.workspace, artifactsRoot }, {
 *   env, forbiddenValues: [upstreamKey], wallMs,
 *   onStarted: (session) => session.forwardPort(8080, relaySocket),
 * });
 * const outcome = await runVerifier(verifierImage, {
 *   artifact: cand.artifact!, verifierDir: task.verifierDir, expectedVerifierDigest,
 * });
 * ```
 *
 * @module
 */
export * from "./sandbox_error.ts";
export * from "./sandbox_limits.ts";
export * from "./digest_tree.ts";
export * from "./copy_tree.ts";
export * from "./remove_tree.ts";
export * from "./tail_text.ts";
export * from "./artifact_store.ts";
export * from "./candidate_protocol.ts";
export * from "./run_candidate.ts";
export * from "./sealed_verifier.ts";
export * from "./run_verifier.ts";
export * from "./network_isolation_problem.ts";
export * from "./episode_sandbox.ts";
export * from "./docker_sandbox.ts";
export * from "./host_sandbox.ts";
export * from "./sandbox_session.ts";
export * from "./docker_session.ts";
export * from "./environment_session.ts";
export * from "./environment_candidate.ts";
export * from "./harbor_verifier.ts";
export * from "./shared_hijacks.ts";
