/**
 * Loading one JSON configuration file through its zod schema: read, hash,
 * decode and parse strictly, check, and word every problem with file, line
 * and field. The plan, price-table, provider-script and suite loaders are
 * this one function with their schemas.
 *
 * @module
 */
import type { z } from "zod";
import { LedgerError, type LedgerProblem } from "../analysis/ledger_error.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { readInput } from "./input_file.ts";
import { schemaProblem } from "../analysis/schema/schema_problems.ts";
import { parseJsonObject } from "../analysis/schema/strict_json.ts";

/** What every loader returns: the path as given, the SHA-256 of the bytes, the parsed value. */
export interface Loaded<T> {
  /** The path exactly as given (outputs record it so; never made absolute). */
  path: string;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
  value: T;
}

/** A loaded JSON file with the text it was parsed from. */
export interface LoadedJson<T> extends Loaded<T> {
  /** The file's text (UTF-8, no byte-order mark). */
  text: string;
}

/**
 * Parses a JSON text that is already in memory through `schema` (see
 * {@link loadJsonFile} for the checks).
 *
 * @param bytes the file's bytes
 * @param schema the schema the object must fit
 * @param file the file named in problems
 * @returns the parsed value and the text
 * @throws {LedgerError} codes `bad_encoding`, `malformed_json`, `duplicate_key`,
 *   `number_out_of_range`, `schema_violation` (every schema issue, line 0)
 */
export function parseJsonFile<S extends z.ZodType>(
  bytes: Uint8Array,
  schema: S,
  file: string,
): { value: z.output<S>; text: string } {
  const parsed = parseJsonObject(bytes, "the file");
  if (!parsed.ok) throw new LedgerError([{ file, ...parsed.problem }]);
  const result = schema.safeParse(parsed.value);
  if (!result.success) {
    throw new LedgerError(result.error.issues.map((issue): LedgerProblem => ({
      code: "schema_violation",
      file,
      line: 0,
      ...schemaProblem(issue, parsed.value, { schema }),
    })));
  }
  return { value: result.data, text: parsed.text };
}

/**
 * Reads one JSON file and parses it through `schema`.
 *
 * Checks: a regular, readable file (input_file.ts); UTF-8 without a
 * byte-order mark, JSON syntax with the line of the fault, one object, no
 * repeated key, no number beyond the double range (strict_json.ts); every
 * schema issue, worded by `schemaProblem`. Problems about a field carry
 * line 0 (the whole file). Cost: O(file).
 *
 * @param path the file, as given
 * @param schema the schema the object must fit
 * @returns the path, the SHA-256 of the bytes, the value and the text
 * @throws {LedgerError} code `io_error`, and the codes of {@link parseJsonFile}
 */
export async function loadJsonFile<S extends z.ZodType>(
  path: string,
  schema: S,
): Promise<LoadedJson<z.output<S>>> {
  const bytes = await readInput(path);
  return { path, sha256: sha256Hex(bytes), ...parseJsonFile(bytes, schema, path) };
}

/**
 * Throws one `schema_violation` problem for a field of a file (line 0), for
 * the checks a loader makes beyond its schema.
 *
 * @throws {LedgerError} always
 */
export function fieldProblem(file: string, field: string, message: string): never {
  throw new LedgerError([{ code: "schema_violation", file, line: 0, field, message }]);
}

/**
 * Refuses an id already seen in the same list, naming its place and the
 * first one (`tasks.2.task_id`: duplicate task "t1" (first at tasks.0)),
 * else records where it was seen. The plan's and the task list's ids are
 * checked by it.
 *
 * @param path the file named in the problem
 * @param firstAt where each id was first seen, updated
 * @param at the list, the kind of id, the id and its index
 * @throws {LedgerError} `schema_violation` at the repeated id
 */
export function refuseRepeatedId(
  path: string,
  firstAt: Map<string, number>,
  at: { list: "tasks" | "agents"; what: "task" | "agent"; id: string; index: number },
): void {
  const first = firstAt.get(at.id);
  if (first !== undefined) {
    fieldProblem(
      path,
      `${at.list}.${at.index}.${at.what}_id`,
      `duplicate ${at.what} "${at.id}" (first at ${at.list}.${first})`,
    );
  }
  firstAt.set(at.id, at.index);
}
