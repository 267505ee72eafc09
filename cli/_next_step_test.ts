import { equal } from "node:assert/strict";
import { nextStep } from "./_next_step.ts";

const REPORT = {
  command: ["report", "runs/r1/ledger.jsonl"],
  options: [["--plan", "runs/r1/plan.json"], ["--out", "runs/r1/report"]],
};

Deno.test("nextStep() prints one line when the command fits, else folds it", () => {
  const line = "next: deno task ledgerbench report runs/r1/ledger.jsonl " +
    "--plan runs/r1/plan.json --out runs/r1/report";
  equal(line.length, 101); // counted: 6 + 95
  equal(nextStep(REPORT, 101), `${line}\n`);
  // at 100 the command goes below "next:" whole (97 columns with its indent); at 90 the first
  // line holds what fits with its " \\" (78 columns), the rest below
  const command = line.slice("next: ".length);
  equal(nextStep(REPORT, 100), `next:\n  ${command}\n`);
  equal(
    nextStep(REPORT, 90),
    "next:\n  deno task ledgerbench report runs/r1/ledger.jsonl --plan runs/r1/plan.json \\\n" +
      "    --out runs/r1/report\n",
  );
});

Deno.test("nextStep() breaks between options only, each continued with a backslash", () => {
  equal(
    nextStep(REPORT, 50),
    "next:\n  deno task ledgerbench report runs/r1/ledger.jsonl \\\n" +
      "    --plan runs/r1/plan.json \\\n    --out runs/r1/report\n",
  );
});

Deno.test("nextStep() quotes a path for the shell and puts a note that does not fit on its own line", () => {
  const step = { command: ["view", "my runs/ledger.jsonl"], note: "or open r/report.html" };
  equal(
    nextStep(step, 100),
    "next: deno task ledgerbench view 'my runs/ledger.jsonl' (or open r/report.html)\n",
  );
  equal(
    nextStep(step, 60),
    "next:\n  deno task ledgerbench view 'my runs/ledger.jsonl'\n  (or open r/report.html)\n",
  );
});
