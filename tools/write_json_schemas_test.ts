import { deepEqual, equal } from "node:assert/strict";
import { writeJsonSchemas } from "./write_json_schemas.ts";
import { JSON_SCHEMA_COMMAND } from "../analysis/schema/json_schema.ts";

Deno.test("writeJsonSchemas() writes the committed bytes into a fresh folder", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const written = await writeJsonSchemas(`${dir}/schema`);
    deepEqual(written.map((path) => path.slice(dir.length + 1)), [
      "schema/episode.schema.json",
      "schema/plan.schema.json",
      "schema/price_table.schema.json",
      "schema/erratum.schema.json",
      "schema/verdict.schema.json",
      "schema/rubric.schema.json",
      "schema/golden_label.schema.json",
      "schema/judge_settings.schema.json",
      "schema/agent_check.schema.json",
    ]);
    for (const path of written) {
      const name = path.slice(path.lastIndexOf("/") + 1);
      const committed = await Deno.readFile(new URL(`../ledgers/schema/${name}`, import.meta.url));
      deepEqual(
        await Deno.readFile(path),
        committed,
        `${name} differs: run ${JSON_SCHEMA_COMMAND}`,
      );
    }
    // Running twice gives the same bytes (deterministic output).
    const first = await Deno.readTextFile(written[0]);
    await writeJsonSchemas(`${dir}/schema`);
    equal(await Deno.readTextFile(written[0]), first);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
