import {
  deepStrictEqual as assertEquals,
  match as assertMatch,
  rejects as assertRejects,
} from "node:assert/strict";
import { JUDGE_EXAMPLE } from "../../suites/judge_example.ts";
import { digestTree } from "../sandbox/digest_tree.ts";
import { taskPaths } from "../../analysis/schema/suite_manifest.ts";
import { SEED_RUBRIC } from "../../analysis/judge/_test_rubrics.ts";
import { JudgeConfig } from "../../analysis/schema/records.ts";
import {
  parseProviderScript,
  type ProviderScriptInput,
} from "../../analysis/schema/provider_script.ts";
import { startScriptedProvider } from "../relay/scripted_provider.ts";
import { judgeEpisode, type LoadedJudgeMaterial, loadJudgeMaterial } from "./judge_episode.ts";

// Seed 000 §06's shape: weights 3, 2, 1 on 1..5; the total is weighted * 20 / 6.
const MATERIAL: LoadedJudgeMaterial = {
  question: "Explain why the mean of 1, 2 and 6 is 3.",
  reference: "The sum is 9 and there are 3 numbers, so the mean is 9 / 3 = 3.",
  rubric: SEED_RUBRIC,
  rubricSha256: "a".repeat(64),
};

const scores = (c: number, m: number, l: number) =>
  JSON.stringify({
    scores: [
      { name: "correctness", score: c },
      { name: "completeness", score: m },
      { name: "clarity", score: l },
    ],
  });

async function judged(
  script: ProviderScriptInput,
  answer: string | null,
  config: Partial<JudgeConfig> = {},
  kind: "openai" | "anthropic" = "openai",
) {
  const key = "judge-upstream-key";
  const provider = await startScriptedProvider(parseProviderScript(script), { apiKey: key });
  const artifact = await Deno.makeTempDir();
  try {
    if (answer !== null) await Deno.writeTextFile(`${artifact}/ANSWER.md`, answer);
    const outcome = await judgeEpisode({
      judge: { answer: "ANSWER.md", with_program: false },
      material: MATERIAL,
      artifactDir: artifact,
      config: JudgeConfig.parse({ model: "scripted-model-1", ...config }),
      upstream: { baseUrl: provider.baseUrl, key, kind },
    });
    return { ...outcome, requests: provider.requests() };
  } finally {
    await provider.close();
    await Deno.remove(artifact, { recursive: true });
  }
}

Deno.test("judgeEpisode() computes seed 000's weighted total in code and passes at the threshold", async () => {
  const { result, record, requests } = await judged(
    { default: { content: scores(4, 5, 3) } },
    "9 / 3 = 3",
  );
  // weighted = 4*3 + 5*2 + 3*1 = 25; 25 * 20 / 6 = 83.33... (seed 000's formula).
  assertEquals(record.total, 25 * 20 / 6);
  assertEquals(record.passed, true);
  assertEquals(result, { kind: "verdict", resolved: true, failedChecks: [] });
  assertEquals(record.model_calls, 1);
  assertEquals(record.evidence?.server_model_id, "scripted-model-1");
  assertEquals(record.calibrated, false);
  assertEquals(requests.length, 1);
  // The candidate's answer reached the judge fenced, and the key never left the relay.
  const body = JSON.stringify(requests[0]);
  assertMatch(body, /BEGIN ANSWER \[tag [0-9a-f]{32}\] \(9 characters\)/);
});

Deno.test("judgeEpisode() asks an Anthropic judge through the Messages API", async () => {
  const { result, record, requests } = await judged(
    { default: { content: scores(5, 5, 5) } },
    "9 / 3 = 3",
    { parameters: { temperature: 0 } },
    "anthropic",
  );
  assertEquals(result, { kind: "verdict", resolved: true, failedChecks: [] });
  assertEquals(record.total, 100);
  assertEquals(record.evidence?.usage_source, "server");
  const request = requests[0];
  const body = request.body as Record<string, unknown>;
  assertEquals(request.path, "/v1/messages");
  // Messages requires max_tokens: the judge's default when the plan sets no output cap.
  assertEquals([body.max_tokens, body.temperature], [1024, 0]);
});

Deno.test("judgeEpisode() fails an answer below the rubric's threshold", async () => {
  const { result, record } = await judged({ default: { content: scores(2, 2, 2) } }, "3?");
  assertEquals(record.total, 40); // 12 * 20 / 6
  assertEquals(result, {
    kind: "verdict",
    resolved: false,
    failedChecks: ["judge: total 40 below the pass threshold 60"],
  });
});

Deno.test("judgeEpisode() makes a malformed judgment a judge_fault after its recorded attempts, never a 0", async () => {
  const { result, record, requests } = await judged(
    { default: { content: '{"scores": [{"name": "correctness", "score": 4}]}' } },
    "9 / 3 = 3",
    { max_attempts: 2 },
  );
  assertEquals(requests.length, 2);
  assertEquals(record.attempts.length, 2);
  assertEquals(record.total, null);
  assertEquals(record.passed, null);
  assertEquals(result.kind, "fault");
  if (result.kind === "fault") {
    assertEquals(result.reason, "judge_fault");
    assertMatch(result.detail, /no usable judgment in 2 of at most 2 attempt\(s\)/);
  }
});

Deno.test("judgeEpisode() makes an out-of-range score a judge_fault", async () => {
  const { result, record } = await judged({ default: { content: scores(6, 5, 5) } }, "9 / 3 = 3");
  assertEquals(record.total, null);
  assertEquals(result.kind === "fault" && result.reason, "judge_fault");
  assertMatch(record.attempts[0].problem ?? "", /6 is outside 1\.\.5 for "correctness"/);
});

Deno.test("judgeEpisode() stops at the first parsable attempt", async () => {
  const { record, requests } = await judged(
    {
      calls: [{ call: 1, reply: { content: "Sure! 4/5" } }],
      default: { content: scores(5, 5, 5) },
    },
    "9 / 3 = 3",
    { max_attempts: 3 },
  );
  assertEquals(requests.length, 2);
  assertEquals(record.attempts.map((a) => a.problem === null), [false, true]);
  assertEquals(record.total, 100);
});

Deno.test("judgeEpisode() makes a judge call without usage missing evidence", async () => {
  const { result } = await judged({ default: { content: scores(5, 5, 5), usage: null } }, "x");
  assertEquals(result.kind === "fault" && result.reason, "evidence_missing");
});

Deno.test("judgeEpisode() makes a judge provider's 500 a provider_fault, not retried", async () => {
  const { result, requests } = await judged({ default: { status: 500 } }, "x", { max_attempts: 3 });
  assertEquals(result.kind === "fault" && result.reason, "provider_fault");
  assertEquals(requests.length, 1);
});

Deno.test("judgeEpisode() fails a workspace without the answer file without asking the judge", async () => {
  const { result, requests, record } = await judged(
    { default: { content: scores(5, 5, 5) } },
    null,
  );
  assertEquals(requests.length, 0);
  assertEquals(record.model_calls, 0);
  assertEquals(result, {
    kind: "verdict",
    resolved: false,
    failedChecks: ["judge: the answer file is absent from the workspace"],
  });
});

Deno.test("loadJudgeMaterial() refuses hidden files that differ from the run's frozen digest", async () => {
  const paths = taskPaths(JUDGE_EXAMPLE.suite, "explain-mean");
  const frozen = (await digestTree(paths.verifier)).digest;
  const material = await loadJudgeMaterial(paths, frozen);
  assertEquals(material.rubric.rubric_id, "explain-mean-v1");
  await assertRejects(
    () => loadJudgeMaterial(paths, `sha256:${"0".repeat(64)}`),
    /changed since the run's check/,
  );
});
