/**
 * Running the plan's LLM judge on a golden set (issue 14, `ledgerbench
 * judge calibrate`): every item of the set is judged exactly as a run
 * judges an episode (the same prompt, parser, attempts and relay), a score
 * item once, a pairwise item twice with the two answers' positions swapped
 * (seed 000 §06, after Zheng et al. 2023); then, in the same session, the
 * adversarial probes of every judged task (issue 21,
 * `adversarial_probes.ts`), each judged as a score item. What the judge
 * said is returned raw; the figures are computed from it by
 * `analysis/judge`.
 *
 * @module
 */
import type { GoldenLabel, JudgeSettings } from "../../analysis/schema/records.ts";
import type { GoldenItemJudgment, ProbeJudgment } from "../../analysis/schema/judge_records.ts";
import { parseScoreJudgment } from "../../analysis/judge/parse_judgment.ts";
import type { Upstream } from "../relay/upstream.ts";
import type { LoadedJudgeMaterial } from "./judge_episode.ts";
import { scorePrompt } from "./judge_prompt.ts";
import {
  type JudgeSession,
  type JudgeSpend,
  judgeSwapped,
  type Judgment,
  openJudgeSession,
} from "./judge_session.ts";
import { adversarialProbes } from "./adversarial_probes.ts";

/** Options of {@linkcode judgeGoldenSet}. */
export interface JudgeGoldenSetOptions {
  settings: JudgeSettings;
  upstream: Upstream;
  /** Each judged task's material, by task id. */
  materials: ReadonlyMap<string, LoadedJudgeMaterial>;
  /** Called after each item and each probe (progress). */
  onItem?: (done: number, total: number) => void;
}

/**
 * Judges each item of a golden set once, in the order of its first label:
 * the answer(s) of an item are the same in every label version (the loader
 * checks it), so the judge never sees a label, nor which version it is.
 * Then every judged task's adversarial probes (issue 21), in the order of
 * `materials`, each in {@linkcode adversarialProbes}'s order, judged
 * exactly as a score item (the same prompt, parser and attempts).
 *
 * @param labels every label of the set, in file order
 * @param options the judge, its upstream and the tasks' material
 * @returns each item's and each probe's raw judgments, and the session's spend and evidence gate
 * @throws {Error} when an item's task is not a judged task of the suite, or the relay cannot start
 */
export async function judgeGoldenSet(
  labels: readonly GoldenLabel[],
  options: JudgeGoldenSetOptions,
): Promise<{ items: GoldenItemJudgment[]; probes: ProbeJudgment[]; spend: JudgeSpend }> {
  const items = new Map<string, GoldenLabel>();
  for (const label of labels) if (!items.has(label.item_id)) items.set(label.item_id, label);
  for (const label of items.values()) {
    if (!options.materials.has(label.task_id)) {
      throw new Error(
        `Golden item "${label.item_id}" names task "${label.task_id}", which is not a judged task of the suite`,
      );
    }
  }
  const session = await openJudgeSession({
    upstream: options.upstream,
    config: { ...options.settings, calibration: { state: "not_run" } },
  });
  const judged: GoldenItemJudgment[] = [];
  const probes: ProbeJudgment[] = [];
  const tasks = [...options.materials].map(([taskId, material]) => ({
    taskId,
    material,
    probes: adversarialProbes(material),
  }));
  const total = items.size + tasks.reduce((sum, task) => sum + task.probes.length, 0);
  try {
    for (const label of items.values()) {
      const material = options.materials.get(label.task_id)!;
      if (label.kind === "score") {
        const judgment = await judgeScore(session, material, label.answer);
        judged.push({ item_id: label.item_id, task_id: label.task_id, kind: "score", judgment });
      } else {
        const { first, second } = await judgeSwapped(
          session,
          material,
          label.answer_a,
          label.answer_b,
        );
        judged.push({
          item_id: label.item_id,
          task_id: label.task_id,
          kind: "pairwise",
          first,
          second,
        });
      }
      options.onItem?.(judged.length, total);
    }
    for (const task of tasks) {
      for (const probe of task.probes) {
        const judgment = await judgeScore(session, task.material, probe.answer);
        probes.push({ probe_id: probe.probe_id, task_id: task.taskId, judgment });
        options.onItem?.(judged.length + probes.length, total);
      }
    }
  } catch (error) {
    await session.close().catch(() => {});
    throw error;
  }
  return { items: judged, probes, spend: await session.close() };
}

/** One score judgment of `answer`: its total and verdict against the task's threshold. */
async function judgeScore(
  session: JudgeSession,
  material: LoadedJudgeMaterial,
  answer: string,
): Promise<Judgment<{ total: number; passed: boolean }>> {
  return await session.judge(scorePrompt(material, answer), (reply) => {
    const parsed = parseScoreJudgment(reply, material.rubric);
    return parsed.ok
      ? {
        ok: true,
        value: { total: parsed.total, passed: parsed.total >= material.rubric.pass_threshold },
      }
      : parsed;
  });
}
