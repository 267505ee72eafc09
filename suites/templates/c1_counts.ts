/**
 * Template `c1-counts` (lane C, terminal task): turn a word list into a
 * frequency table, most frequent first, ties by word. The wrong answer sorts
 * by word only. The verifier also checks that the input was left unchanged.
 *
 * @module
 */
import { sha256Hex } from "../../analysis/sha256_hex.ts";
import type { Random } from "../../analysis/seeded_random.ts";
import type { GeneratedTask, TaskTemplate } from "../_template.ts";
import { drawDistinct, drawInt, WORDS } from "./_draw.ts";
import { VERIFY_PRELUDE } from "./_verify_prelude.ts";
import { fileBlock } from "./_file_block.ts";

function generate(random: Random): GeneratedTask {
  const vocabulary = drawDistinct(random, {
    items: WORDS,
    count: drawInt(random, { min: 5, max: 9 }),
  });
  const words: string[] = [];
  const total = drawInt(random, { min: 25, max: 60 });
  for (let i = 0; i < total; i++) {
    words.push(vocabulary[drawInt(random, { min: 0, max: vocabulary.length - 1 })]);
  }
  const data = words.join("\n") + "\n";
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  const byWord = [...counts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const ranked = [...byWord].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const table = (rows: [string, number][]) => rows.map(([w, c]) => `${c} ${w}`).join("\n") + "\n";
  const expected = table(ranked);
  // The wrong answer differs from the right one unless both orders coincide;
  // then it drops the last line, so it is always wrong.
  let wrong = table(byWord);
  if (wrong === expected) wrong = table(byWord.slice(0, -1));
  const dataSha = sha256Hex(data);
  const prompt = `# Task c1-counts

ledgerbench-task: c1-counts

\`data/words.txt\` holds one word per line. Write \`counts.txt\` in the
workspace root: one line \`<count> <word>\` per distinct word, most frequent
first, words with equal counts in byte order. Do not modify \`data/\`.
`;
  const verify = `${VERIFY_PRELUDE}
from_candidate "$ARTIFACT/counts.txt" > "$SCRATCH/counts.txt"
if cmp -s "$SCRATCH/counts.txt" "$HIDDEN/expected.txt"; then
  check counts_match true ""
else
  check counts_match false "counts.txt is missing or differs"
fi
actual_sha=$(from_candidate "$ARTIFACT/data/words.txt" | sha256sum | cut -d' ' -f1)
if [ "$actual_sha" = "$(cat "$HIDDEN/data.sha256")" ]; then
  check input_unchanged true ""
else
  check input_unchanged false "data/words.txt was modified"
fi
verdict
`;
  return {
    prompt,
    workspace: { "data/words.txt": data },
    verifier: { "verify.sh": verify, "expected.txt": expected, "data.sha256": dataSha + "\n" },
    answer: fileBlock("counts.txt", expected),
    wrong_answer: fileBlock("counts.txt", wrong),
  };
}

/** The `c1-counts` template. */
export const c1Counts: TaskTemplate = {
  task_id: "c1-counts",
  lane: "C",
  limits: { token_cap: 20_000, step_cap: 10, wall_ms_cap: 60_000 },
  generate,
};
