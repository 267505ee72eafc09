/**
 * Strings from ledgers and logs are untrusted (an agent wrote some of them):
 * before they reach a terminal, every character that could move the cursor,
 * recolour, retitle or reorder what the reader sees is shown as an escape.
 *
 * Escaped: C0 controls but tab and newline (so `\r` and ESC are), DEL, C1
 * controls (U+0080–U+009F, CSI among them) and the bidirectional overrides
 * and isolates (U+202A–U+202E, U+2066–U+2069, the "Trojan Source" characters,
 * CVE-2021-42574).
 *
 * @module
 */

// deno-lint-ignore no-control-regex -- matching control characters is this module's job
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `\uHHHH` of a UTF-16 code unit. */
function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * Text for a terminal: each unsafe character (see the module doc) becomes
 * `\xHH` (below U+0100) or `\uHHHH`; everything else, tab and newline
 * included, is kept. O(length).
 *
 * @param text untrusted text
 * @returns the text with unsafe characters escaped
 * @example
 * ```ts
 * import { terminalText } from "./_untrusted_text.ts";
 * if (terminalText("a\x1b[2Jb\r\n") !== "a\\x1b[2Jb\\x0d\n") throw new Error();
 * ```
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : unicodeEscape(char);
  });
}

/**
 * JSON text for a terminal: the unsafe characters that `JSON.stringify`
 * leaves as they are (DEL, C1, bidirectional controls; it already escapes
 * the C0 controls) become `\uHHHH` escapes, which denote the same string, so
 * the JSON's value is unchanged. O(length).
 *
 * @param json text produced by `JSON.stringify` (e.g. `canonicalJson`)
 * @returns the same JSON value, with those characters escaped
 * @example
 * ```ts
 * import { terminalJson } from "./_untrusted_text.ts";
 * const json = terminalJson(JSON.stringify("a\u202eb"));
 * if (json !== '"a\\u202eb"' || JSON.parse(json) !== "a\u202eb") throw new Error();
 * ```
 */
export function terminalJson(json: string): string {
  return json.replace(UNSAFE, unicodeEscape);
}
