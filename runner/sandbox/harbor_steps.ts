/**
 * A multi-step task's verdict, as Harbor's multi-step trial
 * (`src/harbor/trial/multi_step.py`) derives it: each step is verified
 * after the agent's run for it, in the same environment; a step whose
 * rewards miss its `min_reward` ends the steps ({@link passesStepGate});
 * the attempt's reward is the steps' combination (`multi_step_reward_strategy`:
 * `mean`, each key's mean over the steps verified, a key a step lacks
 * counting 0; or `final`, the last verified step's), decided by the task's
 * reward rule like a single reward file ({@link combineStepResults}).
 *
 * Where this differs from Harbor, on purpose: a step whose verifier
 * faulted makes the whole attempt the verifier's fault (invalid, never
 * scored), where Harbor leaves the step out of the mean and would score
 * the attempt on the other steps (seed 002: a failure of the harness is not
 * the agent's, and neither is a score on part of the evidence); and a step
 * the candidate left without a verdict (its processes disrupted the tests,
 * `harbor_verifier.ts`) counts as a step with no reward, 0 on every key,
 * where Harbor would leave it out of the mean (a candidate must never gain
 * by disrupting its verifier, seed 000); so does a later step that cannot
 * start (its `setup.sh` or healthcheck failed after the agent's earlier
 * steps, `docker_sandbox.ts`), where Harbor ends the steps without it.
 *
 * @module
 */
import type { TaskStep } from "../../analysis/schema/suite_manifest.ts";
import type { VerificationRecord } from "../../analysis/schema/records.ts";
import type { VerifyResult } from "../episode_row.ts";
import { decideReward, type RewardRule } from "./parse_reward_file.ts";

/** One step as verified: its name and its verifier's result (a Harbor shared-mode one). */
export interface VerifiedStep {
  name: string;
  result: VerifyResult;
}

/**
 * Whether a step's rewards let the next step run (Harbor's `min_reward`):
 * a number gates the key `reward`, a table each key it names; a key the
 * step's reward lacks, or a step without a reward, is below every threshold.
 *
 * @param reward the step's reward as read (null: none)
 * @param minReward the step's gate; absent: none, it passes
 * @returns whether the next step runs
 * @example
 * ```ts
 * import { passesStepGate } from "./harbor_steps.ts";
 * import { equal } from "node:assert/strict";
 * equal(passesStepGate({ reward: 1 }, 1), true);
 * equal(passesStepGate({ reward: 0.4 }, 0.5), false);
 * equal(passesStepGate({ reward: 1 }, { style: 0.5 }), false);
 * equal(passesStepGate(null, undefined), true);
 * ```
 */
export function passesStepGate(
  reward: Readonly<Record<string, number>> | null,
  minReward: TaskStep["min_reward"],
): boolean {
  if (minReward === undefined) return true;
  const thresholds = typeof minReward === "number" ? { reward: minReward } : minReward;
  return Object.entries(thresholds).every(([key, threshold]) =>
    reward !== null && Object.hasOwn(reward, key) && reward[key] >= threshold
  );
}

/**
 * The attempt's result from its steps' (see the module doc): the first
 * step's fault, else the combined reward decided by `rule`; the row's
 * verification record lists every step verified (`steps`) and sums or
 * joins the steps' flags, egress counts and processes; the episode log's
 * output joins the steps' tails, each after a line naming its step.
 *
 * @param steps the steps verified, in order (at least one)
 * @param strategy `mean` or `final` (the task's `step_reward`, Harbor's default `mean`)
 * @param rule the task's reward rule
 * @param mode the verifier mode the steps were verified in; default `shared`
 * @returns the result the row is classified from
 * @example
 * ```ts
 * import { combineStepResults } from "./harbor_steps.ts";
 * import { equal } from "node:assert/strict";
 * const step = (name: string, reward: number) => ({
 *   name,
 *   result: {
 *     kind: "verdict" as const, resolved: reward >= 1, failedChecks: [],
 *     verification: {
 *       mode: "shared" as const, reward: { reward }, reward_file: "reward.txt" as const,
 *       decided_by: "the one number of reward.txt", hijacks: [], egress_allowed: 0, egress_denied: 0,
 *     },
 *   },
 * });
 * const rule = { passThreshold: 1, rewardKey: "reward", rule: "key" as const };
 * const mean = combineStepResults([step("a", 1), step("b", 0)], "mean", rule);
 * equal(mean.kind === "verdict" && mean.resolved, false);
 * equal(mean.verification?.reward?.reward, 0.5);
 * const final = combineStepResults([step("a", 0), step("b", 1)], "final", rule);
 * equal(final.kind === "verdict" && final.resolved, true);
 * ```
 */
export function combineStepResults(
  steps: readonly VerifiedStep[],
  strategy: "mean" | "final",
  rule: RewardRule,
  mode: "shared" | "separate" = "shared",
): VerifyResult {
  const records = steps.map((step) => step.result.verification);
  const rewards = records.map((record) => record?.reward ?? null);
  const combined = strategy === "final" ? rewards[rewards.length - 1] : meanRewards(rewards);
  const allText = records.every((record) => record?.reward_file === "reward.txt");
  const decided = combined === null || Object.keys(combined).length === 0
    ? null
    : decideReward({ file: allText ? "reward.txt" : "reward.json", values: combined }, rule);
  const verification: VerificationRecord = {
    mode,
    reward: combined,
    reward_file: combined === null ? null : allText ? "reward.txt" : "reward.json",
    decided_by: decided?.kind === "verdict"
      ? `${strategy} of the rewards of ${steps.length} step${steps.length === 1 ? "" : "s"}, ` +
        decided.decidedBy
      : null,
    hijacks: records.flatMap((record) => record?.hijacks ?? []),
    egress_allowed: sum(records.map((record) => record?.egress_allowed ?? 0)),
    egress_denied: sum(records.map((record) => record?.egress_denied ?? 0)),
    ...(mode === "shared"
      ? {
        kept_processes: records.flatMap((record) => record?.kept_processes ?? []),
        stopped_processes: sum(records.map((record) => record?.stopped_processes ?? 0)),
      }
      : {}),
    steps: steps.map(({ name, result }) => ({
      name,
      reward: result.verification?.reward ?? null,
      resolved: result.kind === "verdict" ? result.resolved : null,
      ...(result.kind === "fault" ? { fault: result.fault } : {}),
    })),
  };
  const outputs = steps.map((step) => step.result.output);
  const joined = (pick: (output: NonNullable<VerifyResult["output"]>) => string) =>
    steps.map((step, i) =>
      `[step ${JSON.stringify(step.name)}]\n${outputs[i] === undefined ? "" : pick(outputs[i])}`
    ).join("");
  const last = outputs[outputs.length - 1];
  const parts = {
    verification,
    output: {
      stdout_tail: joined((output) => output.stdout_tail),
      stderr_tail: joined((output) => output.stderr_tail),
      ...(last?.changes === undefined ? {} : { changes: last.changes }),
      ...(last?.processes === undefined ? {} : { processes: last.processes }),
      egress: outputs.flatMap((output) => output?.egress ?? []),
    },
  };
  const faulted = steps.find((step) => step.result.kind === "fault");
  if (faulted !== undefined && faulted.result.kind === "fault") {
    return {
      kind: "fault",
      fault: faulted.result.fault,
      detail: `step ${JSON.stringify(faulted.name)}: ${faulted.result.detail}`,
      ...parts,
    };
  }
  if (decided === null) {
    // No step gave a reward (the candidate left the tests without a verdict): failed.
    const failedChecks = steps.flatMap((step) =>
      step.result.kind === "verdict" ? step.result.failedChecks : []
    );
    return { kind: "verdict", resolved: false, failedChecks, ...parts };
  }
  if (decided.kind === "fault") {
    return { kind: "fault", fault: decided.fault, detail: decided.detail, ...parts };
  }
  return {
    kind: "verdict",
    resolved: decided.verdict.resolved,
    failedChecks: decided.verdict.checks.filter((c) => !c.passed).map((c) => c.name),
    ...parts,
  };
}

/** Each key's mean over the steps (a step without a reward, or without the key, counts 0). */
function meanRewards(
  rewards: readonly (Record<string, number> | null)[],
): Record<string, number> {
  const keys = [...new Set(rewards.flatMap((reward) => Object.keys(reward ?? {})))];
  return Object.fromEntries(
    keys.map((key) => [
      key,
      sum(
        rewards.map((reward) => reward !== null && Object.hasOwn(reward, key) ? reward[key] : 0),
      ) /
      rewards.length,
    ]),
  );
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
