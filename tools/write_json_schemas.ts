/**
 * Writes the JSON Schemas generated from `analysis/schema/records.ts` into
 * `ledgers/schema/` (`deno task schema`).
 *
 * Usage: `deno run --allow-write=ledgers/schema tools/write_json_schemas.ts [--out DIR]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { JSON_SCHEMA_DIR, jsonSchemaFiles } from "../analysis/schema/json_schema.ts";

/**
 * Writes every generated schema file (`<name>.schema.json`, canonical JSON)
 * into `dir`, creating it if needed. Deterministic: the same schema module
 * always gives the same bytes.
 *
 * @param dir target folder (the repository's `ledgers/schema` by default)
 * @returns the paths written, in `JSON_SCHEMA_NAMES` order
 * @throws {Deno.errors.PermissionDenied} without write permission on `dir`
 */
export async function writeJsonSchemas(dir: string): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const file of jsonSchemaFiles()) {
    const path = `${dir}/${file.name}.schema.json`;
    await Deno.writeTextFile(path, file.text);
    written.push(path);
  }
  return written;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { out: { type: "string", default: JSON_SCHEMA_DIR }, help: { type: "boolean" } },
  });
  if (values.help) {
    console.log(
      "Usage: deno task schema [--out DIR]\n\nRegenerates ledgers/schema/*.schema.json from analysis/schema/records.ts.",
    );
  } else {
    for (const path of await writeJsonSchemas(values.out)) console.log(`wrote ${path}`);
  }
}
