/**
 * Template `a2-callers` (lane A, code understanding): count the call sites of
 * one logging helper across a small shell code base, not counting its
 * definition nor mentions in comments. The wrong answer counts every
 * occurrence (the naive `grep -c`).
 *
 * @module
 */
import type { Random } from "../../analysis/seeded_random.ts";
import type { GeneratedTask, TaskTemplate } from "../_template.ts";
import { drawDistinct, drawInt, drawOne, WORDS } from "./_draw.ts";
import { VERIFY_PRELUDE } from "./_verify_prelude.ts";
import { fileBlock } from "./_file_block.ts";

function generate(random: Random): GeneratedTask {
  const [helperWord, otherWord, ...fileWords] = drawDistinct(random, { items: WORDS, count: 8 });
  const helper = `log_${helperWord}`;
  const other = `log_${otherWord}`;
  const workspace: Record<string, string> = {};
  let calls = 0;
  let mentions = 0;
  const definitionFile = `lib/${fileWords[0]}.sh`;
  workspace[definitionFile] = [
    "#!/bin/sh",
    `# ${helper} MESSAGE: prints MESSAGE with a prefix`,
    `${helper}() {`,
    `  echo "[${helperWord}] $1"`,
    "}",
    `${other}() {`,
    `  echo "[${otherWord}] $1"`,
    "}",
    "",
  ].join("\n");
  mentions += 2;
  for (const word of fileWords.slice(1)) {
    const lines = ["#!/bin/sh", `. ./${definitionFile}`];
    const steps = drawInt(random, { min: 3, max: 7 });
    for (let s = 0; s < steps; s++) {
      const kind = drawOne(random, ["call", "call", "other", "comment", "plain"] as const);
      if (kind === "call") {
        lines.push(`${helper} "step ${s} of ${word}"`);
        calls++;
        mentions++;
      } else if (kind === "other") {
        lines.push(`${other} "step ${s} of ${word}"`);
      } else if (kind === "comment") {
        lines.push(`# TODO: replace ${helper} here once ${word} settles`);
        mentions++;
      } else {
        lines.push(`echo "${word} ${drawInt(random, { min: 1, max: 999 })}"`);
      }
    }
    workspace[`bin/${word}.sh`] = lines.join("\n") + "\n";
  }
  const prompt = `# Task a2-callers

ledgerbench-task: a2-callers

How many times is the shell function \`${helper}\` **called** in this
workspace? Count call sites only: not its definition, not comments that
mention it.

Write the number to \`answer.txt\` in the workspace root (one line, digits only).
`;
  const verify = `${VERIFY_PRELUDE}
expected=$(first_line < "$HIDDEN/expected.txt")
actual=$(from_candidate "$ARTIFACT/answer.txt" | first_line)
case "$actual" in
  ''|*[!0-9]*) check answer_is_number false "got '$actual'" ;;
  *) check answer_is_number true "" ;;
esac
if [ "$actual" = "$expected" ]; then
  check call_count true ""
else
  check call_count false "got $actual"
fi
verdict
`;
  return {
    prompt,
    workspace,
    verifier: { "verify.sh": verify, "expected.txt": `${calls}\n` },
    answer: fileBlock("answer.txt", calls + "\n"),
    wrong_answer: fileBlock("answer.txt", mentions + "\n"),
  };
}

/** The `a2-callers` template. */
export const a2Callers: TaskTemplate = {
  task_id: "a2-callers",
  lane: "A",
  limits: { token_cap: 20_000, step_cap: 10, wall_ms_cap: 60_000 },
  generate,
};
