import { deepEqual, equal, fail } from "node:assert/strict";
import {
  JSON_SCHEMA_COMMAND,
  JSON_SCHEMA_NAMES,
  jsonSchema,
  jsonSchemaFiles,
} from "./json_schema.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("jsonSchemaFiles() matches the files committed under ledgers/schema", async () => {
  const drifted: string[] = [];
  for (const file of jsonSchemaFiles()) {
    let committed: string | null;
    try {
      committed = await Deno.readTextFile(new URL(file.path, ROOT));
    } catch {
      committed = null;
    }
    if (committed !== file.text) {
      drifted.push(committed === null ? `${file.path} (missing)` : file.path);
    }
  }
  if (drifted.length > 0) {
    fail(
      `JSON Schemas drifted from analysis/schema/records.ts: ${drifted.join(", ")}; ` +
        `regenerate them with ${JSON_SCHEMA_COMMAND}`,
    );
  }
  // Exactly one committed file per record, nothing stale beside them.
  const committedNames: string[] = [];
  for await (const entry of Deno.readDir(new URL("ledgers/schema/", ROOT))) {
    committedNames.push(entry.name);
  }
  deepEqual(committedNames.sort(), JSON_SCHEMA_NAMES.map((name) => `${name}.schema.json`).sort());
});

Deno.test("jsonSchema() requires exactly the seed-001 fields of an episode row", () => {
  const schema = jsonSchema("episode");
  // Seed 001's row fields, minus "notes" (default ""): the minimal form must stay valid.
  deepEqual(
    [...(schema.required as string[])].sort(),
    [
      "agent_id",
      "completion_tokens",
      "price_table_id",
      "prompt_tokens",
      "resolved",
      "run_id",
      "seed",
      "task_id",
      "tool_calls",
      "wall_ms",
    ],
  );
  equal(schema.additionalProperties, false);
  equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  // The zod refinement (resolved null exactly when invalid) is carried as if/then.
  deepEqual(schema.allOf, [{
    if: { properties: { status: { const: "invalid" } }, required: ["status"] },
    then: {
      properties: { resolved: { type: "null" }, invalid_reason: { type: "string" } },
      required: ["invalid_reason"],
    },
    else: { properties: { resolved: { type: "boolean" }, invalid_reason: { type: "null" } } },
  }]);
  const properties = schema.properties as Record<string, { enum?: string[]; default?: unknown }>;
  // Input mode keeps the documented defaults visible to other tools.
  equal(properties.status.default, "scored");
  equal(properties.stop_reason.default, "completed");
  deepEqual(
    (properties.stop_reason as { enum: string[] }).enum,
    ["completed", "step_cap", "token_cap", "wall_cap", "rate_limited", "error"],
  );
});

Deno.test("jsonSchema() describes every errata kind and a strict verdict", () => {
  const erratum = jsonSchema("erratum") as {
    anyOf?: { properties: { kind: { const: string } } }[];
  };
  deepEqual(
    erratum.anyOf?.map((branch) => branch.properties.kind.const),
    ["invalidate_episode", "rescore_episode", "void_summary"],
  );
  const verdict = jsonSchema("verdict");
  deepEqual(verdict.required, ["resolved"]);
  equal(verdict.additionalProperties, false);
  deepEqual(jsonSchema("plan").required, ["plan_id", "tasks"]);
  deepEqual(jsonSchema("price_table").required, ["price_table_id", "currency"]);
});
