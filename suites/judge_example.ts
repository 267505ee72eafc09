/**
 * The shipped example of a task an LLM judge verifies (issue 14): the
 * suite `judge_example/` (one task, `explain-mean`, its rubric and
 * reference answer hidden in `verifier/`), the judge configuration, the
 * golden set of human labels it is calibrated on (one label revised after
 * the labeller saw the model's output), and the scripted judge that stands
 * in for a paid model. The demo and the tests read them from here.
 *
 * @module
 */

const here = (name: string) => new URL(name, import.meta.url).pathname;

/** The example's files, as absolute paths. */
export const JUDGE_EXAMPLE = Object.freeze({
  /** The suite directory (copy it before calibrating: calibrations go beside it). */
  suite: here("judge_example"),
  /** The judge configuration (`freeze --judge`, `judge calibrate --judge`). */
  judge: here("judge_example.judge.json"),
  /** The golden set (`judge calibrate --golden`). */
  golden: here("judge_example.golden.jsonl"),
  /**
   * The scripted judge (`--judge-provider-script`): scores content, not keywords (issue 21):
   * the division of the sum by the count to the mean, or the sum and the mean, read within the
   * answer's fence up to its real end marker; it passes the adversarial probes.
   */
  script: here("judge_example.judge_script.json"),
  /** The model id the scripted judge reports. */
  model: "scripted-judge-1",
});
