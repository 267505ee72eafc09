/**
 * Wording zod's issues as problems that name the field and say what is
 * wrong in the reader's terms: a field that is absent is "missing" and
 * "required", a key the schema does not know is "unknown", and zod's
 * generic "Invalid input" says which forms were allowed.
 *
 * @module
 */
import type { z } from "zod";

/** One schema issue, worded: the dotted field and the message. */
export interface SchemaProblem {
  /** Dotted path of the field (`tasks.3.lane`), `""` for the whole object. */
  field: string;
  message: string;
}

/** Options for {@link schemaProblem}. */
export interface SchemaProblemOptions {
  /**
   * The schema that raised the issue. With it, a missing field that may be
   * null says so (`or null when not recorded`), and a missing discriminator
   * lists its kinds; without it the message leaves both out.
   */
  schema?: z.ZodType;
}

/** The value at `path` inside `root`, or undefined when absent. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Zod's message without its "Invalid input: " prefix, on one line. */
function plainMessage(message: string): string {
  return message.replace(/^Invalid input: /, "").replaceAll(/\s*\n\s*/g, " ");
}

/** The parts of a zod 4 schema's definition {@link fieldSchema} follows. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Wrappers whose inner schema decides what a present value must be. */
const WRAPPERS = new Set(["nullable", "optional", "default", "prefault", "readonly", "catch"]);

/**
 * The schema of the field at `path` in `schema` (with its own wrappers,
 * so `nullable` stays visible), following objects, arrays, records,
 * pipes, lazy schemas and unions (a discriminated union by the raw
 * discriminator, else the first object option that has the key); undefined
 * where the path cannot be followed. O(path × union options).
 */
function fieldSchema(
  schema: z.ZodType,
  path: readonly PropertyKey[],
  raw: unknown,
): z.ZodType | undefined {
  let node: z.ZodType | undefined = schema;
  let value = raw;
  for (const key of path) {
    const parent = unwrap(node!);
    if (parent === undefined) return undefined;
    node = child(parent, key, value);
    if (node === undefined) return undefined;
    value = typeof value === "object" && value !== null
      ? (value as Record<PropertyKey, unknown>)[key]
      : undefined;
  }
  return node;
}

/** `schema` without its wrappers, pipes and lazy indirections. */
function unwrap(schema: z.ZodType): z.ZodType | undefined {
  let node = schema;
  for (let steps = 0; steps < 64; steps++) {
    const def = defOf(node);
    if (WRAPPERS.has(def.type)) node = def.innerType!;
    else if (def.type === "pipe") node = def.in!;
    else if (def.type === "lazy") node = def.getter!();
    else return node;
  }
  return undefined;
}

/** The schema of member `key` of a container schema (already unwrapped), given its raw value. */
function child(parent: z.ZodType, key: PropertyKey, value: unknown): z.ZodType | undefined {
  const def = defOf(parent);
  if (def.type === "object") {
    return typeof key === "string" && Object.hasOwn(def.shape!, key) ? def.shape![key] : undefined;
  }
  if (def.type === "array") return def.element;
  if (def.type === "record") return def.valueType;
  if (def.type !== "union") return undefined;
  const discriminator = def.discriminator;
  for (const option of def.options!) {
    const inner = unwrap(option);
    if (inner === undefined || defOf(inner).type !== "object") continue;
    const shape = defOf(inner).shape!;
    if (discriminator !== undefined) {
      const tag = valueAt(value, [discriminator]);
      if (!Object.hasOwn(shape, discriminator) || !accepts(shape[discriminator], tag)) continue;
    }
    const found = child(inner, key, value);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Whether `schema` accepts `value` (a schema whose transform throws on it does not). */
function accepts(schema: z.ZodType, value: unknown): boolean {
  try {
    return schema.safeParse(value).success;
  } catch {
    return false;
  }
}

/** The kinds a discriminated union allows for its discriminator, quoted, or null. */
function discriminatorValues(union: z.ZodType | undefined, discriminator: string): string | null {
  const inner = union === undefined ? undefined : unwrap(union);
  if (inner === undefined || defOf(inner).type !== "union") return null;
  const values: string[] = [];
  for (const option of defOf(inner).options!) {
    const object = unwrap(option);
    const tag = object === undefined ? undefined : defOf(object).shape?.[discriminator];
    const set = (tag as unknown as { _zod: { values?: Set<unknown> } } | undefined)?._zod.values;
    if (set === undefined) return null;
    for (const v of set) values.push(JSON.stringify(v));
  }
  return values.length === 0 ? null : `one of ${values.join(", ")}`;
}

/** What an issue raised on an absent value expected, in words (`number or string`), or null. */
function expectedOf(issue: z.core.$ZodIssue): string | null {
  if (issue.code === "invalid_type") return issue.expected;
  if (issue.code === "invalid_value") {
    const allowed = issue.values.map((v) => JSON.stringify(v));
    return allowed.length === 1 ? allowed[0] : `one of ${allowed.join(", ")}`;
  }
  if (issue.code === "invalid_union" && !("discriminator" in issue)) {
    const each = issue.errors.map((errors) => errors.length === 1 ? expectedOf(errors[0]) : null);
    if (each.length === 0 || each.includes(null)) return null;
    return [...new Set(each)].join(" or ");
  }
  return null;
}

/**
 * Words one zod issue (zod 4's issue shapes) against the raw value it was
 * raised on.
 *
 * Rules: an issue on an absent field (`invalid_type`, `invalid_value` or
 * `invalid_union`: the only ones zod raises there, since an optional or
 * defaulted field raises nothing when absent) reads `missing (required;
 * expected <forms>)`, the forms taken from the issue (a union's options
 * joined by "or"), followed by `, or null when not recorded` when the
 * field's schema (`options.schema`) accepts null (the ledger's seed, token
 * and time fields: issue 11, null is "not recorded", never 0); a missing
 * discriminator lists its kinds. `unrecognized_keys` names the first
 * unknown key as the field (`unknown key; the schema has no such field`);
 * a discriminator that matches nothing lists the allowed kinds; any other
 * message loses zod's "Invalid input: " prefix and its line breaks.
 *
 * @param issue the issue
 * @param raw the value the schema parsed
 * @param options `schema`: the schema that raised the issue
 * @returns the field and message
 * @example
 * ```ts
 * import { z } from "zod";
 * import { schemaProblem } from "./schema_problems.ts";
 * const schema = z.object({ plan_id: z.string(), seed: z.union([z.number(), z.string()]).nullable() });
 * const [plan, seed] = schema.safeParse({}).error!.issues;
 * if (schemaProblem(plan, {}).message !== "missing (required; expected string)") throw new Error();
 * const worded = schemaProblem(seed, {}, { schema }).message;
 * if (worded !== "missing (required; expected number or string, or null when not recorded)") {
 *   throw new Error(worded);
 * }
 * ```
 */
export function schemaProblem(
  issue: z.core.$ZodIssue,
  raw: unknown,
  options: SchemaProblemOptions = {},
): SchemaProblem {
  const path = issue.path.map(String);
  const field = path.join(".");
  if (issue.code === "unrecognized_keys") {
    const [key, ...more] = issue.keys;
    const also = more.length === 0 ? "" : ` (and ${more.map((k) => JSON.stringify(k)).join(", ")})`;
    return {
      field: [...path, key].join("."),
      message: `unknown key; the schema has no such field${also}`,
    };
  }
  const value = valueAt(raw, issue.path);
  const onAbsent = issue.code === "invalid_type" || issue.code === "invalid_value" ||
    issue.code === "invalid_union";
  if (onAbsent && value === undefined) {
    const schema = options.schema;
    let expected: string | null;
    if (issue.code === "invalid_union" && "discriminator" in issue) {
      const union = schema === undefined
        ? undefined
        : fieldSchema(schema, issue.path.slice(0, -1), raw);
      expected = discriminatorValues(union, String(issue.discriminator));
    } else {
      expected = expectedOf(issue);
    }
    const node = schema === undefined ? undefined : fieldSchema(schema, issue.path, raw);
    const orNull = node !== undefined && accepts(node, null) ? ", or null when not recorded" : "";
    return {
      field,
      message: expected === null
        ? `missing (required${orNull === "" ? "" : "; null when not recorded"})`
        : `missing (required; expected ${expected}${orNull})`,
    };
  }
  if (issue.code === "invalid_union" && "discriminator" in issue) {
    return { field, message: `${JSON.stringify(value)} is not one of the allowed kinds` };
  }
  if (issue.code === "invalid_value") {
    const allowed = issue.values.map((v) => JSON.stringify(v)).join(", ");
    return { field, message: `must be one of ${allowed}` };
  }
  return { field, message: plainMessage(issue.message) };
}
