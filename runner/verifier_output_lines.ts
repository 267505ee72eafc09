/**
 * The last lines of a verifier's output, for the sentence that reports a
 * failing verifier (issue 22, "The verifier's output kept"): `suite check`
 * quotes them in each failing problem, so the user sees the test run's own
 * failure (pytest's `assert 41 == 42`) without rerunning anything.
 *
 * @module
 */
import { lineText } from "../analysis/untrusted_text.ts";
import type { VerifierOutput } from "./episode_row.ts";

/** How much of the output is quoted: the last 5 non-empty lines, each at most 200 characters. */
export const VERIFIER_QUOTE_LIMITS = Object.freeze({ lines: 5, lineChars: 200 });

/**
 * The verifier's last output lines as one clause: the last
 * {@link VERIFIER_QUOTE_LIMITS}`.lines` non-empty lines of its stderr, else
 * (stderr holding none) of its stdout, each cut to
 * {@link VERIFIER_QUOTE_LIMITS}`.lineChars` code points (the last one `…`
 * when cut) and escaped for one line (`lineText`: control, C1 and
 * bidirectional characters as `\xHH`/`\uHHHH`), joined with ` | `. Cutting
 * comes before escaping, so an escape is never cut in half. The text is
 * untrusted (in Harbor's shared mode the candidate's code ran in the test
 * run): it is quoted, never interpreted. O(length of the tails).
 *
 * @param output the verifier's stdout and stderr tails
 * @returns e.g. `the verifier's stdout ends: FAILED test_double | 1 failed`, or
 *   `the verifier printed nothing`
 * @example
 * ```ts
 * import { verifierOutputLines } from "./verifier_output_lines.ts";
 * const quoted = verifierOutputLines({ stdout_tail: "ok\nE  assert 41 == 42\n", stderr_tail: "" });
 * if (quoted !== "the verifier's stdout ends: ok | E  assert 41 == 42") throw new Error(quoted);
 * ```
 */
export function verifierOutputLines(output: VerifierOutput): string {
  const { lines: count, lineChars } = VERIFIER_QUOTE_LIMITS;
  const nonEmpty = (text: string) =>
    text.split("\n").map((line) => line.replace(/\r$/, "")).filter((line) => line.trim() !== "");
  const stderr = nonEmpty(output.stderr_tail);
  const [stream, lines] = stderr.length > 0
    ? ["stderr", stderr]
    : ["stdout", nonEmpty(output.stdout_tail)];
  if (lines.length === 0) return "the verifier printed nothing";
  const bounded = lines.slice(-count).map((line) => {
    const points = Array.from(line);
    return lineText(
      points.length <= lineChars ? line : `${points.slice(0, lineChars - 1).join("")}…`,
    );
  });
  return `the verifier's ${stream} ends: ${bounded.join(" | ")}`;
}
