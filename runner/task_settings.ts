/**
 * What one task's manifest entry asks of its sandbox for
 * `createDockerSandbox`: its frozen environment image, the workspace's
 * second path, the verifier's entry, verdict rule, mount, wall cap and
 * variables, and the resources for both containers.
 *
 * @module
 */
import type { Plan, PlannedTask } from "../analysis/schema/records.ts";
import { agentEgressOf } from "./egress/agent_egress.ts";
import type { TaskSandboxSettings } from "./sandbox/docker_sandbox.ts";
import { stepPaths, type SuiteTaskEntry, taskPaths } from "../analysis/schema/suite_manifest.ts";

/**
 * Maps a task's manifest entry and its frozen plan entry to sandbox
 * settings. `resources.memory_mb` becomes bytes and `resources.cpus`
 * nano-CPUs, for the candidate and the verifier alike; a reward verdict
 * carries its `pass_threshold`, `reward_key` and `reward_rule` (`key`,
 * `min` or `mean`; the manifest's default is `key`, the rule before
 * it existed).
 *
 * @param task the suite's entry
 * @param planned the plan's entry (its frozen environment, if any)
 * @param agentNetwork the plan's `agent_egress` (`agentEgressOf` decides the task's)
 * @param suiteDir the suite's directory, where a multi-step task's step files are
 * @returns the settings
 */
export function taskSandboxSettings(
  task: SuiteTaskEntry,
  planned: PlannedTask,
  agentNetwork: Plan["agent_egress"],
  suiteDir: string,
): TaskSandboxSettings {
  const verifier = task.verifier;
  const resources = task.resources;
  const agentEgress = agentEgressOf(task.agent_network, agentNetwork);
  return {
    ...(agentEgress === null ? {} : { agentEgress }),
    ...(planned.environment === undefined
      ? {}
      : { environmentImage: planned.environment.image_digest }),
    ...(task.workdir === undefined ? {} : { workdir: task.workdir }),
    ...(task.environment_env === undefined ? {} : { environmentEnv: task.environment_env }),
    ...(task.environment_healthcheck === undefined
      ? {}
      : { environmentHealthcheck: task.environment_healthcheck }),
    ...(resources?.memory_mb === undefined ? {} : { memoryBytes: resources.memory_mb * 1024 ** 2 }),
    ...(resources?.cpus === undefined ? {} : { nanoCpus: Math.round(resources.cpus * 1e9) }),
    ...(resources?.storage_mb === undefined
      ? {}
      : { storageBytes: resources.storage_mb * 1024 ** 2 }),
    verifier: {
      ...(verifier?.entry === undefined ? {} : { entry: verifier.entry }),
      ...(verifier?.mount === undefined ? {} : { mount: verifier.mount }),
      ...(verifier?.verdict === "reward"
        ? {
          reward: {
            passThreshold: verifier.pass_threshold,
            rewardKey: verifier.reward_key,
            rule: verifier.reward_rule,
          },
        }
        : {}),
    },
    ...(verifier === undefined || verifier.mode === "sealed"
      ? {}
      : { verifierMode: verifier.mode }),
    ...(verifier?.allow_hosts === undefined ? {} : { verifierAllowHosts: verifier.allow_hosts }),
    ...(verifier?.artifacts === undefined ? {} : { verifierArtifacts: verifier.artifacts }),
    ...(verifier?.collect === undefined ? {} : {
      verifierCollect: verifier.collect.map(({ timeout_ms, ...hook }) => ({
        ...hook,
        timeoutMs: timeout_ms,
      })),
    }),
    ...(verifier?.service_artifacts === undefined
      ? {}
      : { verifierServiceArtifacts: verifier.service_artifacts }),
    ...(planned.verifier_environment === undefined
      ? {}
      : { verifierEnvironmentImage: planned.verifier_environment.image_digest }),
    ...(verifier?.user === undefined ? {} : { verifierUser: verifier.user }),
    ...(task.agent_user === undefined ? {} : { agentUser: task.agent_user }),
    ...(verifier?.wall_ms === undefined ? {} : { verifierWallMs: verifier.wall_ms }),
    ...(verifier?.env === undefined ? {} : { verifierEnv: verifier.env }),
    ...(task.services === undefined ? {} : {
      services: {
        services: task.services.map((service) => {
          const frozen = planned.services?.find((s) => s.name === service.name);
          if (frozen === undefined) {
            throw new Error(`Task "${task.task_id}": service "${service.name}" is not in the plan`);
          }
          return { ...service, imageId: frozen.image_digest };
        }),
        dependsOn: task.environment_depends_on ?? {},
        volumes: task.environment_volumes ?? [],
      },
    }),
    ...(task.steps === undefined ? {} : {
      multiStep: {
        steps: task.steps.map((step) => ({
          ...step,
          files: stepPaths(taskPaths(suiteDir, task.task_id), step.name),
        })),
        // Harbor's default strategy (`multi_step_reward_strategy`).
        reward: task.step_reward ?? "mean",
      },
    }),
  };
}

/**
 * Whether the task asks for anything beyond the default sandbox (the host
 * sandbox of `--unsandboxed` runs only `verify.sh` in the default setting).
 *
 * @param task the suite's entry
 * @returns true when it names an environment, a workdir, a verifier setting or resources
 */
export function asksForOwnSandbox(task: SuiteTaskEntry): boolean {
  return task.environment !== undefined || task.workdir !== undefined ||
    task.verifier !== undefined || task.resources !== undefined;
}
