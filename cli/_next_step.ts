/**
 * The `next:` line a command's text output ends with: the command to run
 * next, with the paths just written, so that a newcomer can go from one
 * step to the next by copying it (`freeze` → `run` → `report` → `view`).
 *
 * @module
 */
import { shellQuote } from "../report/_shell_quote.ts";
import { displayLength } from "./_table_layout.ts";

/** How every next command starts: deno.json's `ledgerbench` task, as the help texts show it. */
const PREFIX = "deno task ledgerbench";

/** One next step: a `ledgerbench` command, its options, and what else to look at. */
export interface NextStep {
  /** The subcommand and its positionals, e.g. `["report", "runs/r1/ledger.jsonl"]`. */
  command: readonly string[];
  /** Its options, each a flag with its value, kept on one line, e.g. `[["--plan", "plan.json"]]`. */
  options?: readonly (readonly string[])[];
  /** A short phrase shown in parentheses after the command, e.g. `or open DIR/report.html`. */
  note?: string;
}

/**
 * The `next:` line of `step`: `next: deno task ledgerbench <command>
 * <options>` (then ` (<note>)`), every argument one POSIX shell word
 * (`shellQuote`). When that is wider than `width` display columns
 * (`displayLength`), the command goes below `next:`, indented two spaces
 * and broken only between options, where a shell continues it (` \` at a
 * line's end, the continuation indented four), and the note on a line of
 * its own; an option wider than the room stays whole (the caller's
 * `fitLines` may cut it). O(length).
 *
 * @param step the command, its options and a note
 * @param width the most display columns per line
 * @returns one line, or the folded command, each line ending in a newline
 * @example
 * ```ts
 * import { nextStep } from "./_next_step.ts";
 * const step = { command: ["report", "r/ledger.jsonl"], options: [["--out", "r/report"]] };
 * if (nextStep(step, 100) !== "next: deno task ledgerbench report r/ledger.jsonl --out r/report\n") {
 *   throw new Error();
 * }
 * if (
 *   nextStep(step, 50) !==
 *     "next:\n  deno task ledgerbench report r/ledger.jsonl \\\n    --out r/report\n"
 * ) throw new Error();
 * ```
 */
export function nextStep(step: NextStep, width: number): string {
  const groups = [
    [PREFIX, ...step.command.map(shellQuote)].join(" "),
    ...(step.options ?? []).map((option) => option.map(shellQuote).join(" ")),
  ];
  const note = step.note === undefined ? "" : `(${step.note})`;
  const whole = `next: ${groups.join(" ")}${note === "" ? "" : ` ${note}`}`;
  if (displayLength(whole) <= width) return `${whole}\n`;
  const lines: string[] = [];
  let line = `  ${groups[0]}`;
  for (const group of groups.slice(1)) {
    if (displayLength(`${line} ${group} \\`) <= width) {
      line += ` ${group}`;
    } else {
      lines.push(`${line} \\`);
      line = `    ${group}`;
    }
  }
  lines.push(line);
  if (note !== "") lines.push(`  ${note}`);
  return `next:\n${lines.join("\n")}\n`;
}
