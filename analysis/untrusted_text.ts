/**
 * The one rule for showing a string that came from a ledger or a log (an
 * agent wrote some of them): every character that could move the cursor,
 * recolour, retitle, reorder or break the line of what a reader sees is shown
 * as an escape, and a long id is shortened so it cannot blow up a figure or a
 * table. The figures, `report.md`, `report.html` and every terminal table of
 * the CLI show untrusted text through this module; JSON outputs keep the full
 * value (`summary.json`, `--json`).
 *
 * Unsafe characters:
 * - C0 controls (U+0000–U+001F), DEL (U+007F) and C1 controls
 *   (U+0080–U+009F; CSI and NEL among them): Unicode's general category Cc;
 * - the bidirectional formatting characters of Unicode Standard Annex #9
 *   (UAX #9, "Unicode Bidirectional Algorithm", section 2, "Directional
 *   Formatting Characters"): the embeddings and overrides U+202A–U+202E, the
 *   isolates U+2066–U+2069, the marks U+200E, U+200F and U+061C; the "Trojan
 *   Source" characters of CVE-2021-42574;
 * - the line and paragraph separators U+2028 and U+2029 (Unicode's
 *   categories Zl and Zp), which break a line as LF does.
 *
 * An escape is `\n` or `\t` for LF and tab, `\xHH` for the other characters
 * below U+0100 and `\uHHHH` above. The shown text is for reading only: it is
 * not reversible (a backslash is kept as it is), which is why the full values
 * stay in the JSON.
 *
 * Lives in `analysis/` because its lowest users are there (the figures, the
 * problems' wording in `ledger_error.ts`); `report/` and `cli/` read it from
 * here.
 *
 * @module
 */

/** UAX #9's bidirectional formatting characters, then U+2028 and U+2029 (see the module doc). */
const BIDI_AND_SEPARATORS = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029";
/** Every unsafe character: Cc (C0, DEL, C1), then the above. */
const UNSAFE_CLASS = `[\\u0000-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}]`;
const UNSAFE_IN_LINE = new RegExp(UNSAFE_CLASS, "g");
const UNSAFE_ANYWHERE = new RegExp(UNSAFE_CLASS);
/** Every unsafe character but tab (U+0009) and LF (U+000A). */
const UNSAFE_IN_TEXT = new RegExp(
  `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}]`,
  "g",
);
/** The unsafe characters `JSON.stringify` writes as they are: DEL, C1, bidi and separators. */
const UNSAFE_IN_JSON = new RegExp(`[\\u007f-\\u009f${BIDI_AND_SEPARATORS}]`, "g");

/** The longest id {@link displayId} shows whole, in UTF-16 code units. */
export const ID_DISPLAY_LENGTH = 48;

/** Characters of its head a shortened id keeps before the ellipsis; the rest of the budget is its tail. */
const ID_HEAD_LENGTH = 16;

/** The escape of one unsafe character (see the module doc). */
function escapeChar(char: string): string {
  if (char === "\n") return "\\n";
  if (char === "\t") return "\\t";
  const code = char.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Untrusted text for one line (a table cell, a heading, a label, a code span):
 * every unsafe character of the module doc, LF and tab included, becomes its
 * escape. O(length).
 *
 * @param text untrusted text
 * @returns the text on one line, with unsafe characters escaped
 * @example
 * ```ts
 * import { lineText } from "./untrusted_text.ts";
 * if (lineText("a\u202eb\n# c") !== "a\\u202eb\\n# c") throw new Error();
 * ```
 */
export function lineText(text: string): string {
  return text.replace(UNSAFE_IN_LINE, escapeChar);
}

/**
 * Whether `text` holds an unsafe character of the module doc (LF and tab
 * included), for callers with their own escape syntax (a shell's `$'\\ooo'`).
 * O(length).
 *
 * @param text untrusted text
 * @returns true when {@link lineText} would change it
 * @example
 * ```ts
 * import { hasUnsafeCharacter } from "./untrusted_text.ts";
 * if (!hasUnsafeCharacter("a\u2066b") || hasUnsafeCharacter("a b")) throw new Error();
 * ```
 */
export function hasUnsafeCharacter(text: string): boolean {
  return UNSAFE_ANYWHERE.test(text);
}

/**
 * Untrusted text for a terminal, several lines kept (a log tail): as
 * {@link lineText}, but LF and tab stay as they are. O(length).
 *
 * @param text untrusted text
 * @returns the text with the other unsafe characters escaped
 * @example
 * ```ts
 * import { terminalText } from "./untrusted_text.ts";
 * if (terminalText("a\x1b[2Jb\r\n") !== "a\\x1b[2Jb\\x0d\n") throw new Error();
 * ```
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE_IN_TEXT, escapeChar);
}

/**
 * JSON text for a terminal: the unsafe characters that `JSON.stringify`
 * leaves as they are (DEL, C1, the bidirectional controls, U+2028 and
 * U+2029; it already escapes the C0 controls) become `\uHHHH` escapes, which
 * denote the same string (RFC 8259, section 7), so the JSON's value is
 * unchanged. O(length).
 *
 * @param json text produced by `JSON.stringify` (e.g. `canonicalJson`)
 * @returns the same JSON value, with those characters escaped
 * @example
 * ```ts
 * import { terminalJson } from "./untrusted_text.ts";
 * const json = terminalJson(JSON.stringify("a\u202eb"));
 * if (json !== '"a\\u202eb"' || JSON.parse(json) !== "a\u202eb") throw new Error();
 * if (terminalJson('{\n  "a": 1\n}') !== '{\n  "a": 1\n}') throw new Error("layout kept");
 * ```
 */
export function terminalJson(json: string): string {
  return json.replace(
    UNSAFE_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The id's characters, each escaped by {@link lineText} (an escape is never split). */
function escapedChars(id: string): string[] {
  return [...id].map(lineText);
}

/**
 * `chars` as head, `…` and real tail: the head as many characters as fit in
 * `headBudget`, the tail as many of the last as fit in `length` beside it.
 */
function headAndTail(chars: readonly string[], headBudget: number, length: number): string {
  let head = "";
  let first = 0;
  while (first < chars.length && head.length + chars[first].length <= headBudget) {
    head += chars[first++];
  }
  let tail = "";
  for (let last = chars.length - 1; last >= first; last--) {
    if (head.length + 1 + tail.length + chars[last].length > length) break;
    tail = chars[last] + tail;
  }
  return `${head}…${tail}`;
}

/**
 * An id as figures, tables and `report.md` show it: {@link lineText} of the
 * id when that is at most {@link ID_DISPLAY_LENGTH} (48) characters; else its
 * first 16 characters, an ellipsis and its real last characters, at most 48
 * in all (issue 25: an id that ended in 8 hex digits of a hash could not be
 * found by searching for it; the tail is where ids such as
 * `django__django-11179` or `…/episode-3/2` differ). A figure's size stays
 * bounded; ids that differ only inside the part left out look alike, so ids
 * shown together go through {@link distinctShortIds}, and the JSON outputs
 * keep every id whole. Neither part ever splits an escape or a surrogate
 * pair. O(length).
 *
 * @param id an untrusted id (agent, task, episode, model)
 * @returns the id to show
 * @example
 * ```ts
 * import { displayId } from "./untrusted_text.ts";
 * if (displayId("agent-a") !== "agent-a") throw new Error();
 * const shown = displayId(`${"x".repeat(10_000)}-task-17`);
 * if (shown.length !== 48 || shown.at(16) !== "…" || !shown.endsWith("-task-17")) throw new Error();
 * ```
 */
export function displayId(id: string): string {
  return fitId(id, ID_DISPLAY_LENGTH);
}

/**
 * An id shown in at most `length` characters, by {@link displayId}'s rule
 * (the head and the id's real tail, never a hash, so the shortened id can
 * still be searched for): escaped by {@link lineText}; whole when it fits;
 * else up to 16 characters of its head (at most a third of the length, so
 * that the tail, which tells ids of one family apart, keeps the most), `…`,
 * and as much of its real tail as fits. Above 48 it is `displayId`. An
 * escape is never split. O(length of the id).
 *
 * @param id untrusted id
 * @param length the most characters to show (at least 5)
 * @returns the id, whole or shortened
 * @example
 * ```ts
 * import { fitId } from "./untrusted_text.ts";
 * const shown = fitId("northwind/albatross-large-thinking-2025-09", 24);
 * if (shown !== "northwin…hinking-2025-09") throw new Error(shown);
 * ```
 */
export function fitId(id: string, length: number): string {
  const shown = lineText(id);
  const most = Math.min(length, ID_DISPLAY_LENGTH);
  if (shown.length <= most) return shown;
  return headAndTail(escapedChars(id), Math.min(ID_HEAD_LENGTH, Math.floor(most / 3)), most);
}

/** The fewest characters of real tail an id shortened by {@link distinctShortIds} keeps. */
const MIN_TAIL_LENGTH = 8;

/** How many leading escaped characters `a` and `b` share. */
function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * Ids shown together (a table's column, a list, a figure's agents),
 * shortened together so that different ids never look alike: each by
 * {@link fitId} at `length`; the ids whose shortened forms would coincide
 * keep instead as much of their head as tells them apart (one character past
 * the longest prefix each shares with another id of its group: the sorted
 * neighbours, since the longest common prefix of a sorted list is with a
 * neighbour), `…`, and the rest of `length` (at least 8 characters) of their
 * real tail, or are shown whole when that is no shorter. Every shortened
 * form still starts with the id's real head and ends with its real tail, so
 * it can be searched for; equal ids get equal forms. On the public
 * SWE-Bench Pro results (scaleapi/SWE-bench_Pro-os) 354 of the 730 instance ids
 * (`instance_<repo>-<commit>-v<environment>`, the environment hash common to
 * many) shortened by `displayId` alone to a form another id also took, one
 * form standing for 25 tasks. O(total length + n log n).
 *
 * @param ids the untrusted ids, in order (repeats allowed)
 * @param length the most characters each should take (default 48); a
 *   form that tells an id apart may take more
 * @returns the text to show for each, in the same order
 * @example
 * ```ts
 * import { distinctShortIds } from "./untrusted_text.ts";
 * const env = "-v" + "e".repeat(40);
 * const a = `instance_ansible__ansible-1${"1".repeat(39)}${env}`;
 * const b = `instance_ansible__ansible-2${"2".repeat(39)}${env}`;
 * const shown = distinctShortIds([a, b, "short", a]);
 * if (shown[0] !== "instance_ansible__ansible-1…eeeeeeeeeeeeeeeeeeee") throw new Error(shown[0]);
 * if (shown[1] === shown[0] || shown[2] !== "short" || shown[3] !== shown[0]) throw new Error();
 * ```
 */
export function distinctShortIds(
  ids: readonly string[],
  length: number = ID_DISPLAY_LENGTH,
): string[] {
  const unique = [...new Set(ids)];
  const shown = new Map(unique.map((id) => [id, fitId(id, length)]));
  const groups = new Map<string, string[]>();
  for (const id of unique) groups.set(shown.get(id)!, [...groups.get(shown.get(id)!) ?? [], id]);
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const sorted = group.map((id) => ({ id, chars: escapedChars(id) }))
      .sort((x, y) => x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
    sorted.forEach(({ id, chars }, k) => {
      const shared = Math.max(
        k > 0 ? commonPrefix(chars, sorted[k - 1].chars) : 0,
        k + 1 < sorted.length ? commonPrefix(chars, sorted[k + 1].chars) : 0,
      );
      const head = Math.max(
        chars.slice(0, shared + 1).join("").length,
        Math.min(ID_HEAD_LENGTH, Math.floor(length / 3)),
      );
      const whole = lineText(id);
      const form = headAndTail(chars, head, Math.max(length, head + 1 + MIN_TAIL_LENGTH));
      shown.set(id, form.length < whole.length ? form : whole);
    });
  }
  // An id whose own characters mimic another's shortened form is shown whole.
  const owners = new Map<string, number>();
  for (const form of shown.values()) owners.set(form, (owners.get(form) ?? 0) + 1);
  for (const id of unique) {
    if (owners.get(shown.get(id)!)! > 1) shown.set(id, lineText(id));
  }
  return ids.map((id) => shown.get(id)!);
}
