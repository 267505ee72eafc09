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

/**
 * How much of the output is quoted: the last 5 non-empty lines of stdout
 * (where pytest's summary is) and the last 3 of stderr (where apt and the
 * shell complain), each at most 200 characters.
 */
export const VERIFIER_QUOTE_LIMITS = Object.freeze({ lines: 5, stderrLines: 3, lineChars: 200 });

/**
 * The verifier's last output lines as one clause: the last
 * {@link VERIFIER_QUOTE_LIMITS}`.lines` non-empty lines of its stdout, then
 * the last `.stderrLines` of its stderr, each part only when its stream
 * holds a line, each line cut to `.lineChars` code points (the last one `…`
 * when cut) and escaped for one line (`lineText`: control, C1 and
 * bidirectional characters as `\xHH`/`\uHHHH`), joined with ` | `. Both
 * streams are quoted because a Harbor `test.sh` writes pytest's verdict to
 * stdout and its package installs' noise to stderr. Cutting comes before
 * escaping, so an escape is never cut in half. The text is untrusted (in
 * Harbor's shared mode the candidate's code ran in the test run): it is
 * quoted, never interpreted. O(length of the tails).
 *
 * @param output the verifier's stdout and stderr tails
 * @returns e.g. `the verifier's stdout ends: FAILED test_double | 1 failed; its stderr ends:
 *   E: no network`, or `the verifier printed nothing`
 * @example
 * ```ts
 * import { verifierOutputLines } from "./verifier_output_lines.ts";
 * const quoted = verifierOutputLines({ stdout_tail: "ok\nE  assert 41 == 42\n", stderr_tail: "" });
 * if (quoted !== "the verifier's stdout ends: ok | E  assert 41 == 42") throw new Error(quoted);
 * ```
 */
export function verifierOutputLines(output: VerifierOutput): string {
  const { lines: count, stderrLines, lineChars } = VERIFIER_QUOTE_LIMITS;
  const last = (text: string, n: number) =>
    text.split("\n").map((line) => line.replace(/\r$/, "")).filter((line) => line.trim() !== "")
      .slice(-n).map((line) => {
        const points = Array.from(line);
        return lineText(
          points.length <= lineChars ? line : `${points.slice(0, lineChars - 1).join("")}…`,
        );
      }).join(" | ");
  const stdout = last(output.stdout_tail, count);
  const stderr = last(output.stderr_tail, stderrLines);
  if (stdout === "" && stderr === "") return "the verifier printed nothing";
  if (stdout === "") return `the verifier's stderr ends: ${stderr}`;
  return `the verifier's stdout ends: ${stdout}${
    stderr === "" ? "" : `; its stderr ends: ${stderr}`
  }`;
}
