/**
 * Template `b1-range` (lane B, software repair): a shell script that
 * aggregates the integers of a closed range has an off-by-one bug (the loop
 * stops before the upper bound). The verifier runs the candidate's script on
 * hidden cases. The aggregate (sum, sum of squares, or sum of multiples of k)
 * and the names vary with the seed.
 *
 * @module
 */
import type { Random } from "../../analysis/seeded_random.ts";
import type { GeneratedTask, TaskTemplate } from "../_template.ts";
import { drawDistinct, drawInt, drawOne, WORDS } from "./_draw.ts";
import { VERIFY_PRELUDE } from "./_verify_prelude.ts";
import { fileBlock } from "./_file_block.ts";

type Kind = "sum" | "squares" | "multiples";

function aggregate(kind: Kind, k: number, from: number, to: number): number {
  let total = 0;
  for (let i = from; i <= to; i++) {
    if (kind === "sum") total += i;
    else if (kind === "squares") total += i * i;
    else if (i % k === 0) total += i;
  }
  return total;
}

function script(kind: Kind, k: number, name: string, comparison: "-le" | "-lt"): string {
  const term = kind === "squares" ? "$(( i * i ))" : "$i";
  const body = kind === "multiples"
    ? `    if [ $(( i % ${k} )) -eq 0 ]; then total=$(( total + ${term} )); fi`
    : `    total=$(( total + ${term} ))`;
  return [
    "#!/bin/sh",
    `# ${name} FROM TO: prints the ${describe(kind, k)} of the integers FROM..TO, both included.`,
    `${name}() {`,
    "  total=0",
    "  i=$1",
    `  while [ "$i" ${comparison} "$2" ]; do`,
    body,
    "    i=$(( i + 1 ))",
    "  done",
    '  echo "$total"',
    "}",
    `${name} "$1" "$2"`,
    "",
  ].join("\n");
}

function describe(kind: Kind, k: number): string {
  return kind === "sum"
    ? "sum"
    : kind === "squares"
    ? "sum of squares"
    : `sum of the multiples of ${k}`;
}

function generate(random: Random): GeneratedTask {
  const kind = drawOne(random, ["sum", "squares", "multiples"] as const);
  const k = drawInt(random, { min: 2, max: 9 });
  const [word] = drawDistinct(random, { items: WORDS, count: 1 });
  const name = `${kind}_${word}`;
  const file = `tools/${word}_range.sh`;
  const visibleFrom = drawInt(random, { min: 1, max: 5 });
  const visibleTo = visibleFrom + drawInt(random, { min: 3, max: 9 });
  const cases: string[] = [];
  for (let c = 0; c < 5; c++) {
    const from = drawInt(random, { min: 0, max: 40 });
    const to = from + drawInt(random, { min: 0, max: 30 });
    cases.push(`${from} ${to} ${aggregate(kind, k, from, to)}`);
  }
  // 1..k tells the wrong fix (range shifted down by one) apart for every kind.
  cases.push(`1 ${k} ${aggregate(kind, k, 1, k)}`);
  const prompt = `# Task b1-range

ledgerbench-task: b1-range

\`${file}\` should print the ${describe(kind, k)} of the integers FROM..TO,
**both bounds included**: \`sh ${file} ${visibleFrom} ${visibleTo}\` must print
\`${aggregate(kind, k, visibleFrom, visibleTo)}\`. It does not. Fix the script
in place; keep its name and its command-line interface.
`;
  const verify = `${VERIFY_PRELUDE}
if [ ! -f "$ARTIFACT/${file}" ]; then
  check script_present false "${file} is missing"
  verdict
  exit 0
fi
check script_present true ""
n=0
while read -r from to want; do
  n=$(( n + 1 ))
  got=$(as_candidate sh "$ARTIFACT/${file}" "$from" "$to" || true)
  if [ "$got" = "$want" ]; then
    check "case_$n" true ""
  else
    check "case_$n" false "got $got"
  fi
done < "$HIDDEN/cases.txt"
verdict
`;
  const fixed = script(kind, k, name, "-le");
  const broken = script(kind, k, name, "-lt");
  const wrongFix = broken.replace("  i=$1\n", "  i=$(( $1 - 1 ))\n");
  return {
    prompt,
    workspace: { [file]: broken },
    verifier: { "verify.sh": verify, "cases.txt": cases.join("\n") + "\n" },
    answer: fileBlock(file, fixed),
    wrong_answer: fileBlock(file, wrongFix),
  };
}

/** The `b1-range` template. */
export const b1Range: TaskTemplate = {
  task_id: "b1-range",
  lane: "B",
  limits: { token_cap: 30_000, step_cap: 15, wall_ms_cap: 90_000 },
  generate,
};
