import { deepEqual, equal } from "node:assert/strict";
import { parseRewardFiles } from "./parse_reward_file.ts";

const rule = { passThreshold: 1, rewardKey: "reward" };
const files = (txt: string | null, json: string | null) => ({
  "reward.txt": txt,
  "reward.json": json,
});

Deno.test("parseRewardFiles() compares reward.txt, else reward.json, with the pass threshold", () => {
  const pass = parseRewardFiles(files("1\n", null), rule);
  equal(pass.kind, "verdict");
  if (pass.kind === "verdict") {
    deepEqual(pass.verdict.checks, [{
      name: "reward",
      passed: true,
      detail: "reward.txt: reward 1, pass threshold 1",
    }]);
  }
  const partial = parseRewardFiles(files("0.75", null), rule);
  equal(partial.kind === "verdict" && partial.verdict.resolved, false);
  const lowered = parseRewardFiles(files("0.75", null), { ...rule, passThreshold: 0.5 });
  equal(lowered.kind === "verdict" && lowered.verdict.resolved, true);
  const json = parseRewardFiles(files(null, '{"reward": 1.0, "style": 0}'), rule);
  equal(json.kind === "verdict" && json.verdict.resolved, true);
  const keyed = parseRewardFiles(files(null, '{"accuracy": 0.9}'), {
    ...rule,
    rewardKey: "accuracy",
    passThreshold: 0.9,
  });
  equal(keyed.kind === "verdict" && keyed.verdict.resolved, true);
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
    [
      null,
      '{"score": 1}',
      "verdict_malformed",
      'The verifier\'s reward.json has no finite number under "reward"',
    ],
  ];
  for (const [txt, json, fault, detail] of cases) {
    deepEqual(parseRewardFiles(files(txt, json), rule), { kind: "fault", fault, detail });
  }
});
