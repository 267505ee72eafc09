/**
 * One episode slot on a cluster node (issue 24): what a Slurm array task
 * runs (`ledgerbench slot REQUEST`). It runs the episode exactly as `run`
 * does locally, through the `local` executor on this node's engine, relay
 * and sandbox, and writes the row back beside the request, atomically; it
 * never touches the ledger, which only the `run` process writes.
 *
 * On the node it checks, as `run` does at its start: the plan's hash (the
 * request's), the runner version, the suite's hash and the images' digests;
 * the hidden verifier files are checked against the run's frozen digests,
 * not the node's own. A node that fails a check answers with the reason
 * (`ok: false`), which the run records as a harness fault, never the
 * agent's. Before the episode it removes what runners of this run that are
 * gone left on this node (containers, temporary directories), as a resume
 * does locally.
 *
 * Aborted (Slurm's SIGTERM on `scancel` or at the time limit), the episode
 * is killed and its containers removed, and no result is written: the run
 * knows the slot from Slurm's state.
 *
 * @module
 */
import type { Plan, PlannedAgent } from "../../analysis/schema/records.ts";
import { SlotRequest, type SlotResult } from "../../analysis/schema/executor_slot.ts";
import { loadJsonFile } from "../../inputs/json_file.ts";
import { loadPlan } from "../../inputs/plan.ts";
import { checkEnvironment } from "../environment_check.ts";
import type { Upstream } from "../relay/upstream.ts";
import { removeOrphans } from "../remove_orphans.ts";
import { createRunTempDir, removeDeadRunnerTempDirs } from "../run_temp_dir.ts";
import { runnerVersion } from "../runner_version.ts";
import { createLocalExecutor } from "./local_executor.ts";
import { SLOT_KEY_VARIABLE, writeSlotResult } from "./slot_result_file.ts";

/** The upstreams a node started for a slot, and how to stop them. */
export interface SlotUpstreams {
  upstream: (agent: PlannedAgent) => Upstream;
  judgeUpstream?: Upstream;
  close(): Promise<void>;
}

/** Options of {@link runSlot}. */
export interface RunSlotOptions {
  /** Starts the upstreams the request names, on this node (cli/_run_upstreams.ts). */
  startUpstreams: (request: SlotRequest, plan: Plan) => Promise<SlotUpstreams>;
  /** Aborted by Slurm's SIGTERM: the episode is killed and no result written. */
  signal: AbortSignal;
  /** Where this runner's temporary directory goes; default `TMPDIR` or `/tmp`. */
  tempDir?: string;
}

/**
 * Runs the slot of `requestPath` and writes its result beside it.
 *
 * @param requestPath the request written by the run process
 * @param options how to start upstreams, the abort signal
 * @returns the result written, or null when the slot was aborted (nothing written)
 * @throws {Error} only when the result itself cannot be written
 */
export async function runSlot(
  requestPath: string,
  options: RunSlotOptions,
): Promise<SlotResult | null> {
  const node = Deno.hostname();
  let result: SlotResult;
  try {
    const draft = await runRequest(requestPath, options);
    if (draft === null) return null;
    // The row as the local executor built it; the run parses it again when it appends it.
    result = { ok: true, node, draft: draft as Extract<SlotResult, { ok: true }>["draft"] };
  } catch (error) {
    if (options.signal.aborted) return null;
    result = { ok: false, node, error: (error as Error).message };
  }
  await writeSlotResult(requestPath, result, Deno.env.get(SLOT_KEY_VARIABLE));
  return result;
}

async function runRequest(requestPath: string, options: RunSlotOptions) {
  const request = (await loadJsonFile(requestPath, SlotRequest)).value;
  const frozen = await loadPlan(request.plan, {
    frozen: true,
    expectedSha256: request.plan_sha256,
  });
  const plan = frozen.value;
  // Without the ledger's lock here: only containers whose runner is known to be gone.
  await removeOrphans(request.episode.run_id, { unlabelled: false });
  await removeDeadRunnerTempDirs(options.tempDir, () => {});
  await using temp = await createRunTempDir(options.tempDir);
  const environment = await checkEnvironment(plan, {
    suiteDir: request.suite,
    runnerVersion: await runnerVersion(),
    tempDir: temp.path,
  });
  const upstreams = await options.startUpstreams(request, plan);
  try {
    const execute = createLocalExecutor({
      plan,
      planSha256: frozen.sha256,
      environment,
      artifactsRoot: request.artifacts,
      upstream: upstreams.upstream,
      judgeUpstream: upstreams.judgeUpstream,
      verifierDigests: request.verifier_digests,
      tempDir: temp.path,
    });
    const draft = await execute(request.episode, { notes: request.notes, signal: options.signal });
    return options.signal.aborted ? null : draft;
  } finally {
    await upstreams.close();
  }
}
