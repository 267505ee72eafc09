/**
 * Reading a verifier's verdict from its stdout (seed 000: a missing or
 * malformed verdict is a verifier fault, never a candidate failure), the same
 * for the sandboxed verifier and the `--unsandboxed` host verifier.
 *
 * @module
 */
import { Verdict } from "./schema/records.ts";

/** A verdict, or why the output holds none. */
export type VerdictLine =
  | { kind: "verdict"; verdict: Verdict }
  | { kind: "fault"; fault: "verdict_missing" | "verdict_malformed"; detail: string };

/**
 * Parses the verdict a verifier printed: the last non-empty line of its
 * stdout, as JSON, through the {@link Verdict} schema.
 *
 * Rule: no non-empty line → `verdict_missing`; a last line that is not JSON
 * → `verdict_malformed` quoting its first 200 characters; JSON that fails the
 * schema → `verdict_malformed` naming the first issue's field. Call it only
 * after the verifier exited 0 (a non-zero exit is a crash whatever it printed).
 * O(length of stdout).
 *
 * @param stdout the verifier's stdout (its tail is enough)
 * @returns the verdict, or the fault with a sentence-case detail
 * @example
 * ```ts
 * import { parseVerdictLine } from "./parse_verdict_line.ts";
 * const parsed = parseVerdictLine('checking...\n{"resolved": true}\n\n');
 * if (parsed.kind !== "verdict" || !parsed.verdict.resolved) throw new Error();
 * if (parseVerdictLine("  \n").kind !== "fault") throw new Error();
 * ```
 */
export function parseVerdictLine(stdout: string): VerdictLine {
  const last = stdout.split("\n").filter((l) => l.trim() !== "").at(-1);
  if (last === undefined) {
    return {
      kind: "fault",
      fault: "verdict_missing",
      detail: "The verifier printed nothing on stdout",
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(last);
  } catch {
    return {
      kind: "fault",
      fault: "verdict_malformed",
      detail: `The verifier's last stdout line is not JSON: "${last.slice(0, 200)}"`,
    };
  }
  const verdict = Verdict.safeParse(parsed);
  if (!verdict.success) {
    const issue = verdict.error.issues[0];
    return {
      kind: "fault",
      fault: "verdict_malformed",
      detail: `The verifier's verdict is invalid: field "${
        issue.path.join(".")
      }": ${issue.message}`,
    };
  }
  return { kind: "verdict", verdict: verdict.data };
}
