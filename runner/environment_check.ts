/**
 * The frozen environment against the real one (seed 002: "运行环境也要冻结 …
 * 镜像摘要中途变化，就停止当前计划"): before a run starts, the runner version,
 * the suite hash and every image digest must equal the plan's; before each
 * episode, the agent's and the verifier's image references must still
 * resolve to the frozen digests. One check for every sandbox (issue 12): an
 * `--unsandboxed` run checks the same runner version, suite hash and task
 * list, resolves no image (none runs) and needs a host command per agent.
 *
 * @module
 */
import type { Plan } from "../analysis/schema/records.ts";
import type { PlannedEpisode } from "./batch_state.ts";
import { imageDigest } from "./docker/image_digest.ts";
import { loadSuite } from "../inputs/suite.ts";
import type { EnvironmentCheck } from "./run_batch.ts";
import { digestTree } from "./sandbox/digest_tree.ts";
import { type Suite, taskPaths } from "../analysis/schema/suite_manifest.ts";
import type { TaskSandboxSettings } from "./sandbox/docker_sandbox.ts";
import { exportImageBundle, type ImageBundle } from "./sandbox/image_bundle.ts";
import { asksForOwnSandbox, taskSandboxSettings } from "./task_settings.ts";
import { engineFlagsCheck } from "./sandbox/engine_flags_check.ts";

/** What the checks resolved, for the executor. */
export interface ResolvedEnvironment {
  suite: Suite;
  /** Task id → what it asks of the Docker sandbox (`taskSandboxSettings`). */
  taskSettings: Record<string, TaskSandboxSettings>;
  /**
   * Agent id → its image exported as a bundle, checked against the plan's
   * `bundle_digest`; empty unless a task has its own environment.
   */
  agentBundles: Record<string, ImageBundle>;
  /** The verifier image exported as a kit; null unless a task has its own environment. */
  verifierKit: ImageBundle | null;
  /** Agent id → image ID (equal to the plan's digest); empty in an unsandboxed run. */
  agentImages: Record<string, string>;
  /** The verifier's image ID; null in an unsandboxed run (no image runs). */
  verifierImage: string | null;
  /** Task id → digest of its hidden verifier files, frozen for the run. */
  verifierDigests: Record<string, string>;
  runnerVersion: string;
}

/** The environment does not match the plan; every mismatch is listed. */
export class EnvironmentMismatchError extends Error {
  /** One sentence per mismatch. */
  readonly mismatches: string[];

  /** @param mismatches at least one */
  constructor(mismatches: string[]) {
    super(`Cannot run the plan: the environment does not match it: ${mismatches.join("; ")}`);
    this.name = "EnvironmentMismatchError";
    this.mismatches = mismatches;
  }
}

/** Resolves an image reference to its ID; null when absent. */
export type ImageResolver = (ref: string) => Promise<string | null>;

/** Options of {@link checkEnvironment}. */
export interface CheckEnvironmentOptions {
  /** The suite directory to load and hash. */
  suiteDir: string;
  /** The running runner's version. */
  runnerVersion: string;
  /** Image lookup; default `imageDigest` (never pulls). */
  resolveImage?: ImageResolver;
  /**
   * The `--unsandboxed` run's host commands, agent id → argv: when given, no
   * image is resolved and every agent must have one.
   */
  hostCommands?: Record<string, readonly string[]>;
  /** Where to export the bundles (the run's temporary directory); default the system's. */
  tempDir?: string;
  /**
   * The images are on the nodes of a cluster, not here (`run --executor
   * slurm`): no image is resolved or exported here, and each node checks
   * its own before its slot (runner/executor/run_slot.ts).
   */
  imagesOnNodes?: boolean;
  /**
   * Export and check each agent's bundle for the tasks with their own
   * environment; default true. `suite check`'s runner programs need none.
   */
  agentBundles?: boolean;
  /**
   * Whether the engine gives the sandbox its flags, run on the verifier
   * image: a sentence per flag it does not honour (issue 24); default
   * `engineFlagsCheck` when the engine resolves the images (no
   * `resolveImage`), none otherwise.
   */
  engineFlags?: (verifierImage: string) => Promise<string[]>;
}

/**
 * Checks, and collects every mismatch before refusing: runner version, suite
 * hash (and task list), each agent's image reference → the frozen digest, the
 * verifier image → the frozen digest (or, given `hostCommands`, a host
 * command for each agent instead of the images), the engine's sandbox flags
 * (`engineFlags`). On success it also freezes
 * the digest of each task's hidden verifier files for the run.
 *
 * @param plan the frozen plan
 * @param options suite directory, runner version, image resolver, host commands
 * @returns the resolved environment
 * @throws {EnvironmentMismatchError} listing every mismatch
 * @throws {Error} when the suite cannot be read
 */
export async function checkEnvironment(
  plan: Plan,
  options: CheckEnvironmentOptions,
): Promise<ResolvedEnvironment> {
  const resolve = options.resolveImage ?? ((ref: string) => imageDigest(ref));
  const mismatches: string[] = [];
  if (plan.environment.runner_version !== options.runnerVersion) {
    mismatches.push(
      `runner version is "${options.runnerVersion}", the plan froze "${plan.environment.runner_version}"`,
    );
  }
  const suite = await loadSuite(options.suiteDir);
  if (plan.suite_sha256 !== suite.sha256) {
    mismatches.push(
      `suite "${suite.dir}" hashes to "${suite.sha256}", the plan froze "${plan.suite_sha256}"`,
    );
  }
  const suiteTasks = new Map(suite.manifest.tasks.map((task) => [task.task_id, task]));
  const taskSettings: Record<string, TaskSandboxSettings> = {};
  for (const task of plan.tasks) {
    const entry = suiteTasks.get(task.task_id);
    if (entry === undefined) {
      mismatches.push(`task "${task.task_id}" is not in the suite`);
      continue;
    }
    if (options.hostCommands !== undefined && asksForOwnSandbox(entry)) {
      mismatches.push(
        `task "${task.task_id}" asks for its own environment, workdir, verifier or resources, ` +
          "which only the Docker sandbox gives (--unsandboxed runs verify.sh on the host)",
      );
    }
    if (options.hostCommands === undefined && !options.imagesOnNodes) {
      // The task's environment and its services' images, each as the plan froze it.
      const frozen = [
        ...(task.environment === undefined
          ? []
          : [{ what: `environment "${task.environment.image}"`, ...task.environment }]),
        ...(task.services ?? []).map((service) => ({
          what: `service "${service.name}" image "${service.image}"`,
          ...service,
        })),
      ];
      for (const { what, image, image_digest } of frozen) {
        const found = await resolve(image);
        if (found !== image_digest) {
          mismatches.push(imageMessage(`task "${task.task_id}" ${what}`, found, image_digest));
        }
      }
    }
    taskSettings[task.task_id] = taskSandboxSettings(entry, task, plan.agent_egress, suite.dir);
  }
  const agentImages: Record<string, string> = {};
  let verifierImage: string | null = null;
  if (options.hostCommands !== undefined) {
    for (const agent of plan.agents) {
      if (options.hostCommands[agent.agent_id] === undefined) {
        mismatches.push(`no host command for agent "${agent.agent_id}"`);
      }
    }
  } else if (!options.imagesOnNodes) {
    verifierImage = await resolveImages(plan, resolve, agentImages, mismatches);
    const flags = options.engineFlags ??
      (options.resolveImage === undefined
        ? (image: string) => engineFlagsCheck(image, { tempDir: options.tempDir })
        : undefined);
    if (verifierImage !== "" && flags !== undefined) mismatches.push(...await flags(verifierImage));
  }
  if (mismatches.length > 0) throw new EnvironmentMismatchError(mismatches);
  const bundles = plan.tasks.some((task) => task.environment !== undefined) &&
      options.hostCommands === undefined && !options.imagesOnNodes
    ? await exportBundles(plan, {
      agentImages: options.agentBundles === false ? null : agentImages,
      verifierImage: verifierImage!,
      tempDir: options.tempDir,
    })
    : { agentBundles: {}, verifierKit: null };
  const verifierDigests: Record<string, string> = {};
  for (const task of plan.tasks) {
    verifierDigests[task.task_id] =
      (await digestTree(taskPaths(suite.dir, task.task_id).verifier)).digest;
  }
  return {
    suite,
    taskSettings,
    ...bundles,
    agentImages,
    verifierImage,
    verifierDigests,
    runnerVersion: options.runnerVersion,
  };
}

/**
 * Exports each agent's image as a bundle and the verifier image as a kit
 * into a fresh directory of `tempDir` (kept for the run), and checks each
 * bundle against the plan's `bundle_digest`.
 *
 * @throws {EnvironmentMismatchError} listing every bundle that differs or was not frozen
 */
async function exportBundles(
  plan: Plan,
  { agentImages, verifierImage, tempDir }: {
    /** Null: export no agent's bundle. */
    agentImages: Record<string, string> | null;
    verifierImage: string;
    tempDir: string | undefined;
  },
): Promise<{ agentBundles: Record<string, ImageBundle>; verifierKit: ImageBundle }> {
  const root = await Deno.makeTempDir({ dir: tempDir, prefix: "ledgerbench-bundles-" });
  const byImage = new Map<string, ImageBundle>();
  const exported = async (image: string) => {
    let bundle = byImage.get(image);
    if (bundle === undefined) {
      bundle = await exportImageBundle(image, `${root}/${image.replace(/^sha256:/, "")}`);
      byImage.set(image, bundle);
    }
    return bundle;
  };
  const mismatches: string[] = [];
  const agentBundles: Record<string, ImageBundle> = {};
  for (const agent of agentImages === null ? [] : plan.agents) {
    const bundle = await exported(agentImages![agent.agent_id]);
    agentBundles[agent.agent_id] = bundle;
    if (agent.bundle_digest === undefined) {
      mismatches.push(
        `agent "${agent.agent_id}" has no frozen bundle digest, which a task with its own environment needs`,
      );
    } else if (bundle.digest !== agent.bundle_digest) {
      mismatches.push(
        `agent "${agent.agent_id}" bundle has digest "${bundle.digest}", the plan froze "${agent.bundle_digest}"`,
      );
    }
  }
  if (mismatches.length > 0) throw new EnvironmentMismatchError(mismatches);
  return { agentBundles, verifierKit: await exported(verifierImage) };
}

/**
 * The check run before each episode: the agent's image reference and the
 * verifier's (and the task's own environment, when it has one) must still
 * resolve to the frozen digests (a re-tag, a rebuild or a removal stops the
 * batch).
 *
 * @param plan the frozen plan
 * @param options the image resolver
 * @returns the check for `runBatch`'s `beforeEpisode`
 */
export function imageDriftCheck(
  plan: Plan,
  options: { resolveImage?: ImageResolver } = {},
): EnvironmentCheck {
  const resolve = options.resolveImage ?? ((ref: string) => imageDigest(ref));
  const agents = new Map(plan.agents.map((agent) => [agent.agent_id, agent]));
  const tasks = new Map(plan.tasks.map((task) => [task.task_id, task]));
  return async (episode: PlannedEpisode) => {
    const agent = agents.get(episode.agent_id)!;
    const ref = agent.image ?? agent.image_digest!;
    const found = await resolve(ref);
    if (found !== agent.image_digest) {
      return imageMessage(`agent "${agent.agent_id}" image "${ref}"`, found, agent.image_digest!);
    }
    const environment = tasks.get(episode.task_id)?.environment;
    if (environment !== undefined) {
      const found = await resolve(environment.image);
      if (found !== environment.image_digest) {
        return imageMessage(
          `task "${episode.task_id}" environment "${environment.image}"`,
          found,
          environment.image_digest,
        );
      }
    }
    const verifierRef = plan.environment.verifier_image ?? plan.environment.verifier_image_digest!;
    const verifier = await resolve(verifierRef);
    if (verifier !== plan.environment.verifier_image_digest) {
      return imageMessage(
        `verifier image "${verifierRef}"`,
        verifier,
        plan.environment.verifier_image_digest!,
      );
    }
    return null;
  };
}

/**
 * Resolves each agent's image and the verifier's to the frozen digests,
 * adding each agent's to `agentImages` and a sentence per mismatch to
 * `mismatches`; returns the verifier's image ID ("" on a mismatch).
 */
async function resolveImages(
  plan: Plan,
  resolve: ImageResolver,
  agentImages: Record<string, string>,
  mismatches: string[],
): Promise<string> {
  for (const agent of plan.agents) {
    const ref = agent.image ?? agent.image_digest;
    if (ref === null || agent.image_digest === null) {
      mismatches.push(`agent "${agent.agent_id}" has no frozen image digest`);
      continue;
    }
    const found = await resolve(ref);
    if (found !== agent.image_digest) {
      mismatches.push(
        imageMessage(`agent "${agent.agent_id}" image "${ref}"`, found, agent.image_digest),
      );
    } else {
      agentImages[agent.agent_id] = found;
    }
  }
  const verifierRef = plan.environment.verifier_image ?? plan.environment.verifier_image_digest;
  const verifierDigest = plan.environment.verifier_image_digest;
  let verifierImage = "";
  if (verifierRef === null || verifierDigest === null) {
    mismatches.push("the plan has no frozen verifier image digest");
  } else {
    const found = await resolve(verifierRef);
    if (found !== verifierDigest) {
      mismatches.push(imageMessage(`verifier image "${verifierRef}"`, found, verifierDigest));
    } else {
      verifierImage = found;
    }
  }
  return verifierImage;
}

function imageMessage(what: string, found: string | null, frozen: string): string {
  return found === null
    ? `${what} is not present (the plan froze "${frozen}")`
    : `${what} resolves to "${found}", the plan froze "${frozen}"`;
}
