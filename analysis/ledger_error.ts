/**
 * Errors as data (house style, after zod): every problem found in a ledger,
 * errata or plan file names the file, the 1-based line and the field, and
 * carries a machine-readable `code`.
 *
 * @module
 */
import { lineText } from "./untrusted_text.ts";

/** What went wrong with one line of a JSONL file. */
export type ProblemCode =
  | "malformed_json"
  | "blank_line"
  | "schema_violation"
  | "duplicate_episode_id"
  | "broken_hash_chain"
  | "unknown_episode"
  | "duplicate_erratum_id"
  | "erratum_conflict"
  | "duplicate_label"
  | "label_conflict"
  | "bad_encoding"
  | "bad_archive"
  | "duplicate_key"
  | "number_out_of_range"
  | "empty_file"
  | "hash_mismatch"
  | "io_error";

/** One problem at one place in one file. */
export interface LedgerProblem {
  code: ProblemCode;
  file: string;
  /** 1-based line number; 0 when the problem concerns the whole file. */
  line: number;
  /** Dotted path of the offending field, or `""` when the whole line is at fault. */
  field: string;
  message: string;
}

/**
 * Formats a problem as one sentence-case line naming file, line and field:
 * `<file>:<line>: field "<field>": <message>`, the line left out when it is 0
 * (the whole file) and the field when it is empty. File, field and message
 * may quote a ledger's strings (a key, an id): each is shown through
 * `lineText` (untrusted_text.ts), so no control or bidi character reaches
 * the terminal and the problem stays on one line.
 *
 * @param problem the problem
 * @returns the line, without a final period
 * @example
 * ```ts
 * import { formatProblem } from "./ledger_error.ts";
 * const text = formatProblem({
 *   code: "schema_violation", file: "a.jsonl", line: 3, field: "resolved",
 *   message: "expected boolean, received string",
 * });
 * if (text !== 'a.jsonl:3: field "resolved": expected boolean, received string') throw new Error(text);
 * ```
 */
export function formatProblem(problem: LedgerProblem): string {
  const file = lineText(problem.file);
  const where = problem.line > 0 ? `${file}:${problem.line}` : file;
  const field = problem.field === "" ? "" : ` field "${lineText(problem.field)}":`;
  return `${where}:${field} ${lineText(problem.message)}`;
}

/** Thrown when a file cannot be read strictly; holds every problem found. */
export class LedgerError extends Error {
  /** The problems, in file order. */
  readonly problems: LedgerProblem[];

  /** @param problems at least one problem; the first one becomes the message. */
  constructor(problems: LedgerProblem[]) {
    const extra = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    super(`Cannot read ${formatProblem(problems[0])}${extra}`);
    this.name = "LedgerError";
    this.problems = problems;
  }
}

/**
 * The error for a file that cannot be opened or read at all: one problem with
 * code `io_error`, line 0 (the whole file), no field, and the system's
 * message (`Cannot read a.jsonl: No such file or directory (os error 2)...`).
 *
 * @param file the path as given
 * @param error what the read threw (its message, or its string form)
 * @returns the error to throw
 * @example
 * ```ts
 * import { ioError } from "./ledger_error.ts";
 * const error = ioError("a.jsonl", new Error("denied"));
 * if (error.problems[0].code !== "io_error" || error.message !== "Cannot read a.jsonl: denied") {
 *   throw new Error(error.message);
 * }
 * ```
 */
export function ioError(file: string, error: unknown): LedgerError {
  return new LedgerError([{
    code: "io_error",
    file,
    line: 0,
    field: "",
    message: systemMessage(error),
  }]);
}

/**
 * What a system error says, without the call and path Deno appends (`No such
 * file or directory (os error 2): stat '/abs/a.jsonl'` becomes `No such file
 * or directory (os error 2)`): the caller's message names the file as given.
 * Anything that is not an `Error` is shown as its string form.
 *
 * @param error what a file system call threw
 * @returns the message
 */
export function systemMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message.replace(/: [a-z_]+ '[^']*'( -> '[^']*')?$/, "");
}
