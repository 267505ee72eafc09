/**
 * Loading a task list, the denominator of imported results (issue 11):
 * either the JSON document `ledgerbench import` writes ({@link TaskList}) or
 * a plain text file with one task id per line, as a dataset's id list
 * usually is.
 *
 * @module
 */
import { LedgerError } from "../analysis/ledger_error.ts";
import { TaskList } from "../analysis/schema/records.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { lineText } from "../analysis/untrusted_text.ts";
import { pathExists, readInput } from "./input_file.ts";
import { type Loaded, parseJsonFile, refuseRepeatedId } from "./json_file.ts";
import { decodeStrictText } from "../analysis/schema/strict_json.ts";

/**
 * Reads a task list.
 *
 * Forms, told apart by the first byte:
 * - `{`: the JSON {@link TaskList} (strict schema, through json_file.ts);
 * - anything else: plain text, one task id per line (LF or CRLF, a final
 *   newline optional), UTF-8 without a byte-order mark; a blank line, or
 *   an id with leading or trailing spaces, is refused (an id is never
 *   trimmed silently). Its attempts per task are 1 and its lane `default`.
 *   The encoding is checked as every text of the inputs layer is
 *   (`decodeStrictText`).
 *
 * In both forms task ids are unique. Cost: O(file).
 *
 * @param path the file, as given
 * @returns the path, the SHA-256 of the bytes and the task list
 * @throws {LedgerError} codes `io_error`, `bad_encoding`, `malformed_json`,
 *   `duplicate_key`, `number_out_of_range`, `schema_violation`, `blank_line`
 * @example
 * ```ts
 * import { loadTaskList } from "./task_list.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "django-1\ndjango-2\n");
 * const { value } = await loadTaskList(path);
 * if (value.tasks.length !== 2 || value.attempts_per_task !== 1) throw new Error();
 * ```
 */
export async function loadTaskList(path: string): Promise<Loaded<TaskList>> {
  const bytes = await readInput(path);
  const sha256 = sha256Hex(bytes);
  const value = bytes[0] === 0x7b /* { */
    ? parseJsonFile(bytes, TaskList, path).value
    : TaskList.parse({ tasks: textTasks(bytes, path) });
  const firstAt = new Map<string, number>();
  value.tasks.forEach((task, index) =>
    refuseRepeatedId(path, firstAt, { list: "tasks", what: "task", id: task.task_id, index })
  );
  return { path, sha256, value };
}

/**
 * Where `ledgerbench import` writes a ledger's task list unless told
 * (`--tasks-out`): beside the ledger, its name with a final `.jsonl`
 * replaced by `.tasks.json` (`runs.jsonl` → `runs.tasks.json`; a name
 * without `.jsonl` gets `.tasks.json` appended). The one statement of that
 * rule: `import` writes there and every command that takes `--tasks` looks
 * there ({@link findTaskListBeside}). Issue 11 (the task list), issue 25
 * item 4 (the denominator by default).
 *
 * @param ledger the ledger path, as given
 * @returns the task list path
 * @example
 * ```ts
 * import { defaultTaskListPath } from "./task_list.ts";
 * if (defaultTaskListPath("out/runs.jsonl") !== "out/runs.tasks.json") throw new Error();
 * ```
 */
export function defaultTaskListPath(ledger: string): string {
  return `${ledger.endsWith(".jsonl") ? ledger.slice(0, -".jsonl".length) : ledger}.tasks.json`;
}

/**
 * The task list beside a ledger, if there is one: the path
 * {@link defaultTaskListPath} names when something exists there, else
 * `null`. A command given no `--tasks` and no `--plan` uses it as the
 * denominator and says so (issue 25 item 4: `import` wrote a task list that
 * `report` then ignored, giving an agent missing 23% of its tasks a headline
 * score). What is found is only a path: it is read, and refused if
 * malformed, by {@link loadTaskList} like any task list.
 *
 * @param ledger the ledger path, as given
 * @returns the task list's path, or `null` when nothing is beside the ledger
 * @throws {LedgerError} code `io_error` when the place cannot be looked at
 * @example
 * ```ts
 * import { findTaskListBeside } from "./task_list.ts";
 * const dir = await Deno.makeTempDir();
 * if (await findTaskListBeside(`${dir}/runs.jsonl`) !== null) throw new Error();
 * await Deno.writeTextFile(`${dir}/runs.tasks.json`, '{"tasks": [{"task_id": "a"}]}');
 * if (await findTaskListBeside(`${dir}/runs.jsonl`) !== `${dir}/runs.tasks.json`) throw new Error();
 * ```
 */
export async function findTaskListBeside(ledger: string): Promise<string | null> {
  const path = defaultTaskListPath(ledger);
  return await pathExists(path) ? path : null;
}

/**
 * Where a command's task list came from (issue 25 item 4): `flag`
 * (`--tasks FILE`), `beside_ledger` (no `--tasks` and no `--plan`, and
 * {@link findTaskListBeside} found one), `declined` (`--tasks none`) or
 * `none` (a plan is the denominator, or nothing is beside the ledger).
 */
export type TaskListSource = "flag" | "beside_ledger" | "declined" | "none";

/** The task ids of the plain text form, one per line. */
function textTasks(bytes: Uint8Array, path: string): { task_id: string }[] {
  const problem = (
    line: number,
    code: "blank_line" | "schema_violation",
    message: string,
  ) =>
    new LedgerError([{
      code,
      file: path,
      line,
      field: code === "schema_violation" ? "task_id" : "",
      message,
    }]);
  const decoded = decodeStrictText(bytes);
  if (!decoded.ok) throw new LedgerError([{ ...decoded.problem, file: path }]);
  const lines = decoded.text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length === 0) throw problem(0, "blank_line", "holds no task id");
  return lines.map((raw, i) => {
    const id = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (id === "") throw problem(i + 1, "blank_line", "is blank; one task id per line");
    if (id.trim() !== id) {
      throw problem(
        i + 1,
        "schema_violation",
        `task id ${lineText(JSON.stringify(id))} has leading or trailing spaces`,
      );
    }
    return { task_id: id };
  });
}

/**
 * The word `--tasks` takes to decline the task list beside the ledger (a
 * file literally named so is given as `./none`).
 */
export const NO_TASK_LIST = "none";

/** A loaded task list, with the note a command prints beside its path when it was found. */
export type LoadedTaskList = Loaded<TaskList> & { note?: string };

/**
 * The task list a command uses as its denominator (seed 003: a task
 * without a row is missing, and missing counts; a list `import` wrote beside
 * the ledger is used and named, never silently passed over):
 * - `--tasks FILE`: that file;
 * - `--tasks none` ({@link NO_TASK_LIST}): none, and the source says it was declined;
 * - neither `--tasks` nor a plan: the list beside the ledger
 *   (`findTaskListBeside`, the path `import` writes), noted
 *   "found beside the ledger", when there is one;
 * - a plan: none here (its tasks are the denominator; `--plan` with
 *   `--tasks FILE` is refused by the caller).
 *
 * @param ledger the ledger path, as given
 * @param given the `--tasks` value, or undefined
 * @param planGiven whether `--plan` is given
 * @returns the loaded list (or null) and where it came from
 * @throws {LedgerError} when the list cannot be read (inputs/task_list.ts)
 * @example
 * ```ts
 * import { chooseTaskList } from "./task_list.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/runs.tasks.json`, '{"tasks": [{"task_id": "a"}]}');
 * const found = await chooseTaskList(`${dir}/runs.jsonl`, undefined, false);
 * if (found.source !== "beside_ledger" || found.list?.value.tasks.length !== 1) throw new Error();
 * const declined = await chooseTaskList(`${dir}/runs.jsonl`, "none", false);
 * if (declined.source !== "declined" || declined.list !== null) throw new Error();
 * ```
 */
export async function chooseTaskList(
  ledger: string,
  given: string | undefined,
  planGiven: boolean,
): Promise<{ list: LoadedTaskList | null; source: TaskListSource }> {
  if (given === NO_TASK_LIST) return { list: null, source: "declined" };
  if (given !== undefined) return { list: await loadTaskList(given), source: "flag" };
  if (planGiven) return { list: null, source: "none" };
  const beside = await findTaskListBeside(ledger);
  if (beside === null) return { list: null, source: "none" };
  return {
    list: { ...await loadTaskList(beside), note: "found beside the ledger" },
    source: "beside_ledger",
  };
}
