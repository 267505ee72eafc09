/**
 * JSON Schemas generated from the zod schemas of `schema.ts`, the one source
 * of truth for every record (house style: the types define the published
 * JSON Schema). The generated files are committed under `ledgers/schema/`;
 * `deno task schema` rewrites them and `json_schema_test.ts` fails when they
 * drift.
 *
 * @module
 */
import { z } from "zod";
import { canonicalJson } from "../canonical_json.ts";
import {
  AgentCheck,
  Episode,
  Erratum,
  GoldenLabel,
  JudgeSettings,
  Plan,
  PriceTable,
  Rubric,
  Verdict,
} from "./records.ts";

/** The records with a published JSON Schema, by file name stem. */
export const JSON_SCHEMA_NAMES = [
  "episode",
  "plan",
  "price_table",
  "erratum",
  "verdict",
  "rubric",
  "golden_label",
  "judge_settings",
  "agent_check",
] as const;
/** One of {@link JSON_SCHEMA_NAMES}. */
export type JsonSchemaName = typeof JSON_SCHEMA_NAMES[number];

/** Folder (relative to the repository root) the schema files are committed in. */
export const JSON_SCHEMA_DIR = "ledgers/schema";

/** The command that regenerates the committed files (the `schema` task of deno.json). */
export const JSON_SCHEMA_COMMAND =
  "deno task schema (or: deno run --allow-write=ledgers/schema tools/write_json_schemas.ts)";

const SOURCES: Record<JsonSchemaName, { schema: z.ZodType; title: string; description: string }> = {
  episode: {
    schema: Episode,
    title: "ledgerbench episode row",
    description: "One JSONL ledger line: one attempt of one agent at one task (seeds 000-003). " +
      "Absent optional fields take the defaults documented in analysis/schema/records.ts; a missing " +
      'episode_id defaults to "<run_id>/<agent_id>/<task_id>/<attempt>".',
  },
  plan: {
    schema: Plan,
    title: "ledgerbench plan",
    description: "The frozen plan written before the first episode (seeds 002 and 003).",
  },
  price_table: {
    schema: PriceTable,
    title: "ledgerbench price table",
    description:
      "A frozen price table: money is derived from tokens only through one of these (seed 001).",
  },
  erratum: {
    schema: Erratum,
    title: "ledgerbench erratum",
    description:
      "One line of an append-only errata file; the ledger itself is never rewritten (seed 000).",
  },
  verdict: {
    schema: Verdict,
    title: "ledgerbench verifier verdict",
    description:
      "The structured verdict a verifier prints as the last line of its stdout (seed 000).",
  },
  rubric: {
    schema: Rubric,
    title: "ledgerbench judge rubric",
    description: "A judged task's hidden verifier/rubric.json: dimensions with weights, integer " +
      "score ranges and guidance, and the pass threshold on the 0-100 total code computes " +
      "(seed 000, issue 14).",
  },
  golden_label: {
    schema: GoldenLabel,
    title: "ledgerbench golden label",
    description: "One line of a judge's append-only golden set: a human's score of one answer " +
      "or verdict on two, with its label version (seed 000, issue 14).",
  },
  judge_settings: {
    schema: JudgeSettings,
    title: "ledgerbench judge settings",
    description: "The LLM judge's model, sampling parameters, attempts and gates, as " +
      "freeze --judge and judge calibrate --judge read them (issue 14).",
  },
  agent_check: {
    schema: AgentCheck,
    title: "ledgerbench agent check",
    description: "The result of ledgerbench agent check --out FILE: one scripted episode per " +
      "agent, its metered model calls, first call, refusals and verdict, as freeze " +
      "--agent-check reads it (issue 21).",
  },
};

/**
 * The status invariants of an episode row, which zod checks in a refinement
 * that JSON Schema generation cannot see, written as JSON Schema `if`/`then`:
 * `status` `"invalid"` requires `resolved` null and an `invalid_reason`;
 * otherwise (`"scored"`, the default) `resolved` is a boolean and
 * `invalid_reason` null when present.
 */
const EPISODE_INVARIANTS = [{
  if: { properties: { status: { const: "invalid" } }, required: ["status"] },
  then: {
    properties: { resolved: { type: "null" }, invalid_reason: { type: "string" } },
    required: ["invalid_reason"],
  },
  else: { properties: { resolved: { type: "boolean" }, invalid_reason: { type: "null" } } },
}];

/**
 * The JSON Schema (draft 2020-12) of one record, generated from its zod
 * schema in input mode (`z.toJSONSchema(schema, { io: "input" })`): fields
 * with a default are optional, exactly what a JSONL line or a config file may
 * omit. The episode schema also carries the status invariants as `allOf`
 * `if`/`then` (see analysis/schema/records.ts). Cost: O(size of the schema).
 *
 * @param name which record
 * @returns a fresh JSON Schema object with `title` and `description`
 * @example
 * ```ts
 * import { jsonSchema } from "./json_schema.ts";
 * const schema = jsonSchema("verdict");
 * if (schema.additionalProperties !== false) throw new Error("verdicts are strict");
 * ```
 */
export function jsonSchema(name: JsonSchemaName): Record<string, unknown> {
  const source = SOURCES[name];
  const generated = z.toJSONSchema(source.schema, { io: "input" }) as Record<string, unknown>;
  const schema: Record<string, unknown> = {
    ...generated,
    title: source.title,
    description: source.description,
  };
  if (name === "episode") schema.allOf = EPISODE_INVARIANTS;
  return schema;
}

/** One generated schema file. */
export interface JsonSchemaFile {
  name: JsonSchemaName;
  /** Path relative to the repository root, e.g. `ledgers/schema/episode.schema.json`. */
  path: string;
  /** The file's exact contents ({@link canonicalJson}: sorted keys, trailing newline). */
  text: string;
}

/**
 * Every committed JSON Schema file with its exact bytes, in
 * {@link JSON_SCHEMA_NAMES} order. Pure: writing them is
 * `tools/write_json_schemas.ts`'s job.
 *
 * @returns one entry per record, path `ledgers/schema/<name>.schema.json`
 */
export function jsonSchemaFiles(): JsonSchemaFile[] {
  return JSON_SCHEMA_NAMES.map((name) => ({
    name,
    path: `${JSON_SCHEMA_DIR}/${name}.schema.json`,
    text: canonicalJson(jsonSchema(name)),
  }));
}
