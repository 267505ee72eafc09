/**
 * Template `b2-column` (lane B, software repair): `col_total.sh FILE` must
 * print the total of the CSV column named in its header, but it reads a
 * hard-coded column index. The hidden cases put the column away from both
 * hard-coded indexes, so the untouched script and the wrong answer (a
 * different hard-coded index that happens to fit the sample, which it
 * passes) both fail verification.
 *
 * @module
 */
import type { Random } from "../../analysis/seeded_random.ts";
import type { GeneratedTask, TaskTemplate } from "../_template.ts";
import { drawDistinct, drawInt, WORDS } from "./_draw.ts";
import { VERIFY_PRELUDE } from "./_verify_prelude.ts";
import { fileBlock } from "./_file_block.ts";

function csv(random: Random, header: string[], rows: number): { text: string; totals: number[] } {
  const totals = header.map(() => 0);
  const lines = [header.join(",")];
  for (let r = 0; r < rows; r++) {
    const values = header.map((_, c) => {
      const value = drawInt(random, { min: 0, max: 500 });
      totals[c] += value;
      return value;
    });
    lines.push(values.join(","));
  }
  return { text: lines.join("\n") + "\n", totals };
}

function script(column: string, index: number | null): string {
  const lookup = index === null
    ? [
      `  awk -F, -v name="${column}" '`,
      "    NR == 1 { for (c = 1; c <= NF; c++) if ($c == name) col = c; next }",
      "    col { total += $col }",
      "    END { if (!col) exit 3; print total + 0 }",
      `  ' "$1"`,
    ]
    : [`  awk -F, 'NR > 1 { total += $${index} } END { print total + 0 }' "$1"`];
  return [
    "#!/bin/sh",
    `# col_total.sh FILE: prints the total of the column named "${column}" in the CSV FILE`,
    "# (first line is the header).",
    ...lookup,
    "",
  ].join("\n");
}

function generate(random: Random): GeneratedTask {
  const names = drawDistinct(random, { items: WORDS, count: 6 });
  const column = names[0];
  const sampleHeader = drawDistinct(random, { items: names, count: 4 });
  if (!sampleHeader.includes(column)) sampleHeader[drawInt(random, { min: 0, max: 3 })] = column;
  const sampleIndex = sampleHeader.indexOf(column) + 1;
  const brokenIndex = sampleIndex === 1 ? 2 : sampleIndex - 1;
  const sample = csv(random, sampleHeader, drawInt(random, { min: 4, max: 8 }));
  const cases: string[] = [];
  const hidden: Record<string, string> = {};
  for (let c = 0; c < 3; c++) {
    const header = drawDistinct(random, { items: names, count: 5 });
    if (!header.includes(column)) header[drawInt(random, { min: 0, max: 4 })] = column;
    // Keep the column away from both hard-coded positions, the wrong answer's (the sample's)
    // and the shipped broken script's, so that neither passes (issue 9: the untouched
    // workspace passed when every case put the column where the broken script reads).
    let at = header.indexOf(column);
    while (at + 1 === sampleIndex || at + 1 === brokenIndex) {
      const swap = (at + 1) % header.length;
      [header[at], header[swap]] = [header[swap], header[at]];
      at = swap;
    }
    const table = csv(random, header, drawInt(random, { min: 3, max: 9 }));
    hidden[`case_${c}.csv`] = table.text;
    cases.push(`case_${c}.csv ${table.totals[header.indexOf(column)]}`);
  }
  const prompt = `# Task b2-column

ledgerbench-task: b2-column

\`col_total.sh FILE\` must print the total of the column named \`${column}\` in
the CSV file FILE, whatever position that column has in the header line. Today
it reads a fixed column: \`sh col_total.sh data/sample.csv\` should print
\`${sample.totals[sampleIndex - 1]}\`. Fix \`col_total.sh\` in place.
`;
  const verify = `${VERIFY_PRELUDE}
if [ ! -f "$ARTIFACT/col_total.sh" ]; then
  check script_present false "col_total.sh is missing"
  verdict
  exit 0
fi
check script_present true ""
# The input tables, never the totals, are what the candidate's script may read.
share_with_candidate "$HIDDEN"/case_*.csv
while read -r file want; do
  got=$(as_candidate sh "$ARTIFACT/col_total.sh" "$SHARED/$file" || true)
  if [ "$got" = "$want" ]; then
    check "total_$file" true ""
  else
    check "total_$file" false "got $got"
  fi
done < "$HIDDEN/cases.txt"
verdict
`;
  return {
    prompt,
    workspace: { "col_total.sh": script(column, brokenIndex), "data/sample.csv": sample.text },
    verifier: { "verify.sh": verify, "cases.txt": cases.join("\n") + "\n", ...hidden },
    answer: fileBlock("col_total.sh", script(column, null)),
    wrong_answer: fileBlock("col_total.sh", script(column, sampleIndex)),
  };
}

/** The `b2-column` template. */
export const b2Column: TaskTemplate = {
  task_id: "b2-column",
  lane: "B",
  limits: { token_cap: 30_000, step_cap: 15, wall_ms_cap: 90_000 },
  generate,
};
