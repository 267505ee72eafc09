/**
 * Comparing two agents' answers task by task with the plan's LLM judge
 * (issue 14, `ledgerbench judge pairwise`): for every judged task, each
 * agent's one scored attempt's answer is read from its stored artifact and
 * the judge is asked twice, the positions swapped (seed 000 §06, after
 * Zheng et al. 2023). The raw judgments are returned for the record; the
 * summary is `analysis/judge/pairwise_summary.ts`'s.
 *
 * @module
 */
import type { Episode, JudgeConfig } from "../../analysis/schema/records.ts";
import type { PairRecord } from "../../analysis/schema/judge_records.ts";
import { openArtifact } from "../sandbox/artifact_store.ts";
import type { Upstream } from "../relay/upstream.ts";
import { type Suite, taskPaths } from "../../analysis/schema/suite_manifest.ts";
import { loadJudgeMaterial, readAnswerFile } from "./judge_episode.ts";
import { type JudgeSpend, judgeSwapped, openJudgeSession } from "./judge_session.ts";

/** Options of {@linkcode judgePairs}. */
export interface JudgePairsOptions {
  suite: Suite;
  /** The task order (the plan's). */
  taskIds: readonly string[];
  rows: readonly Episode[];
  artifactsRoot: string;
  agents: [string, string];
  config: JudgeConfig;
  upstream: Upstream;
}

/**
 * Compares the two agents on every judged task, in plan order.
 *
 * Rule: an agent's answer is that of its one scored attempt at the task
 * (no scored attempt, or several, and the task is `unjudged`: no best-of-N
 * choosing among attempts); an answer that cannot be read (absent, a link,
 * too large, not UTF-8) makes the task `unjudged` too, with why. The judge
 * is asked twice per judged task, each time with the plan's attempts.
 *
 * @param options the suite, the plan's tasks and judge, the rows, the artifacts, the agents
 * @returns one record per judged task, and the session's spend and evidence gate
 * @throws {Error} when an artifact's content no longer matches its digest, or the relay cannot start
 */
export async function judgePairs(
  options: JudgePairsOptions,
): Promise<{ records: PairRecord[]; spend: JudgeSpend }> {
  const [a, b] = options.agents;
  const judged = new Map(
    options.suite.manifest.tasks.filter((task) => task.judge !== undefined).map((task) => [
      task.task_id,
      task.judge!,
    ]),
  );
  const session = await openJudgeSession({
    upstream: options.upstream,
    config: options.config,
  });
  const records: PairRecord[] = [];
  try {
    for (const taskId of options.taskIds) {
      const judge = judged.get(taskId);
      if (judge === undefined) continue;
      const record: PairRecord = {
        task_id: taskId,
        agent_a: a,
        agent_b: b,
        episode_a: null,
        episode_b: null,
        first: null,
        second: null,
        unjudged: null,
      };
      records.push(record);
      const answers: string[] = [];
      for (const [side, agent] of [["a", a], ["b", b]] as const) {
        const scored = options.rows.filter((row) =>
          row.task_id === taskId && row.agent_id === agent && row.status === "scored"
        );
        if (scored.length !== 1) {
          record.unjudged ??= scored.length === 0
            ? `"${agent}" has no scored attempt`
            : `"${agent}" has ${scored.length} scored attempts (no best-of-N: none is chosen)`;
          continue;
        }
        record[side === "a" ? "episode_a" : "episode_b"] = scored[0].episode_id;
        if (scored[0].artifact_digest === null) {
          record.unjudged ??= `"${agent}"'s workspace was not stored`;
          continue;
        }
        const artifact = await openArtifact(options.artifactsRoot, scored[0].artifact_digest);
        const answer = await readAnswerFile(`${artifact.dir}/${judge.answer}`);
        if (!answer.ok) record.unjudged ??= `"${agent}": ${answer.problem}`;
        else answers.push(answer.text);
      }
      if (record.unjudged !== null) continue;
      const material = await loadJudgeMaterial(taskPaths(options.suite.dir, taskId));
      const { first, second } = await judgeSwapped(session, material, answers[0], answers[1]);
      record.first = first;
      record.second = second;
    }
  } catch (error) {
    await session.close().catch(() => {});
    throw error;
  }
  return { records, spend: await session.close() };
}
