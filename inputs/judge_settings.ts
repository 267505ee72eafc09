/**
 * Reading a judge configuration file (issue 14): the model, sampling
 * parameters, attempts and gates of the LLM judge, as `freeze --judge` and
 * `judge calibrate --judge` take them.
 *
 * @module
 */
import { JudgeSettings } from "../analysis/schema/records.ts";
import { type Loaded, loadJsonFile } from "./json_file.ts";

/**
 * Reads a judge configuration through the strict {@link JudgeSettings}
 * schema (an unknown key, a `calibration` included, is an error naming
 * file, line and field). Cost: O(file).
 *
 * @param path a JSON file, as given
 * @returns the path, the SHA-256 of its bytes and the settings with defaults applied
 * @throws {LedgerError} the codes of `loadJsonFile` (json_file.ts)
 */
export async function loadJudgeSettings(path: string): Promise<Loaded<JudgeSettings>> {
  const { sha256, value } = await loadJsonFile(path, JudgeSettings);
  return { path, sha256, value };
}
