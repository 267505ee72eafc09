/**
 * A small JSON scanner (RFC 8259) that finds the first problem in a text
 * `JSON.parse` refused or accepted too readily: a syntax error with its
 * line and column (V8's messages name neither, and quote the text), a key
 * repeated in one object (which `JSON.parse` resolves silently to the last
 * value), or a value nested deeper than {@link MAX_JSON_DEPTH} (which
 * `JSON.parse` reads, but which would overflow the call stack of every
 * recursive walk after it). It runs only on the slow path, after a cheap
 * check failed.
 *
 * @module
 */

/**
 * The deepest nesting of objects and arrays an input may have: the
 * top-level object is level 1, each object or array inside it one more
 * (`{"a":[{}]}` has 3 levels). Deeper values are refused by every JSON
 * reader of the inputs layer (strict_json.ts), before any recursive walk
 * (the reader's own checks, zod, `canonicalJson`) sees them.
 *
 * Why 256: real inputs nest a few dozen levels at most (an Inspect log's
 * tool-call arguments inside messages inside samples: under 20), while the
 * shallowest recursive walk over parsed values overflows V8's default stack
 * between 1,000 and 3,000 levels (`canonicalJson`, measured with Deno 2.5),
 * so 256 leaves a margin of 4× or more for the frames beneath a reader.
 * serde_json's default is 128, Ruby's `JSON.parse` 100, .NET's 64.
 */
export const MAX_JSON_DEPTH = 256;

/** Where a JSON text goes wrong. */
export interface JsonFault {
  /** What is wrong, e.g. `unexpected "}" (expected a value)` or `duplicate key "resolved"`. */
  message: string;
  /** 1-based line of the fault in the text. */
  line: number;
  /** 1-based column (UTF-16 code units) of the fault. */
  column: number;
  /** Dotted path of the object member at fault (`a.b.0.c`); `""` at the top. */
  path: string;
  /**
   * What kind of fault: a syntax error, a key repeated in one object, or a
   * value nested deeper than {@link MAX_JSON_DEPTH} (its `path` is then the
   * member holding it, cut to its first {@link DEEP_PATH_SEGMENTS} steps).
   */
  kind: "syntax" | "duplicate_key" | "too_deep";
}

/** How many steps of a too-deep value's path are named (the rest reads `…`). */
export const DEEP_PATH_SEGMENTS = 6;

class Fault extends Error {
  constructor(
    readonly at: number,
    readonly detail: string,
    readonly path: string[],
    readonly kind: JsonFault["kind"] = "syntax",
  ) {
    super(detail);
  }
}

/** One visible character, escaped when it is not printable ASCII. */
function shown(char: string | undefined): string {
  if (char === undefined) return "end of text";
  const code = char.codePointAt(0)!;
  if (code >= 0x21 && code <= 0x7e) return JSON.stringify(char);
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERALS = ["true", "false", "null"];
/** What {@link JsonScanOptions.nonFinite} adds to the literals (`-Infinity` before `Infinity`). */
const NON_FINITE_LITERALS = [...LITERALS, "NaN", "-Infinity", "Infinity"];

/** How strictly {@link findJsonFault} reads. */
export interface JsonScanOptions {
  /**
   * Accept the bare values `NaN`, `Infinity` and `-Infinity` outside
   * strings, as Python's `json` module writes them (default false: RFC 8259
   * has no such values).
   */
  nonFinite?: boolean;
}

/**
 * Scans `text` as one JSON value and returns its first fault, or null when
 * it is well-formed, no object repeats a key and nothing nests deeper than
 * {@link MAX_JSON_DEPTH}.
 *
 * Rule: the grammar of RFC 8259 (no comments, no trailing commas, strings
 * without raw control characters); a repeated member name within one
 * object is a fault too (RFC 8259 section 4: names "SHOULD be unique";
 * ledgerbench refuses them, since `JSON.parse` would keep the last one and
 * the first would be lost without a word), and so is an object or array
 * opened at level {@link MAX_JSON_DEPTH} + 1 (RFC 8259 section 9: "An
 * implementation may set limits on the maximum depth of nesting"); the
 * scanner's own recursion stops there. With `nonFinite`, the three bare
 * values Python's `json` writes by default (`allow_nan=True`) are values
 * too. Cost: O(text × depth) for the paths, depth ≤ {@link MAX_JSON_DEPTH}.
 *
 * @param text the whole JSON text
 * @param options `nonFinite`: also accept bare `NaN`, `Infinity`, `-Infinity`
 * @returns the first fault, or null
 * @example
 * ```ts
 * import { findJsonFault } from "./json_scan.ts";
 * const fault = findJsonFault('{"resolved":false,\n "resolved":true}');
 * if (fault?.message !== 'duplicate key "resolved"' || fault.line !== 2) throw new Error();
 * ```
 */
export function findJsonFault(text: string, options: JsonScanOptions = {}): JsonFault | null {
  const literals = options.nonFinite ? NON_FINITE_LITERALS : LITERALS;
  let at = 0;
  const skip = () => {
    while (WHITESPACE.has(text[at])) at++;
  };
  const expect = (what: string, path: string[]): never => {
    throw new Fault(at, `unexpected ${shown(text[at])} (expected ${what})`, path);
  };
  const string = (path: string[]): string => {
    const start = at++;
    while (at < text.length) {
      const char = text[at];
      if (char === '"') {
        at++;
        return JSON.parse(text.slice(start, at));
      }
      if (char === "\\") {
        const next = text[at + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) {
            throw new Fault(at, "bad \\u escape in a string", path);
          }
          at += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
          at += 2;
        } else {
          throw new Fault(
            at,
            `bad escape ${shown(`\\${next ?? ""}`.slice(0, 2))} in a string`,
            path,
          );
        }
      } else if (char.charCodeAt(0) < 0x20) {
        throw new Fault(at, `raw control character ${shown(char)} in a string`, path);
      } else {
        at++;
      }
    }
    throw new Fault(start, "string not closed", path);
  };
  const value = (path: string[]): void => {
    skip();
    const char = text[at];
    if ((char === "{" || char === "[") && path.length >= MAX_JSON_DEPTH) {
      throw new Fault(
        at,
        `nested too deeply: more than ${MAX_JSON_DEPTH} levels of objects and arrays`,
        path,
        "too_deep",
      );
    }
    if (char === "{") {
      at++;
      const keys = new Set<string>();
      skip();
      if (text[at] === "}") {
        at++;
        return;
      }
      for (;;) {
        skip();
        if (text[at] !== '"') expect("a key in double quotes", path);
        const keyAt = at;
        const key = string(path);
        if (keys.has(key)) {
          throw new Fault(
            keyAt,
            `duplicate key ${JSON.stringify(key)}`,
            [...path, key],
            "duplicate_key",
          );
        }
        keys.add(key);
        skip();
        if (text[at] !== ":") expect('":"', [...path, key]);
        at++;
        value([...path, key]);
        skip();
        if (text[at] === ",") {
          at++;
          continue;
        }
        if (text[at] === "}") {
          at++;
          return;
        }
        expect('"," or "}"', path);
      }
    }
    if (char === "[") {
      at++;
      skip();
      if (text[at] === "]") {
        at++;
        return;
      }
      for (let index = 0;; index++) {
        value([...path, String(index)]);
        skip();
        if (text[at] === ",") {
          at++;
          continue;
        }
        if (text[at] === "]") {
          at++;
          return;
        }
        expect('"," or "]"', path);
      }
    }
    if (char === '"') {
      string(path);
      return;
    }
    NUMBER.lastIndex = at;
    if (NUMBER.test(text)) {
      at = NUMBER.lastIndex;
      return;
    }
    const literal = literals.find((word) => text.startsWith(word, at));
    if (literal !== undefined) {
      at += literal.length;
      return;
    }
    expect("a value", path);
  };
  try {
    value([]);
    skip();
    if (at < text.length) expect("end of text after the value", []);
    return null;
  } catch (error) {
    if (!(error instanceof Fault)) throw error;
    const before = text.slice(0, error.at);
    const line = before.split("\n").length;
    const column = error.at - before.lastIndexOf("\n");
    const path = error.kind === "too_deep" && error.path.length > DEEP_PATH_SEGMENTS
      ? [...error.path.slice(0, DEEP_PATH_SEGMENTS), "…"]
      : error.path;
    return { message: error.detail, line, column, path: path.join("."), kind: error.kind };
  }
}
