/**
 * Freezing a plan before the first episode (seeds 002 and 003): the suite
 * hash, the task order shuffled once by a recorded seed, the agents (image
 * digests, models, environments, commands), caps, price table, stopping rule,
 * invalid policy, censoring thresholds, bootstrap seed, runner version and
 * verifier image. The plan file is canonical JSON; its SHA-256 is the plan's
 * identity, written beside it and recorded in every ledger row.
 *
 * @module
 */
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { shuffleOnce } from "../analysis/shuffle_once.ts";
import {
  type Caps,
  type CensoringPolicy,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  type ModelLimits,
  Plan,
  type PlannedAgent,
  type PlannedTask,
  type ProviderFeature,
  type StoppingRule,
} from "../analysis/schema/records.ts";
import type { Suite } from "../analysis/schema/suite_manifest.ts";
import type { LoadedPlan } from "../inputs/plan.ts";
import { RUNNER_WALL_MS } from "./effective_caps.ts";

/** What {@link freezePlan} needs besides the suite. */
export interface FreezeOptions {
  plan_id: string;
  /** ISO time the plan was frozen. */
  created_at: string;
  /**
   * Agents in the order they are listed; each with the image reference and its
   * ID, and optionally its model, environment and command.
   */
  agents: Array<
    & Pick<PlannedAgent, "agent_id" | "image" | "image_digest">
    & Partial<Pick<PlannedAgent, "model" | "env" | "command" | "bundle_digest">>
  >;
  /**
   * The tasks' own environments, prepared before freezing
   * (`prepareTaskEnvironments` in task_environments.ts): task id → image and
   * ID. A task of the suite that names an environment must be here.
   */
  task_environments?: Record<string, NonNullable<PlannedTask["environment"]>>;
  /**
   * The separate verifiers' own environments (`prepareVerifierEnvironments`):
   * task id → image and ID. A task whose verifier names one must be here.
   */
  verifier_environments?: Record<string, NonNullable<PlannedTask["verifier_environment"]>>;
  /**
   * The tasks' sidecar services' images (`prepareServiceEnvironments`):
   * task id → each service's image and ID. A task with services must be here.
   */
  service_environments?: Record<string, NonNullable<PlannedTask["services"]>>;
  /** The suite's check as found (`suiteCheckState` in suite_check.ts); absent: not recorded. */
  suite_check?: Plan["suite_check"];
  /** What agents of tasks with an `agent_network` may reach; absent: no agent has a network. */
  agent_egress?: Plan["agent_egress"];
  order_seed: number | string;
  /** Plan-wide caps; a null field falls back to each task's own limit at run time. */
  caps?: Partial<Caps>;
  price_table_id: string;
  stopping?: StoppingRule;
  invalid_policy?: "halt" | "rerun-task";
  max_attempts?: number;
  censoring?: CensoringPolicy;
  /** Thresholds for the share of missing tasks; absent: the censoring thresholds apply. */
  missing_policy?: CensoringPolicy;
  /** Thresholds for the share of invalid attempts; absent: the censoring thresholds apply. */
  invalid_rate_policy?: CensoringPolicy;
  /** Thresholds for the share of judge faults; absent: the censoring thresholds apply. */
  judge_fault_policy?: CensoringPolicy;
  bootstrap?: { rounds: number; seed: number | string };
  tie_band?: number;
  /**
   * Seed 000's output policy and context limit; an absent limit is null.
   * Absent: the plan has no `model_limits` (nothing applied or checked).
   */
  model_limits?: Partial<ModelLimits>;
  /**
   * The relay's upstream timeout per model call in ms; must be below every
   * episode's wall cap. Absent: 90% of the smallest wall cap, at most
   * `DEFAULT_UPSTREAM_TIMEOUT_MS` (see {@linkcode freezePlan}).
   */
  upstream_timeout_ms?: number;
  /** Provider features the relay may forward, sorted; absent or empty: none. */
  provider_features?: ProviderFeature[];
  runner_version: string;
  verifier_image: string;
  verifier_image_digest: string;
}

/**
 * Builds the frozen plan for `suite`.
 *
 * Rule for `upstream_timeout_ms` (issue 9, item 3): it must be below the
 * smallest wall cap an episode of the plan can have (per task, the plan's
 * `wall_ms_cap`, else the task's, else the runner's 300000 ms), so that a
 * call the upstream never answers ends as the provider's fault before the
 * wall cap can end the episode as the agent's. When not given, the plan
 * records 90% of that smallest wall cap, at most `DEFAULT_UPSTREAM_TIMEOUT_MS`
 * (a call still unanswered then leaves the agent no time to finish anyway).
 *
 * @param suite the loaded suite (its hash is recorded)
 * @param options agents, seeds, caps, rules and environment
 * @returns the plan, parsed through the `Plan` schema (defaults filled in)
 * @throws {Error} on an invalid field (named), a duplicate agent id, or an
 *   upstream timeout not below a wall cap
 */
export function freezePlan(suite: Suite, options: FreezeOptions): Plan {
  const smallest = Math.min(
    ...suite.manifest.tasks.map((task) =>
      options.caps?.wall_ms_cap ?? task.limits.wall_ms_cap ?? RUNNER_WALL_MS
    ),
  );
  const timeout = options.upstream_timeout_ms ??
    Math.min(DEFAULT_UPSTREAM_TIMEOUT_MS, Math.floor(smallest * 0.9));
  if (!(timeout < smallest)) {
    throw new Error(
      `Cannot freeze plan: the upstream timeout of ${timeout} ms must be below the smallest wall cap, ${smallest} ms`,
    );
  }
  const ids = new Set<string>();
  for (const agent of options.agents) {
    if (ids.has(agent.agent_id)) {
      throw new Error(`Cannot freeze plan: agent "${agent.agent_id}" is listed twice`);
    }
    ids.add(agent.agent_id);
  }
  const environments = options.task_environments ?? {};
  const verifierEnvironments = options.verifier_environments ?? {};
  const serviceEnvironments = options.service_environments ?? {};
  for (const task of suite.manifest.tasks) {
    if (task.services !== undefined && serviceEnvironments[task.task_id] === undefined) {
      throw new Error(
        `Cannot freeze plan: task "${task.task_id}" names services that were not prepared`,
      );
    }
    if (task.environment !== undefined && environments[task.task_id] === undefined) {
      throw new Error(
        `Cannot freeze plan: task "${task.task_id}" names an environment that was not prepared`,
      );
    }
    if (
      task.verifier?.environment !== undefined &&
      verifierEnvironments[task.task_id] === undefined
    ) {
      throw new Error(
        `Cannot freeze plan: task "${task.task_id}" names a verifier environment that was not ` +
          "prepared",
      );
    }
  }
  const tasks: PlannedTask[] = shuffleOnce(
    suite.manifest.tasks.map((task) => ({
      task_id: task.task_id,
      lane: task.lane,
      ...(environments[task.task_id] === undefined
        ? {}
        : { environment: environments[task.task_id] }),
      ...(verifierEnvironments[task.task_id] === undefined
        ? {}
        : { verifier_environment: verifierEnvironments[task.task_id] }),
      ...(serviceEnvironments[task.task_id] === undefined
        ? {}
        : { services: serviceEnvironments[task.task_id] }),
    })),
    options.order_seed,
  );
  const parsed = Plan.safeParse({
    plan_id: options.plan_id,
    created_at: options.created_at,
    suite_id: suite.manifest.suite_id,
    suite_sha256: suite.sha256,
    order_seed: options.order_seed,
    tasks,
    agents: options.agents.map((agent) => ({ model: null, ...agent })),
    lane_weights: suite.manifest.lane_weights,
    caps: { token_cap: null, step_cap: null, wall_ms_cap: null, ...options.caps },
    price_table_id: options.price_table_id,
    // Absent choices take the plan schema's defaults (the seeds', analysis/defaults.ts).
    stopping: options.stopping,
    invalid_policy: options.invalid_policy,
    max_attempts: options.max_attempts,
    censoring: options.censoring,
    ...(options.missing_policy === undefined ? {} : { missing_policy: options.missing_policy }),
    ...(options.invalid_rate_policy === undefined
      ? {}
      : { invalid_rate_policy: options.invalid_rate_policy }),
    ...(options.judge_fault_policy === undefined
      ? {}
      : { judge_fault_policy: options.judge_fault_policy }),
    bootstrap: options.bootstrap,
    tie_band: options.tie_band,
    ...(options.model_limits === undefined ? {} : {
      model_limits: {
        max_output_tokens: null,
        context_limit_tokens: null,
        ...options.model_limits,
      },
    }),
    upstream_timeout_ms: timeout,
    ...(options.provider_features === undefined || options.provider_features.length === 0
      ? {}
      : { provider_features: options.provider_features }),
    ...(options.suite_check === undefined ? {} : { suite_check: options.suite_check }),
    ...(options.agent_egress === undefined ? {} : { agent_egress: options.agent_egress }),
    environment: {
      runner_version: options.runner_version,
      verifier_image: options.verifier_image,
      verifier_image_digest: options.verifier_image_digest,
    },
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Cannot freeze plan: field "${issue.path.join(".")}": ${issue.message}`);
  }
  return parsed.data;
}

/** A plan as stored: its path, its bytes' SHA-256 and the plan (as `loadPlan` in inputs/plan.ts returns it). */
export type FrozenPlan = LoadedPlan;

/**
 * Writes `plan` as canonical JSON to `path` and its SHA-256 to `<path>.sha256`
 * (in `sha256sum` format, so `sha256sum -c plan.json.sha256` checks it).
 * Refuses to overwrite an existing plan: a frozen plan is never edited.
 *
 * @param path the plan file
 * @param plan the plan
 * @returns the stored plan and its hash
 * @throws {Error} when the file exists
 */
export async function writePlan(path: string, plan: Plan): Promise<FrozenPlan> {
  const text = canonicalJson(plan);
  const sha256 = sha256Hex(text);
  try {
    await Deno.writeTextFile(path, text, { createNew: true });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new Error(`Cannot freeze plan: "${path}" exists; a frozen plan is never rewritten`);
    }
    throw error;
  }
  const name = path.split("/").at(-1)!;
  await Deno.writeTextFile(`${path}.sha256`, `${sha256}  ${name}\n`);
  return { path, sha256, value: plan };
}
