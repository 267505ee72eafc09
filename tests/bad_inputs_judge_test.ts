/**
 * Bad input to `judge calibrate` (issue 14): a golden set or a judge file
 * that does not fit gets one line naming the file, line and field, exit 2;
 * a missing option exit 1. Nothing is judged then.
 *
 * @module
 */
import { badInputTests } from "./_bad_input_table.ts";

const SUITE = "{root}/suites/judge_example";
/** The shipped calibration (ledgers/examples/judge_calibration): its summary and judgments. */
const SHIPPED = new URL("../ledgers/examples/judge_calibration/", import.meta.url);
const SHIPPED_SUMMARY = await Deno.readTextFile(new URL("summary.json", SHIPPED));
const SHIPPED_JUDGMENTS = await Deno.readTextFile(new URL("judgments.jsonl", SHIPPED));
const replayShipped = [
  "judge",
  "calibrate",
  "--suite",
  SUITE,
  "--golden",
  "{root}/suites/judge_example.golden.jsonl",
  "--replay",
  "{dir}/cal",
];
const JUDGE = "{root}/suites/judge_example.judge.json";
const label = (fields: Record<string, unknown>) =>
  JSON.stringify({
    kind: "score",
    item_id: "s1",
    task_id: "explain-mean",
    label_version: 1,
    answer: "It is 8.",
    human_total: 10,
    ...fields,
  });
const calibrate = (golden: string, judge = JUDGE) => [
  "judge",
  "calibrate",
  "--suite",
  SUITE,
  "--judge",
  judge,
  "--golden",
  golden,
  "--judge-provider-script",
  "{root}/suites/judge_example.judge_script.json",
];

badInputTests("judge", [
  {
    name: "a human total above 100",
    files: { "golden.jsonl": label({ human_total: 120 }) + "\n" },
    args: calibrate("{dir}/golden.jsonl"),
    code: 2,
    stderr: /golden\.jsonl:1: .*"human_total"/,
  },
  {
    name: "a revision that changes the answer it labels",
    files: {
      "golden.jsonl": label({}) + "\n" + label({ label_version: 2, answer: "Eight." }) + "\n",
    },
    args: calibrate("{dir}/golden.jsonl"),
    code: 2,
    stderr: /golden\.jsonl:2: .*"answer".*a revision relabels the same answer/,
  },
  {
    name: "one label version twice",
    files: { "golden.jsonl": label({}) + "\n" + label({ human_total: 20 }) + "\n" },
    args: calibrate("{dir}/golden.jsonl"),
    code: 2,
    stderr: /golden\.jsonl:2: .*label version 1 twice/,
  },
  {
    name: "an empty golden set",
    files: { "golden.jsonl": "" },
    args: calibrate("{dir}/golden.jsonl"),
    code: 2,
    stderr: /golden\.jsonl.*holds no label/,
  },
  {
    name: "a label naming a task that is not judged",
    files: { "golden.jsonl": label({ task_id: "no-such-task" }) + "\n" },
    args: calibrate("{dir}/golden.jsonl"),
    code: 2,
    stderr: /Golden item "s1" names task "no-such-task", which is not a judged task/,
  },
  {
    name: "a judge file with a calibration of its own",
    files: {
      "golden.jsonl": label({}) + "\n",
      "judge.json": JSON.stringify({ model: "m", calibration: { state: "passed" } }),
    },
    args: calibrate("{dir}/golden.jsonl", "{dir}/judge.json"),
    code: 2,
    stderr: /judge\.json: field "calibration": unknown key/,
  },
  {
    name: "freeze of a judged suite without --judge",
    args: ["freeze", "--suite", SUITE, "--out", "{dir}/plan.json", "--agent", "a=img"],
    code: 1,
    stderr: /The suite's task "explain-mean" is judged by an LLM judge: give "--judge FILE"/,
  },
  {
    name: "freeze --judge of a suite without a judged task",
    files: {
      "suite/suite.json": JSON.stringify({ suite_id: "s", tasks: [{ task_id: "t" }] }),
      "suite/tasks/t/workspace/TASK.md": "Do it.\n",
      "suite/tasks/t/verifier/verify.sh": "echo '{\"resolved\": true}'\n",
    },
    args: [
      "freeze",
      "--suite",
      "{dir}/suite",
      "--out",
      "{dir}/plan.json",
      "--agent",
      "a=img",
      "--judge",
      JUDGE,
    ],
    code: 1,
    stderr: /Option "--judge" needs a suite with a judged task/,
  },
  {
    name: "freeze --judge with a judge file that is not one",
    files: { "judge.json": JSON.stringify({ model: "m", max_attempts: 9 }) },
    args: [
      "freeze",
      "--suite",
      SUITE,
      "--out",
      "{dir}/plan.json",
      "--agent",
      "a=img",
      "--judge",
      "{dir}/judge.json",
    ],
    code: 2,
    stderr: /judge\.json: field "max_attempts"/,
  },
  {
    name: "a pairwise record that is not one",
    files: { "pairwise.json": JSON.stringify({ schema_version: 1, agents: ["a"] }) },
    args: ["judge", "pairwise", "--from", "{dir}/pairwise.json"],
    code: 2,
    stderr: /pairwise\.json: field "plan": missing/,
  },
  {
    name: "a calibration to replay whose summary is not one",
    files: {
      "golden.jsonl": label({}) + "\n",
      "cal/summary.json": JSON.stringify({ schema_version: 1, passed: "yes" }),
      "cal/judgments.jsonl": "",
    },
    args: [
      "judge",
      "calibrate",
      "--suite",
      SUITE,
      "--golden",
      "{dir}/golden.jsonl",
      "--replay",
      "{dir}/cal",
    ],
    code: 2,
    stderr: /cal\/summary\.json: field "passed": .*boolean/,
  },
  {
    name: "a calibration to replay without its probes (issue 21)",
    files: { "cal/summary.json": SHIPPED_SUMMARY, "cal/judgments.jsonl": SHIPPED_JUDGMENTS },
    args: replayShipped,
    code: 2,
    stderr: /cal\/probes\.jsonl: No such file or directory/,
  },
  {
    name: "a calibration to replay whose probe judgment is out of range",
    files: {
      "cal/summary.json": SHIPPED_SUMMARY,
      "cal/judgments.jsonl": SHIPPED_JUDGMENTS,
      "cal/probes.jsonl": JSON.stringify({
        probe_id: "empty",
        task_id: "explain-mean",
        judgment: { attempts: [], value: { total: 120, passed: true } },
      }) + "\n",
    },
    args: replayShipped,
    code: 2,
    stderr: /cal\/probes\.jsonl:1: field "judgment\.value\.total": Too big/,
  },
  {
    name: "a calibration to replay whose probes are not the ones its summary names",
    files: {
      "cal/summary.json": SHIPPED_SUMMARY,
      "cal/judgments.jsonl": SHIPPED_JUDGMENTS,
      "cal/probes.jsonl": "",
    },
    args: replayShipped,
    code: 2,
    stderr: /cal\/probes\.jsonl" is not the file its summary names/,
  },
  {
    name: "calibrate without a judge upstream",
    files: { "golden.jsonl": label({}) + "\n" },
    args: [
      "judge",
      "calibrate",
      "--suite",
      SUITE,
      "--judge",
      JUDGE,
      "--golden",
      "{dir}/golden.jsonl",
    ],
    code: 1,
    stderr: /Missing option: "--judge-upstream" or "--judge-provider-script"/,
  },
]);
