/**
 * Harbor's reward file as a verdict (issue 12): a task whose manifest says
 * `verifier.verdict: "reward"` is decided by what its verifier wrote to
 * `/logs/verifier/` (Harbor's verifier contract, ../shared/formats/README.md:
 * `reward.txt` holding the scalar reward, else `reward.json`, which Harbor
 * reads as an object of named numbers since 0.13.1), compared with the
 * suite's `pass_threshold`. Harbor's own mean counts a missing reward as 0;
 * here a missing, empty or unreadable reward is the verifier's fault, never
 * the candidate's failure.
 *
 * @module
 */
import type { Verdict } from "../../analysis/schema.ts";
import type { VerdictLine } from "./parse_verdict_line.ts";

/** How a reward becomes a verdict (the task's `verifier` manifest entry). */
export interface RewardRule {
  /** The smallest reward that passes. */
  passThreshold: number;
  /** The key of `reward.json` that holds the reward. */
  rewardKey: string;
}

/** What the verifier's channel holds of the reward files (null: not written). */
export interface RewardFiles {
  "reward.txt": string | null;
  "reward.json": string | null;
}

/**
 * The verdict a reward file gives: `reward.txt` first (its trimmed text must
 * be one finite number), else `reward.json` (an object whose `rewardKey` is a
 * finite number). `resolved` is `reward >= passThreshold`; the one check is
 * named `reward` with the value and the threshold in its detail.
 *
 * @param files the reward files as read from the channel
 * @param rule the pass threshold and the `reward.json` key
 * @returns the verdict, or `verdict_missing` (no file, or an empty one) or
 *   `verdict_malformed` (not a number, not an object, the key absent)
 * @example
 * ```ts
 * import { parseRewardFiles } from "./parse_reward_file.ts";
 * const out = parseRewardFiles({ "reward.txt": "0.5\n", "reward.json": null },
 *   { passThreshold: 1, rewardKey: "reward" });
 * // out.kind === "verdict", out.verdict.resolved === false
 * ```
 */
export function parseRewardFiles(files: RewardFiles, rule: RewardRule): VerdictLine {
  const text = files["reward.txt"];
  if (text !== null && text.trim() !== "") {
    const trimmed = text.trim();
    const reward = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) ? Number(trimmed) : NaN;
    if (!Number.isFinite(reward)) {
      return malformed(`The verifier's reward.txt is not one number: "${trimmed.slice(0, 80)}"`);
    }
    return verdictOf(reward, rule, "reward.txt");
  }
  const json = files["reward.json"];
  if (json !== null && json.trim() !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return malformed("The verifier's reward.json is not JSON");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return malformed("The verifier's reward.json is not an object of named rewards");
    }
    const reward = (parsed as Record<string, unknown>)[rule.rewardKey];
    if (typeof reward !== "number" || !Number.isFinite(reward)) {
      return malformed(
        `The verifier's reward.json has no finite number under "${rule.rewardKey}"`,
      );
    }
    return verdictOf(reward, rule, "reward.json");
  }
  return {
    kind: "fault",
    fault: "verdict_missing",
    detail: text === null && json === null
      ? "The verifier wrote no /logs/verifier/reward.txt or reward.json"
      : "The verifier's reward file is empty",
  };
}

function verdictOf(reward: number, rule: RewardRule, file: string): VerdictLine {
  const resolved = reward >= rule.passThreshold;
  const verdict: Verdict = {
    schema_version: 1,
    resolved,
    checks: [{
      name: "reward",
      passed: resolved,
      detail: `${file}: reward ${reward}, pass threshold ${rule.passThreshold}`,
    }],
  };
  return { kind: "verdict", verdict };
}

function malformed(detail: string): VerdictLine {
  return { kind: "fault", fault: "verdict_malformed", detail };
}
