import { deepEqual, equal } from "node:assert/strict";
import type { VerifyResult } from "../episode_row.ts";
import { combineStepResults, passesStepGate } from "./harbor_steps.ts";

const KEY = { passThreshold: 1, rewardKey: "reward", rule: "key" as const };

/** A step verified from a reward file (`reward.json` with these keys, or reward.txt's one number). */
function rewarded(name: string, reward: Record<string, number>, file = "reward.json") {
  const result: VerifyResult = {
    kind: "verdict",
    resolved: (reward.reward ?? 0) >= 1,
    failedChecks: [],
    verification: {
      mode: "shared",
      reward,
      reward_file: file as "reward.json" | "reward.txt",
      decided_by: "key",
      hijacks: [],
      egress_allowed: 1,
      egress_denied: 0,
      stopped_processes: 2,
    },
    output: { stdout_tail: `${name} out\n`, stderr_tail: "" },
  };
  return { name, result };
}

Deno.test("combineStepResults() takes each key's mean over the steps, a missing key 0, as Harbor's _aggregate_step_rewards", () => {
  // Harbor: keys {reward, style}; reward (1 + 0.5 + 0) / 3, style (0 + 1 + 1) / 3.
  const combined = combineStepResults(
    [
      rewarded("a", { reward: 1 }),
      rewarded("b", { reward: 0.5, style: 1 }),
      rewarded("c", { reward: 0, style: 1 }),
    ],
    "mean",
    KEY,
  );
  deepEqual(combined.verification?.reward, { reward: 0.5, style: 2 / 3 });
  equal(combined.kind === "verdict" && combined.resolved, false);
  equal(combined.verification?.decided_by, 'mean of the rewards of 3 steps, key "reward"');
  // The steps' counts are summed, their outputs joined under their names.
  deepEqual(
    [combined.verification?.egress_allowed, combined.verification?.stopped_processes],
    [3, 6],
  );
  equal(combined.output?.stdout_tail, '[step "a"]\na out\n[step "b"]\nb out\n[step "c"]\nc out\n');
  deepEqual(combined.verification?.steps?.map((s) => [s.name, s.resolved]), [
    ["a", true],
    ["b", false],
    ["c", false],
  ]);
});

Deno.test("combineStepResults() makes a step's verifier fault the attempt's, where Harbor drops the step", () => {
  const fault = {
    name: "b",
    result: { kind: "fault" as const, fault: "timeout", detail: "test.sh was killed" },
  };
  const combined = combineStepResults([rewarded("a", { reward: 1 }), fault], "mean", KEY);
  deepEqual(
    combined.kind === "fault" ? [combined.fault, combined.detail] : null,
    ["timeout", 'step "b": test.sh was killed'],
  );
  deepEqual(combined.verification?.steps?.[1], {
    name: "b",
    reward: null,
    resolved: null,
    fault: "timeout",
  });
});

Deno.test("combineStepResults() counts a step left without a reward as 0, and fails when none has one", () => {
  const disrupted = {
    name: "b",
    result: { kind: "verdict" as const, resolved: false, failedChecks: ["verifier_disrupted"] },
  };
  const mean = combineStepResults(
    [
      rewarded("a", { reward: 1 }, "reward.txt"),
      disrupted,
    ],
    "mean",
    KEY,
  );
  deepEqual(mean.verification?.reward, { reward: 0.5 });
  const final = combineStepResults([rewarded("a", { reward: 1 }), disrupted], "final", KEY);
  deepEqual(
    final.kind === "verdict" ? [final.resolved, final.failedChecks] : null,
    [false, ["verifier_disrupted"]],
  );
  equal(final.verification?.reward, null);
});

Deno.test("passesStepGate() gates as Harbor's _min_reward_failure: a missing key is below", () => {
  equal(passesStepGate({ reward: 0.5 }, 0.5), true);
  equal(passesStepGate({ reward: 0.49 }, 0.5), false);
  equal(passesStepGate({ a: 1, b: 0.2 }, { a: 1, b: 0.3 }), false);
  equal(passesStepGate({ a: 1 }, { a: 1, b: 0 }), false);
  equal(passesStepGate(null, 0), false);
});
