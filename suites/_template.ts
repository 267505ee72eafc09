/**
 * The contract between a task template and the suite generator (seed 000,
 * §01: "题面框架公开，出题用一个私有的 256 位随机种子"): a template is public
 * code; the variant it produces depends only on the random stream it is
 * given, so the same private seed gives byte-identical tasks and another seed
 * changes every variant.
 *
 * @module
 */
import type { Random } from "../analysis/seeded_random.ts";

/** Per-task budgets a template suggests; null means "no cap". */
export interface TaskLimits {
  token_cap: number | null;
  step_cap: number | null;
  wall_ms_cap: number | null;
}

/** Everything one template produces for one seed. */
export interface GeneratedTask {
  /** The prompt, written to `workspace/TASK.md`. */
  prompt: string;
  /** Files the candidate sees, relative path → content (TASK.md is added). */
  workspace: Record<string, string>;
  /**
   * Hidden verifier files, relative path → content; `verify.sh` is the
   * entry point and prints a `Verdict` JSON object as its last stdout line.
   */
  verifier: Record<string, string>;
  /**
   * A model answer that solves the task, as "```file:<path>" blocks (the
   * scripted agents' contract, `containers/agents/_model.ts`). Hidden.
   */
  answer: string;
  /** A plausible model answer that does not solve it (the weak demo model). Hidden. */
  wrong_answer: string;
}

/** Options a template's generator receives. */
export interface TemplateOptions {
  /**
   * Reproduce seed 000's 2026-09-04 verifier bug (copy a read-only snapshot,
   * then delete old output without `chmod -R u+rwX`): only templates with a
   * setup phase honour it.
   */
  faultyVerifierSetup?: boolean;
}

/** A public task template. */
export interface TaskTemplate {
  /** Stable task id, e.g. `b3-report`; the same for every seed. */
  task_id: string;
  /** Lane letter (seed 000's lanes). */
  lane: string;
  /** Suggested budgets. */
  limits: TaskLimits;
  /**
   * Produces the variant for a random stream. Must draw every random choice
   * from `random` (no clock, no `Math.random`) so that generation replays.
   */
  generate(random: Random, options: TemplateOptions): GeneratedTask;
}

/** A suite: an ordered list of templates and the weight of each lane. */
export interface SuiteDefinition {
  suite_id: string;
  /** Lane → total weight of the lane; a task weighs lane weight / tasks in lane. */
  lane_weights: Record<string, number>;
  templates: TaskTemplate[];
}
