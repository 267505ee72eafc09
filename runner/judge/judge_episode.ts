/**
 * The judge's part of an episode of a judged task (issue 14, seed 000 §06):
 * read the candidate's answer from its stored workspace, ask the plan's
 * judge for per-dimension scores through the judge's relay, let code
 * compute the total, and turn the outcome into the verifier's result and
 * the row's judge record.
 *
 * | outcome | result |
 * |---|---|
 * | the answer file is absent, not a regular file, over {@linkcode MAX_ANSWER_BYTES} or not UTF-8 (the candidate's doing) | verdict: not resolved, judge not asked |
 * | a judge call failed the evidence gate (no server model id or usage, a provider fault) | fault: `evidence_missing` or `provider_fault` |
 * | no attempt gave a parsable judgment (missing, duplicate or unknown dimension, score out of range, not the JSON asked for) | fault: `judge_fault`, never a score of 0 |
 * | otherwise | verdict: resolved when the computed total is at least the rubric's pass threshold |
 *
 * @module
 */
import type {
  DimensionScore,
  JudgeConfig,
  JudgeRecord,
  Rubric,
} from "../../analysis/schema/records.ts";
import { Rubric as RubricSchema } from "../../analysis/schema/records.ts";
import { sha256Hex } from "../../analysis/sha256_hex.ts";
import { digestTree } from "../sandbox/digest_tree.ts";
import { parseScoreJudgment } from "../../analysis/judge/parse_judgment.ts";
import type { VerifyResult } from "../episode_row.ts";
import type { CallBodies } from "../relay/call_bodies.ts";
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import type { Upstream } from "../relay/upstream.ts";
import {
  JUDGE_REFERENCE_FILE,
  JUDGE_RUBRIC_FILE,
  type TaskJudge,
  type TaskPaths,
} from "../../analysis/schema/suite_manifest.ts";
import type { JudgeMaterial } from "./judge_prompt.ts";
import { scorePrompt } from "./judge_prompt.ts";
import { type Judgment, openJudgeSession } from "./judge_session.ts";

/** The largest answer file the judge is shown, in bytes (64 KiB). */
export const MAX_ANSWER_BYTES = 65_536;

/** A judged task's material, read from the suite, with its rubric's digest. */
export interface LoadedJudgeMaterial extends JudgeMaterial {
  /** SHA-256 of `rubric.json`'s bytes. */
  rubricSha256: string;
}

/**
 * Reads a judged task's question (`workspace/TASK.md`), hidden reference
 * answer and rubric from the suite (whose hash, and the verifier files'
 * frozen digest, the run checked before its first episode). With
 * `expectedVerifierDigest`, the hidden files are digested again first and
 * must still be the frozen ones (seed 000: digests checked before use), as
 * the verifier's sandbox checks them before each run.
 *
 * @param paths the task's paths in the suite
 * @param expectedVerifierDigest the run's frozen `digestTree` of `verifier/`, if any
 * @returns the material and the rubric's SHA-256
 * @throws {Error} when the hidden files changed, a file cannot be read, or the rubric does not
 *   parse (`loadSuite` checked both)
 */
export async function loadJudgeMaterial(
  paths: TaskPaths,
  expectedVerifierDigest?: string,
): Promise<LoadedJudgeMaterial> {
  if (expectedVerifierDigest !== undefined) {
    const found = (await digestTree(paths.verifier)).digest;
    if (found !== expectedVerifierDigest) {
      throw new Error(
        `The hidden files of "${paths.verifier}" changed since the run's check: digest ${found}, frozen ${expectedVerifierDigest}`,
      );
    }
  }
  const rubricBytes = await Deno.readFile(`${paths.verifier}/${JUDGE_RUBRIC_FILE}`);
  const rubric: Rubric = RubricSchema.parse(JSON.parse(new TextDecoder().decode(rubricBytes)));
  return {
    question: await Deno.readTextFile(`${paths.workspace}/TASK.md`),
    reference: await Deno.readTextFile(`${paths.verifier}/${JUDGE_REFERENCE_FILE}`),
    rubric,
    rubricSha256: sha256Hex(rubricBytes),
  };
}

/**
 * The judge record of an episode the judge was not asked about (an earlier
 * rule decided the row, or the answer was unusable): every row of a judged
 * task carries one, so that an uncalibrated judge's tasks are left out of
 * formal scores whole.
 *
 * @param material the task's rubric and its digest
 * @param config the plan's judge
 * @returns a record with no attempt, no scores and no spend
 */
export function unjudgedRecord(material: LoadedJudgeMaterial, config: JudgeConfig): JudgeRecord {
  return {
    rubric_id: material.rubric.rubric_id,
    rubric_sha256: material.rubricSha256,
    model: config.model,
    calibrated: config.calibration.state === "passed",
    max_attempts: config.max_attempts,
    attempts: [],
    scores: null,
    total: null,
    pass_threshold: material.rubric.pass_threshold,
    passed: null,
    prompt_tokens: 0,
    completion_tokens: 0,
    model_calls: 0,
    evidence: null,
  };
}

/** Inputs of {@linkcode judgeEpisode}. */
export interface JudgeEpisodeInput {
  judge: TaskJudge;
  material: LoadedJudgeMaterial;
  /** The stored workspace's read-only snapshot. */
  artifactDir: string;
  config: JudgeConfig;
  upstream: Upstream;
  upstreamTimeoutMs?: number;
}

/** The judge's outcome: the verifier result it stands for, the row's record and the calls. */
export interface JudgeEpisodeOutcome {
  result: VerifyResult;
  record: JudgeRecord;
  /** The judge's relay's records and bodies, for the episode's log; absent when not asked. */
  calls?: { records: RelayCallRecord[]; bodies: CallBodies[] };
}

/**
 * Judges one episode's answer (rules in the module doc).
 *
 * @param input the task's judge settings and material, the artifact, the plan's judge and its upstream
 * @returns the result and the record
 * @throws {Error} when the judge's relay cannot start (a harness error)
 */
export async function judgeEpisode(input: JudgeEpisodeInput): Promise<JudgeEpisodeOutcome> {
  const record = unjudgedRecord(input.material, input.config);
  const answer = await readAnswerFile(`${input.artifactDir}/${input.judge.answer}`);
  if (!answer.ok) {
    return {
      record,
      result: { kind: "verdict", resolved: false, failedChecks: [`judge: ${answer.problem}`] },
    };
  }
  const session = await openJudgeSession({
    upstream: input.upstream,
    config: input.config,
    upstreamTimeoutMs: input.upstreamTimeoutMs,
  });
  const rubric = input.material.rubric;
  let judgment: Judgment<{ scores: DimensionScore[]; total: number }>;
  try {
    judgment = await session.judge(scorePrompt(input.material, answer.text), (reply) => {
      const parsed = parseScoreJudgment(reply, rubric);
      return parsed.ok ? { ok: true, value: parsed } : parsed;
    });
  } catch (error) {
    await session.close().catch(() => {});
    throw error;
  }
  const spend = await session.close();
  const { gate } = spend;
  const calls = { records: spend.records, bodies: spend.bodies };
  const judged: JudgeRecord = {
    ...record,
    attempts: judgment.attempts,
    scores: judgment.value?.scores ?? null,
    total: judgment.value?.total ?? null,
    passed: judgment.value === null ? null : judgment.value.total >= rubric.pass_threshold,
    prompt_tokens: gate.prompt_tokens,
    completion_tokens: gate.completion_tokens,
    model_calls: gate.model_calls,
    evidence: gate.model_calls === 0 ? null : gate.evidence,
  };
  if (gate.status === "invalid") {
    return {
      calls,
      record: { ...judged, scores: null, total: null, passed: null },
      result: {
        kind: "fault",
        reason: gate.invalid_reason === "provider_fault" ? "provider_fault" : "evidence_missing",
        fault: "judge_evidence",
        detail: `the judge's calls: ${gate.problems.map((p) => p.message).join(" / ")}`,
      },
    };
  }
  if (judgment.value === null) {
    const problems = judgment.attempts.map((a, i) => `attempt ${i + 1}: ${a.problem}`);
    return {
      calls,
      record: judged,
      result: {
        kind: "fault",
        reason: "judge_fault",
        fault: "judge_fault",
        detail:
          `no usable judgment in ${judgment.attempts.length} of at most ${input.config.max_attempts} attempt(s): ${
            problems.join(" / ")
          }`,
      },
    };
  }
  const total = judgment.value.total;
  return {
    calls,
    record: judged,
    result: {
      kind: "verdict",
      resolved: judged.passed === true,
      failedChecks: judged.passed
        ? []
        : [`judge: total ${formatTotal(total)} below the pass threshold ${rubric.pass_threshold}`],
    },
  };
}

/** A total as a row's note shows it: at most two decimals. */
function formatTotal(total: number): string {
  return String(Math.round(total * 100) / 100);
}

/**
 * Reads a candidate's answer file from a stored workspace: a regular file
 * (never a link, which could point anywhere on the host) of at most
 * {@linkcode MAX_ANSWER_BYTES} bytes of UTF-8.
 *
 * @param path the file inside the artifact's read-only snapshot
 * @returns its text, or why it cannot be judged (the candidate's doing)
 * @throws {Error} when the file cannot be examined for another reason
 */
export async function readAnswerFile(
  path: string,
): Promise<{ ok: true; text: string } | { ok: false; problem: string }> {
  let info;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { ok: false, problem: "the answer file is absent from the workspace" };
    }
    throw error;
  }
  if (!info.isFile) return { ok: false, problem: "the answer is not a regular file" };
  if (info.size > MAX_ANSWER_BYTES) {
    return { ok: false, problem: `the answer has ${info.size} bytes, over ${MAX_ANSWER_BYTES}` };
  }
  try {
    return {
      ok: true,
      text: new TextDecoder("utf-8", { fatal: true }).decode(await Deno.readFile(path)),
    };
  } catch (error) {
    if (error instanceof TypeError) return { ok: false, problem: "the answer is not UTF-8" };
    throw error;
  }
}
