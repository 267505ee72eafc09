/**
 * File names of exported results (`ledgerbench export`): an untrusted id
 * (an agent id, a run id, a task id) as one safe path component, unique
 * among the names already given.
 *
 * @module
 */

/**
 * `text` with every character outside `[A-Za-z0-9._-]`, and a leading dot
 * (which would hide the file), as `_`; then `base`, `base-2`, `base-3`...,
 * the first `taken` does not hold, which is added to it.
 *
 * @param text the id to name a file or folder after
 * @param taken the names already given (updated)
 * @returns the name
 * @example
 * ```ts
 * import { uniqueFileName } from "./_export_names.ts";
 * const taken = new Set<string>();
 * const names = [uniqueFileName("a/b", taken), uniqueFileName("a:b", taken), uniqueFileName(".x", taken)];
 * if (names.join() !== "a_b,a_b-2,_x") throw new Error(names.join());
 * ```
 */
export function uniqueFileName(text: string, taken: Set<string>): string {
  const base = text.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\./, "_");
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  taken.add(name);
  return name;
}
