import { deepEqual, equal, ok } from "node:assert/strict";
import { parseRewardFiles, type RewardRule } from "./parse_reward_file.ts";

const rule: RewardRule = { passThreshold: 1, rewardKey: "reward", rule: "key" };
const files = (txt: string | null, json: string | null) => ({
  "reward.txt": txt,
  "reward.json": json,
});

Deno.test("parseRewardFiles() compares reward.txt, else reward.json, with the pass threshold", () => {
  const pass = parseRewardFiles(files("1\n", null), rule);
  deepEqual(pass, {
    kind: "verdict",
    verdict: {
      schema_version: 1,
      resolved: true,
      checks: [{
        name: "reward",
        passed: true,
        detail: "reward.txt: reward 1 (the one number of reward.txt), pass threshold 1",
      }],
    },
    // reward.txt is read as {"reward": <number>}, as Harbor reads it
    reward: { file: "reward.txt", values: { reward: 1 } },
    value: 1,
    decidedBy: "the one number of reward.txt",
  });
  const partial = parseRewardFiles(files("0.75", null), rule);
  equal(partial.kind === "verdict" && partial.verdict.resolved, false);
  const lowered = parseRewardFiles(files("0.75", null), { ...rule, passThreshold: 0.5 });
  equal(lowered.kind === "verdict" && lowered.verdict.resolved, true);
  const json = parseRewardFiles(files(null, '{"reward": 1.0, "style": 0}'), rule);
  equal(json.kind === "verdict" && json.verdict.resolved, true);
  // the record is whole: every key, as read
  deepEqual(json.reward, { file: "reward.json", values: { reward: 1, style: 0 } });
  const keyed = parseRewardFiles(files(null, '{"accuracy": 0.9}'), {
    ...rule,
    rewardKey: "accuracy",
    passThreshold: 0.9,
  });
  equal(keyed.kind === "verdict" && keyed.verdict.resolved, true);
});

Deno.test("parseRewardFiles() pins Harbor's multi-metric reward.json under each rule", () => {
  // Harbor's multi-metric reward.json, as issue 22 quotes it: two metrics, at pass threshold 1.
  const harbor = files(null, '{"correctness": 1, "performance": 0.7}');
  const read = { file: "reward.json", values: { correctness: 1, performance: 0.7 } };
  const under = (r: Partial<RewardRule>) => parseRewardFiles(harbor, { ...rule, ...r });

  const key = under({ rule: "key", rewardKey: "correctness" });
  equal(key.kind, "verdict");
  if (key.kind === "verdict") {
    deepEqual([key.verdict.resolved, key.value, key.decidedBy], [true, 1, 'key "correctness"']);
    deepEqual(key.reward, read);
  }
  // min(1, 0.7) = 0.7 < 1
  const min = under({ rule: "min" });
  equal(min.kind, "verdict");
  if (min.kind === "verdict") {
    deepEqual([min.verdict.resolved, min.value, min.decidedBy], [false, 0.7, "min of 2 keys"]);
    deepEqual(min.reward, read);
    equal(
      min.verdict.checks[0].detail,
      "reward.json: reward 0.7 (min of 2 keys), pass threshold 1",
    );
  }
  // (1 + 0.7) / 2 = 0.85 < 1
  const mean = under({ rule: "mean" });
  equal(mean.kind, "verdict");
  if (mean.kind === "verdict") {
    equal(mean.verdict.resolved, false);
    ok(Math.abs(mean.value - 0.85) < 1e-12, String(mean.value));
    equal(mean.decidedBy, "mean of 2 keys");
  }
  // the default key "reward" is not there: the verifier's fault, naming the keys it wrote
  deepEqual(under({ rule: "key", rewardKey: "reward" }), {
    kind: "fault",
    fault: "verdict_malformed",
    detail:
      'The verifier\'s reward.json has no "reward" key (keys found: correctness, performance)',
    reward: read,
  });
  // mean at a threshold it reaches
  const lowered = under({ rule: "mean", passThreshold: 0.85 });
  equal(lowered.kind === "verdict" && lowered.verdict.resolved, true);
});

Deno.test("parseRewardFiles(): under every rule and key, reward.txt is its one number", () => {
  for (const combination of ["min", "mean", "key"] as const) {
    const out = parseRewardFiles(files("0.5", null), { ...rule, rule: combination });
    equal(out.kind, "verdict");
    if (out.kind === "verdict") {
      deepEqual([out.value, out.decidedBy], [0.5, "the one number of reward.txt"]);
    }
  }
  // under `key` with another key, reward.txt still decides (Harbor's one scalar reward)
  const other = parseRewardFiles(files("1", null), { ...rule, rewardKey: "accuracy" });
  equal(other.kind === "verdict" && other.verdict.resolved, true);
});

Deno.test("parseRewardFiles(): a missing, empty or unreadable reward is the verifier's fault, never 0", () => {
  const cases: Array<[string | null, string | null, string, string]> = [
    [
      null,
      null,
      "verdict_missing",
      "The verifier wrote no /logs/verifier/reward.txt or reward.json",
    ],
    ["  \n", null, "verdict_missing", "The verifier's reward file is empty"],
    ["pass", null, "verdict_malformed", 'The verifier\'s reward.txt is not one number: "pass"'],
    ["1 0", null, "verdict_malformed", 'The verifier\'s reward.txt is not one number: "1 0"'],
    ["NaN", null, "verdict_malformed", 'The verifier\'s reward.txt is not one number: "NaN"'],
    [
      null,
      "[1]",
      "verdict_malformed",
      "The verifier's reward.json is not an object of named rewards",
    ],
    [null, "{", "verdict_malformed", "The verifier's reward.json is not JSON"],
    // a value that is not a number is named by its key, whatever the rule's key
    [
      null,
      '{"reward": 1, "style": "good"}',
      "verdict_malformed",
      'The verifier\'s reward.json has no finite number under "style"',
    ],
    [
      null,
      '{"reward": 1e999}',
      "verdict_malformed",
      'The verifier\'s reward.json has no finite number under "reward"',
    ],
    [
      null,
      '{"reward": null}',
      "verdict_malformed",
      'The verifier\'s reward.json has no finite number under "reward"',
    ],
  ];
  for (const [txt, json, fault, detail] of cases) {
    deepEqual(parseRewardFiles(files(txt, json), rule), {
      kind: "fault",
      fault,
      detail,
      reward: null,
    });
  }
  // the key absent: the reward was read whole, so the fault carries it
  deepEqual(parseRewardFiles(files(null, '{"score": 1}'), rule), {
    kind: "fault",
    fault: "verdict_malformed",
    detail: 'The verifier\'s reward.json has no "reward" key (keys found: score)',
    reward: { file: "reward.json", values: { score: 1 } },
  });
  deepEqual(parseRewardFiles(files(null, "{}"), rule), {
    kind: "fault",
    fault: "verdict_malformed",
    detail: 'The verifier\'s reward.json has no "reward" key (keys found: none)',
    reward: { file: "reward.json", values: {} },
  });
  deepEqual(parseRewardFiles(files(null, "{}"), { ...rule, rule: "min" }), {
    kind: "fault",
    fault: "verdict_malformed",
    detail: "The verifier's reward.json holds no reward (no keys) to take the min of",
    reward: { file: "reward.json", values: {} },
  });
  // at most ten keys are named
  const many = JSON.stringify(Object.fromEntries([...Array(12)].map((_, i) => [`k${i}`, i])));
  const fault = parseRewardFiles(files(null, many), rule);
  equal(
    fault.kind === "fault" && fault.detail,
    'The verifier\'s reward.json has no "reward" key (keys found: k0, k1, k2, k3, k4, k5, k6, ' +
      "k7, k8, k9, ... (12 in all))",
  );
});
