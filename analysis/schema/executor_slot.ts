/**
 * The two files by which a cluster executor hands one episode slot to a
 * node and gets its row back (issue 24, "An executor seam"): the run process
 * writes a {@link SlotRequest} under the run's shared directory, the array
 * task on the node runs the episode exactly as `run` would locally and
 * writes a {@link SlotResult} beside it (atomically: written, synced, then
 * renamed), which the run process checks and appends. The ledger keeps one
 * writer, the `run` process.
 *
 * Neither file ever holds an upstream key: the request names the upstream
 * options as given on `run`'s command line (URLs and script files), and
 * each node's relay reads the key from its own environment or key file.
 *
 * @module
 */
import { z } from "zod";
import { EpisodeInput, Id, Sha256 } from "./records.ts";

/** The planned episode a slot runs (`PlannedEpisode`, runner/batch_state.ts). */
export const SlotEpisode = z.object({
  run_id: Id,
  agent_id: Id,
  task_id: Id,
  lane: z.string(),
  position: z.number().int().nonnegative(),
  attempt: z.number().int().positive(),
  episode_id: Id,
}).strict();
export type SlotEpisode = z.infer<typeof SlotEpisode>;

/**
 * The upstream options of `run` a node resolves for itself, exactly as
 * given (`[ID=][KIND+]URL` or `[ID=][KIND+]FILE`); keys never.
 */
export const SlotUpstreamOptions = z.object({
  upstream: z.array(z.string()),
  provider_script: z.array(z.string()),
  expect_model: z.array(z.string()),
  judge_upstream: z.string().nullable(),
  judge_provider_script: z.string().nullable(),
}).strict();
export type SlotUpstreamOptions = z.infer<typeof SlotUpstreamOptions>;

/** One episode slot, as the run process hands it to a node. */
export const SlotRequest = z.object({
  /** Absolute path of the frozen plan; its hash is checked again on the node. */
  plan: z.string().min(1),
  plan_sha256: Sha256,
  /** Absolute path of the suite directory (hashed again on the node). */
  suite: z.string().min(1),
  /** Absolute path of the artifact store. */
  artifacts: z.string().min(1),
  /** Working directory the upstream options' relative paths are read from. */
  cwd: z.string().min(1),
  /** The run's frozen digests of each task's hidden verifier files, checked on the node. */
  verifier_digests: z.record(z.string(), z.string()),
  episode: SlotEpisode,
  /** Notes the runner wants in the row (rerun, torn-line re-run). */
  notes: z.array(z.string()),
  upstreams: SlotUpstreamOptions,
}).strict();
export type SlotRequest = z.infer<typeof SlotRequest>;

/**
 * What came back from a slot: the episode's row draft, or the reason the
 * node could not run the episode at all (a harness fault: the node's images
 * or suite differ from the plan, the plan cannot be read there).
 */
export const SlotResult = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    /** The host name of the node that ran it. */
    node: z.string(),
    draft: EpisodeInput.omit({ prev_sha256: true }),
  }).strict(),
  z.object({
    ok: z.literal(false),
    node: z.string(),
    error: z.string(),
  }).strict(),
]);
export type SlotResult = z.infer<typeof SlotResult>;
