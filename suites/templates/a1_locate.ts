/**
 * Template `a1-locate` (lane A, code location, seed 000's lane "代码定位与理解"):
 * a small shell code base defines one target function among many and calls
 * it from several places; the candidate writes the `path:line` of its
 * definition to `answer.txt` (seed 000, the code-search golden set: "必须命中
 * 文件路径:行号").
 *
 * @module
 */
import type { Random } from "../../analysis/seeded_random.ts";
import type { GeneratedTask, TaskTemplate } from "../_template.ts";
import { drawDistinct, drawInt, WORDS } from "./_draw.ts";
import { VERIFY_PRELUDE } from "./_verify_prelude.ts";
import { fileBlock } from "./_file_block.ts";

function generate(random: Random): GeneratedTask {
  const fileCount = drawInt(random, { min: 4, max: 7 });
  const fileWords = drawDistinct(random, { items: WORDS, count: fileCount });
  const nameWords = drawDistinct(random, { items: WORDS, count: 12 });
  const target = `compute_${nameWords[0]}_${nameWords[1]}`;
  const decoys = nameWords.slice(2).map((word, i) => `compute_${word}_${nameWords[(i + 3) % 12]}`);
  const targetFile = drawInt(random, { min: 0, max: fileCount - 1 });
  const workspace: Record<string, string> = {};
  let expected = "";
  let wrong = "";
  for (let f = 0; f < fileCount; f++) {
    const path = `src/${fileWords[f]}.sh`;
    const lines = [`#!/bin/sh`, `# module ${fileWords[f]}`];
    const functions = drawInt(random, { min: 2, max: 4 });
    for (let k = 0; k < functions; k++) {
      const name = decoys[(f * 3 + k) % decoys.length];
      lines.push(
        "",
        `${name}_${f}${k}() {`,
        `  echo $(( $1 * ${drawInt(random, { min: 2, max: 97 })} ))`,
        `}`,
      );
    }
    if (f !== targetFile) {
      lines.push("", `# uses the helper from another module`);
      lines.push(`result_${f}=$(${target} ${drawInt(random, { min: 1, max: 50 })})`);
      if (wrong === "") wrong = `${path}:${lines.length}`;
    } else {
      lines.push("", `${target}() {`);
      expected = `${path}:${lines.length}`;
      lines.push(`  echo $(( $1 + ${drawInt(random, { min: 100, max: 999 })} ))`, `}`);
    }
    workspace[path] = lines.join("\n") + "\n";
  }
  const prompt = `# Task a1-locate

ledgerbench-task: a1-locate

Find where the shell function \`${target}\` is **defined** (not where it is
called) in the files under \`src/\`.

Write the answer to \`answer.txt\` in the workspace root as one line of the
form \`<path>:<line>\`, where \`<path>\` is relative to the workspace root and
\`<line>\` is the 1-based line number of the line that opens the definition
(\`${target}() {\`).
`;
  const verify = `${VERIFY_PRELUDE}
expected=$(first_line < "$HIDDEN/expected.txt")
actual=$(from_candidate "$ARTIFACT/answer.txt" | first_line)
if [ -z "$actual" ]; then
  check answer_present false "answer.txt is missing or empty"
else
  check answer_present true ""
fi
if [ "$actual" = "$expected" ]; then
  check definition_located true ""
else
  check definition_located false "got $actual"
fi
verdict
`;
  return {
    prompt,
    workspace,
    verifier: { "verify.sh": verify, "expected.txt": expected + "\n" },
    answer: fileBlock("answer.txt", expected + "\n"),
    wrong_answer: fileBlock("answer.txt", wrong + "\n"),
  };
}

/** The `a1-locate` template. */
export const a1Locate: TaskTemplate = {
  task_id: "a1-locate",
  lane: "A",
  limits: { token_cap: 20_000, step_cap: 10, wall_ms_cap: 60_000 },
  generate,
};
