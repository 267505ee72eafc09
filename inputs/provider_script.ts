/**
 * Loading a scripted provider's script (`run --provider-script`), the
 * stand-in for a paid model in tests and the demo.
 *
 * @module
 */
import { ProviderScript } from "../analysis/schema/provider_script.ts";
import { type Loaded, loadJsonFile } from "./json_file.ts";

/**
 * Reads a provider script through the strict {@link ProviderScript} schema
 * (the format is documented in analysis/schema/provider_script.ts and
 * docs/demo.md). Cost: O(file).
 *
 * @param path a JSON file, as given
 * @returns the path, the SHA-256 of the bytes and the script with every default applied
 * @throws {LedgerError} the codes of `loadJsonFile` (json_file.ts)
 */
export async function loadProviderScript(path: string): Promise<Loaded<ProviderScript>> {
  const { sha256, value } = await loadJsonFile(path, ProviderScript);
  return { path, sha256, value };
}
