/**
 * Harbor's reward file as a verdict (issues 12 and 22): a task whose manifest
 * says `verifier.verdict: "reward"` is decided by what its verifier wrote to
 * `/logs/verifier/` (Harbor's verifier contract, ../shared/formats/README.md:
 * `reward.txt` holding the scalar reward, else `reward.json`, which Harbor
 * reads as an object of named numbers since 0.13.1, `reward.txt` becoming
 * `{"reward": <number>}`), combined by the task's `reward_rule` and compared
 * with its `pass_threshold`. Harbor's own mean counts a missing reward as 0;
 * here a missing, empty or unreadable reward is the verifier's fault, never
 * the candidate's failure.
 *
 * @module
 */
import type { Verdict } from "../../analysis/schema/records.ts";

/**
 * Which reward decides (the manifest's `verifier.reward_rule`):
 * `key`, the one under {@link RewardRule.rewardKey}; `min`, the smallest of
 * all keys (every metric must pass); `mean`, their mean (Harbor's own
 * aggregate over metrics).
 */
export type RewardCombination = "key" | "min" | "mean";

/** How a reward becomes a verdict (the task's `verifier` manifest entry). */
export interface RewardRule {
  /** The smallest reward that passes (`pass_threshold`). */
  passThreshold: number;
  /** The key that holds the reward under the `key` rule (`reward_key`). */
  rewardKey: string;
  /** Which reward decides (`reward_rule`): see {@link RewardCombination}. */
  rule: RewardCombination;
}

/** What the verifier's channel holds of the reward files (null: not written). */
export interface RewardFiles {
  "reward.txt": string | null;
  "reward.json": string | null;
}

/** The file a reward was read from. */
export type RewardFileName = keyof RewardFiles;

/**
 * A reward file as read, whole: every key with its number, in the
 * file's order (`reward.txt` is `{"reward": <number>}`, as Harbor reads it).
 */
export interface RewardRead {
  file: RewardFileName;
  values: Record<string, number>;
}

/**
 * What a reward file gives: a verdict with the reward read whole, the value
 * that decided and what decided it (`key "correctness"`, `min of 2 keys`,
 * `mean of 2 keys`), or why there is none (with the reward as read when every
 * value was a number, e.g. the rule's key absent; else null). Assignable to
 * `VerdictLine`.
 */
export type RewardVerdict =
  | { kind: "verdict"; verdict: Verdict; reward: RewardRead; value: number; decidedBy: string }
  | {
    kind: "fault";
    fault: "verdict_missing" | "verdict_malformed";
    detail: string;
    reward: RewardRead | null;
  };

/** Keys a fault's detail lists at most (a reward file is the verifier's, not ours to print whole). */
const KEYS_LISTED = 10;

/**
 * The verdict a reward file gives: `reward.txt` first (its trimmed text must
 * be one finite number, read as `{"reward": <number>}`, and that number is
 * the reward whatever the rule), else `reward.json` (an object whose every
 * value is a finite number). The rule then picks the reward of a
 * `reward.json`: `key`, the value under `rewardKey`; `min`, the smallest value;
 * `mean`, the mean of the values (summed in the file's key order, divided by
 * their count). `resolved` is `reward >= passThreshold`; the one check is
 * named `reward` with the file, the value, what decided and the threshold in
 * its detail. O(size of the file).
 *
 * Harbor's multi-metric example, `{"correctness": 1, "performance": 0.7}` at
 * pass threshold 1: `key` (`correctness`) resolves; `min` is 0.7 and `mean`
 * 0.85, neither resolves; `key` with the default key `reward` is a fault
 * naming both keys.
 *
 * @param files the reward files as read from the channel
 * @param rule the pass threshold, the rule and the key of the `key` rule
 * @returns the verdict with the reward read, or `verdict_missing` (no file, or
 *   an empty one) or `verdict_malformed` (not a number, not an object, a value
 *   that is not a finite number, naming its key; the rule's key absent, naming
 *   the keys found; no key at all)
 * @example
 * ```ts
 * import { parseRewardFiles } from "./parse_reward_file.ts";
 * const files = { "reward.txt": null, "reward.json": '{"correctness": 1, "performance": 0.7}' };
 * const min = parseRewardFiles(files, { passThreshold: 1, rewardKey: "reward", rule: "min" });
 * if (min.kind !== "verdict" || min.verdict.resolved || min.decidedBy !== "min of 2 keys") {
 *   throw new Error();
 * }
 * const key = parseRewardFiles(files, { passThreshold: 1, rewardKey: "correctness", rule: "key" });
 * if (key.kind !== "verdict" || !key.verdict.resolved) throw new Error();
 * ```
 */
export function parseRewardFiles(files: RewardFiles, rule: RewardRule): RewardVerdict {
  const text = files["reward.txt"];
  if (text !== null && text.trim() !== "") {
    const trimmed = text.trim();
    const reward = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) ? Number(trimmed) : NaN;
    if (!Number.isFinite(reward)) {
      return malformed(`The verifier's reward.txt is not one number: "${trimmed.slice(0, 80)}"`);
    }
    return decideReward({ file: "reward.txt", values: { reward } }, rule);
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
    const entries = Object.entries(parsed);
    const bad = entries.find(([, value]) => typeof value !== "number" || !Number.isFinite(value));
    if (bad !== undefined) {
      return malformed(`The verifier's reward.json has no finite number under ${quoted(bad[0])}`);
    }
    // fromEntries defines each key as the record's own (a "__proto__" key included)
    return decideReward({ file: "reward.json", values: Object.fromEntries(entries) }, rule);
  }
  return {
    kind: "fault",
    fault: "verdict_missing",
    detail: text === null && json === null
      ? "The verifier wrote no /logs/verifier/reward.txt or reward.json"
      : "The verifier's reward file is empty",
    reward: null,
  };
}

/**
 * The task's rule applied to a reward read whole (or combined, as a
 * multi-step task's steps are): the value that decides, and the verdict.
 *
 * @param reward the reward's file and every key's number
 * @param rule the pass threshold, the key and the rule
 * @returns the verdict, or `verdict_malformed` when the rule finds nothing to decide on
 */
export function decideReward(reward: RewardRead, rule: RewardRule): RewardVerdict {
  const keys = Object.keys(reward.values);
  const numbers = Object.values(reward.values);
  let value: number;
  let decidedBy: string;
  if (reward.file === "reward.txt") {
    // One number is the reward under every rule (the manifest's `reward_rule`).
    value = reward.values.reward;
    decidedBy = "the one number of reward.txt";
  } else if (rule.rule === "key") {
    if (!Object.hasOwn(reward.values, rule.rewardKey)) {
      return {
        ...malformed(
          `The verifier's ${reward.file} has no ${quoted(rule.rewardKey)} key ` +
            `(keys found: ${keyList(keys)})`,
        ),
        reward,
      };
    }
    value = reward.values[rule.rewardKey];
    decidedBy = `key ${quoted(rule.rewardKey)}`;
  } else {
    if (keys.length === 0) {
      return {
        ...malformed(
          `The verifier's ${reward.file} holds no reward (no keys) to take the ${rule.rule} of`,
        ),
        reward,
      };
    }
    value = rule.rule === "min"
      ? numbers.reduce((least, x) => x < least ? x : least)
      : numbers.reduce((sum, x) => sum + x, 0) / numbers.length;
    decidedBy = `${rule.rule} of ${keys.length} ${keys.length === 1 ? "key" : "keys"}`;
  }
  const resolved = value >= rule.passThreshold;
  const verdict: Verdict = {
    schema_version: 1,
    resolved,
    checks: [{
      name: "reward",
      passed: resolved,
      detail:
        `${reward.file}: reward ${value} (${decidedBy}), pass threshold ${rule.passThreshold}`,
    }],
  };
  return { kind: "verdict", verdict, reward, value, decidedBy };
}

/** A key as the details quote it: JSON-quoted, at most 80 characters of it. */
function quoted(key: string): string {
  return JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);
}

/** The keys a fault names: unquoted, comma-separated, the first {@link KEYS_LISTED}. */
function keyList(keys: readonly string[]): string {
  if (keys.length === 0) return "none";
  const shown = keys.slice(0, KEYS_LISTED).map((key) =>
    key.length > 80 ? `${key.slice(0, 80)}…` : key
  );
  return shown.join(", ") + (keys.length > KEYS_LISTED ? `, ... (${keys.length} in all)` : "");
}

function malformed(detail: string): RewardVerdict & { kind: "fault" } {
  return { kind: "fault", fault: "verdict_malformed", detail, reward: null };
}
