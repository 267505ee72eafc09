/**
 * Template `c2-filter-sum` (lane C, terminal task): total one CSV column over
 * the rows of one region. The wrong answer totals every region.
 *
 * @module
 */
import type { Random } from "../../analysis/seeded_random.ts";
import type { GeneratedTask, TaskTemplate } from "../_template.ts";
import { drawDistinct, drawInt, WORDS } from "./_draw.ts";
import { VERIFY_PRELUDE } from "./_verify_prelude.ts";
import { fileBlock } from "./_file_block.ts";

function generate(random: Random): GeneratedTask {
  const regions = drawDistinct(random, {
    items: WORDS,
    count: drawInt(random, { min: 3, max: 5 }),
  });
  const region = regions[drawInt(random, { min: 0, max: regions.length - 1 })];
  const lines = ["order,region,amount"];
  let wanted = 0;
  let all = 0;
  const rows = drawInt(random, { min: 12, max: 30 });
  for (let r = 0; r < rows; r++) {
    // Row 0 is always in another region so that "sum everything" is always wrong.
    const where = r === 0
      ? regions.find((name) => name !== region)!
      : regions[drawInt(random, { min: 0, max: regions.length - 1 })];
    const amount = drawInt(random, { min: 1, max: 9999 });
    lines.push(`${5000 + r},${where},${amount}`);
    all += amount;
    if (where === region) wanted += amount;
  }
  const prompt = `# Task c2-filter-sum

ledgerbench-task: c2-filter-sum

\`data/sales.csv\` has the header \`order,region,amount\`. Write \`total.txt\` in
the workspace root: the sum of \`amount\` over the rows whose region is
\`${region}\`, as one integer on one line.
`;
  const verify = `${VERIFY_PRELUDE}
expected=$(first_line < "$HIDDEN/expected.txt")
actual=$(from_candidate "$ARTIFACT/total.txt" | first_line)
if [ "$actual" = "$expected" ]; then
  check total_matches true ""
else
  check total_matches false "got '$actual'"
fi
verdict
`;
  return {
    prompt,
    workspace: { "data/sales.csv": lines.join("\n") + "\n" },
    verifier: { "verify.sh": verify, "expected.txt": `${wanted}\n` },
    answer: fileBlock("total.txt", wanted + "\n"),
    wrong_answer: fileBlock("total.txt", all + "\n"),
  };
}

/** The `c2-filter-sum` template. */
export const c2FilterSum: TaskTemplate = {
  task_id: "c2-filter-sum",
  lane: "C",
  limits: { token_cap: 20_000, step_cap: 10, wall_ms_cap: 60_000 },
  generate,
};
