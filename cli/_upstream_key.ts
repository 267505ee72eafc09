/**
 * Where an upstream key comes from: the environment variable itself
 * (`LEDGERBENCH_UPSTREAM_KEY`), or a file that only its owner can read,
 * named by the same variable with `_FILE` (`LEDGERBENCH_UPSTREAM_KEY_FILE`).
 * The file form exists for clusters (issue 24): a Slurm job's environment is
 * stored by the controller and shown to the job's owner and the
 * administrators, while a path says nothing; each node reads the file
 * itself, so the key never enters the job's record, its script or the
 * shared directory.
 *
 * @module
 */
import { UsageError } from "./_command.ts";

/**
 * Reads the key named `name` (the variable, else the file `${name}_FILE`
 * names, its content without the final line break), else the key of
 * `fallback` the same way.
 *
 * @param name the variable, e.g. `LEDGERBENCH_UPSTREAM_KEY`
 * @param fallback a second variable to read when the first is absent
 * @returns the key
 * @throws {UsageError} when neither is set, the file cannot be read, is empty, or
 *   can be read by its group or by others
 */
export function upstreamKey(name: string, fallback?: string): string {
  const key = keyOf(name) ?? (fallback === undefined ? null : keyOf(fallback));
  if (key !== null) return key;
  const names = fallback === undefined ? `"${name}"` : `"${name}" (or "${fallback}")`;
  throw new UsageError(
    `The upstream key must be in the environment variable ${names}, or in a file only you can ` +
      `read named by "${name}_FILE"`,
  );
}

/** The key of one variable or its `_FILE` form, or null when neither is set. */
function keyOf(name: string): string | null {
  const value = Deno.env.get(name) ?? "";
  if (value !== "") return value;
  const file = Deno.env.get(`${name}_FILE`) ?? "";
  if (file === "") return null;
  let info: Deno.FileInfo;
  let text: string;
  try {
    info = Deno.statSync(file);
    text = Deno.readTextFileSync(file);
  } catch (error) {
    throw new UsageError(
      `Cannot read the key file "${file}" named by "${name}_FILE": ${(error as Error).message}`,
    );
  }
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new UsageError(
      `The key file "${file}" named by "${name}_FILE" can be read by others (mode ${
        (info.mode & 0o777).toString(8)
      }): make it readable by you alone (chmod 600)`,
    );
  }
  const key = text.replace(/\r?\n$/, "");
  if (key === "") throw new UsageError(`The key file "${file}" named by "${name}_FILE" is empty`);
  return key;
}
