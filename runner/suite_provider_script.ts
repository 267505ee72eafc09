/**
 * A scripted "model" for a generated suite: a `ProviderScript` (runner/relay)
 * whose rules answer each task's prompt with the suite's hidden answer, or
 * with its plausible wrong answer. It lets the demo and the tests run real
 * episodes against the scripted provider with known ground truth; the answers
 * never enter the sandbox (the provider lives on the host, behind the relay).
 *
 * @module
 */
import { seededRandom } from "../analysis/seeded_random.ts";
import type {
  ProviderReplyInput,
  ProviderScriptInput,
} from "../analysis/schema/provider_script.ts";
import { type Suite, taskPaths } from "../analysis/schema/suite_manifest.ts";

/** Options of {@link suiteProviderScript}. */
export interface SuiteProviderScriptOptions {
  /** The model id the provider reports; default `scripted-model-1`. */
  model?: string;
  /**
   * Probability that a task gets the right answer; default 1. Which tasks do
   * is drawn once per task, in suite order, from `seededRandom(seed)`.
   */
  correctRate?: number;
  /** Seed of that draw; default `"weak-model"`. */
  seed?: number | string;
  /** Replies overriding a task's answer (429s, missing usage, ...), by task id. */
  overrides?: Record<string, ProviderReplyInput>;
  /** Per-call overrides (1-based call number counted by the provider). */
  calls?: ProviderScriptInput["calls"];
}

/**
 * Builds the provider script for `suite`.
 *
 * Rule: one rule per task, matching the line `ledgerbench-task: <task_id>`
 * every generated prompt carries; its reply is `answer.md` when the task's
 * draw `random() < correctRate`, else `wrong_answer.md`; unmatched prompts
 * get an empty answer. The rules name no `turn` or `last`, so they read the
 * last user message and give the same answer on every turn of a
 * conversation. O(tasks).
 *
 * @param suite the generated suite
 * @param options model id, correct rate and seed, overrides
 * @returns the script (input form: defaults are applied by the provider)
 */
export async function suiteProviderScript(
  suite: Suite,
  options: SuiteProviderScriptOptions = {},
): Promise<ProviderScriptInput> {
  const rate = options.correctRate ?? 1;
  const random = seededRandom(options.seed ?? "weak-model");
  const rules = [];
  for (const task of suite.manifest.tasks) {
    const paths = taskPaths(suite.dir, task.task_id);
    const correct = random() < rate;
    const content = await Deno.readTextFile(correct ? paths.answer : paths.wrong_answer);
    rules.push({
      contains: `ledgerbench-task: ${task.task_id}\n`,
      reply: options.overrides?.[task.task_id] ?? { content },
    });
  }
  return {
    model: options.model ?? "scripted-model-1",
    rules,
    default: { content: "" },
    calls: options.calls ?? [],
  };
}
