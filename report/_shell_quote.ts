/**
 * Shell words for the commands a report prints, so that a reader can paste
 * them: untrusted text (an episode id, a path) must reach the command as one
 * word and can never run as code.
 *
 * Used by `report/` and by the CLI's `next:` line (`cli/_next_step.ts`).
 *
 * @module
 */
import { hasUnsafeCharacter } from "../analysis/untrusted_text.ts";

/** Characters that stay unquoted. */
const SAFE = /^[A-Za-z0-9_./=:@%+-]+$/;

/**
 * One word for a POSIX shell (POSIX.1-2024, XCU 2.2): as is when it holds only
 * `A-Z a-z 0-9 _ . / = : @ % + -`; in single quotes otherwise (a `'` as
 * `'\''`); and, when it holds a control, bidirectional or line-separator
 * character (`hasUnsafeCharacter`, the rule of analysis/figures/untrusted_text.ts), in
 * dollar-single-quotes with those characters' UTF-8 bytes as three-digit
 * octal escapes (`\033`), so the printed command shows every byte it runs
 * with. O(length).
 *
 * @param word any text
 * @returns the word, quoted when needed
 * @example
 * ```ts
 * import { shellQuote } from "./_shell_quote.ts";
 * if (shellQuote("r1/a/t1/1") !== "r1/a/t1/1") throw new Error();
 * if (shellQuote("$(id)'") !== "'$(id)'\\'''") throw new Error();
 * if (shellQuote("a\u001bb") !== "$'a\\033b'") throw new Error();
 * ```
 */
export function shellQuote(word: string): string {
  if (SAFE.test(word)) return word;
  if (!hasUnsafeCharacter(word)) return `'${word.replaceAll("'", `'\\''`)}'`;
  const encoder = new TextEncoder();
  let body = "";
  for (const char of word) {
    if (char === "\\" || char === "'") body += `\\${char}`;
    else if (hasUnsafeCharacter(char)) {
      body += [...encoder.encode(char)].map((b) => `\\${b.toString(8).padStart(3, "0")}`).join("");
    } else body += char;
  }
  return `$'${body}'`;
}
