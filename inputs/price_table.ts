/**
 * Loading a frozen price table (seed 001: money only through a frozen
 * table).
 *
 * @module
 */
import { PriceTable } from "../analysis/schema/records.ts";
import { type Loaded, loadJsonFile } from "./json_file.ts";

/**
 * Reads a price table through the strict {@link PriceTable} schema (an
 * unknown key is an error). Cost: O(file).
 *
 * @param path a JSON file, as given
 * @returns the path, the SHA-256 of the bytes and the table with every default applied
 * @throws {LedgerError} the codes of `loadJsonFile` (json_file.ts)
 */
export async function loadPriceTable(path: string): Promise<Loaded<PriceTable>> {
  const { sha256, value } = await loadJsonFile(path, PriceTable);
  return { path, sha256, value };
}
