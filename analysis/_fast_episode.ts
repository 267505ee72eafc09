/**
 * A fast path for the common ledger row: the same result as
 * `Episode.safeParse(raw)` for rows it accepts, at a fraction of zod's cost.
 * It never decides that a row is bad: anything it does not accept is handed
 * to zod, which then produces the result and the exact error message. So the
 * reader's behaviour and messages stay zod's; only the time changes.
 *
 * How it stays equal to the schema: nothing here restates `Episode`. At
 * module load {@linkcode deriveFastParser} walks the zod schema's definition
 * (zod 4's `_zod.def` objects, pinned at 4.1.12) once and builds one plain
 * checker per node, with zod's semantics for each kind it knows:
 *
 * | node | checker |
 * |---|---|
 * | `string`, `number`, `boolean` | `typeof` (numbers finite, as zod), no coercion |
 * | checks | `min_length`, `max_length`, `length_equals`, `greater_than`, `less_than`, `number_format` `safeint`, `string_format` `regex`/`datetime`/`date` (the check's own pattern; a hex-run pattern by a branch-free scan), `custom` (refine, superRefine: the schema's own function) |
 * | `literal`, `enum` | the set of values zod tests |
 * | `nullable`, `optional`, `default` | null passes, absent stays absent, absent takes the default (zod's getter, so a fresh copy) |
 * | `union` | the first option that accepts, as zod |
 * | `object` | shape keys in order (absent optional keys left out); strict (catchall `never`) or strip; input a plain object |
 * | `array` (without checks) | `Array.isArray`, each element by its checker, a new array as zod returns |
 * | `record` with plain `string` keys | a plain object (zod's `isPlainObject`), every own key (`Reflect.ownKeys`, `__proto__` skipped as zod skips it) a string, each value by its checker, a new object in key order |
 * | `pipe` into a `transform` | the schema's own transform function |
 *
 * A node of any other kind, or with a check, format or option the table does
 * not list, is checked by its own zod schema (`safeParse` of that node, so the
 * result is still zod's), and its path is listed in
 * {@linkcode EPISODE_DELEGATED}; a root the derivation cannot walk turns the
 * fast path off ({@linkcode FAST_PATH_ENABLED}). The cross-check test in
 * `_fast_episode_test.ts` compares this path with zod on generated and
 * mutated rows.
 *
 * @module
 */
import type { z } from "zod";
import { type Episode, Episode as EpisodeSchema } from "./schema/records.ts";

/** What a checker returns for a value its node rejects. */
const FAIL: unique symbol = Symbol("fail");
type Parse = (value: unknown) => unknown;
type Test = (value: never) => boolean;

/**
 * A checker that can also be written as statements, so that an object's
 * compiled checker ({@link compileObject}) runs it inline instead of
 * calling it: closures made by one factory share their call sites, which
 * then see many targets and are not inlined by V8 (about half of the fast
 * path's time went to such calls).
 */
interface InlineParse extends Parse {
  inline?: Inline;
}

/**
 * Statements that check the value named `input` exactly as the checker
 * does: on success they assign the result to the variable `output`, on
 * failure they run `fail` (`return FAIL;` or a `break` to the next option
 * of a union). Constants (value sets, patterns, defaults) go to `k`, which
 * the compiled code reads as `K`.
 */
interface Inline {
  (code: { input: string; output: string; fail: string; k: unknown[] }): string;
}

/** `parse` with its statements attached. */
function withInline(parse: Parse, inline: Inline): InlineParse {
  return Object.assign(parse, { inline });
}

/** Labels for the blocks of inlined unions, unique within the module. */
let labels = 0;

/** The parts of a zod 4 schema this file reads (`schema._zod`). */
interface Node {
  _zod: {
    def: Def;
    traits: Set<string>;
    values?: Set<unknown>;
    optin?: string;
    check?: (payload: Payload) => unknown;
  };
  safeParse(value: unknown): { success: boolean; data?: unknown };
}

/** The fields of the `_zod.def` objects this file reads, by kind. */
interface Def {
  type: string;
  checks?: Node[];
  coerce?: boolean;
  // checks
  check?: string;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
  when?: unknown;
  // wrappers and composites
  innerType?: Node;
  defaultValue?: unknown;
  options?: Node[];
  discriminator?: string;
  shape?: Record<string, Node>;
  catchall?: Node;
  element?: Node;
  keyType?: Node;
  valueType?: Node;
  in?: Node;
  out?: Node;
  transform?: (value: unknown, payload: Payload) => unknown;
}

interface Payload {
  value: unknown;
  issues: unknown[];
}

/** A node the derivation does not understand: its own zod schema checks it. */
class Unsupported extends Error {}

/** The fast checker of one schema, and the nodes it left to zod. */
export interface FastParser<T> {
  /** The schema's output for a value it accepts, `undefined` when zod must decide. */
  parse: (raw: unknown) => T | undefined;
  /** Whether the root was derived (else `parse` always answers `undefined`). */
  derived: boolean;
  /** Paths (`caps.token_cap`, `seed|1`, `(root)`) of nodes checked by their own zod schema. */
  delegated: readonly string[];
}

/**
 * Builds a fast checker for a zod schema by walking its definition once
 * (see the module doc for the kinds it knows). The checker gives exactly
 * `schema.safeParse(raw).data` for every value zod accepts and it accepts,
 * and `undefined` for every value it does not accept (leaving the verdict,
 * and the message, to zod); it never accepts a value zod rejects. Build cost:
 * O(schema nodes); each check afterwards O(value size).
 *
 * @param schema a zod 4 schema
 * @returns the checker, whether its root was derived, and the delegated paths
 * @example
 * ```ts
 * import { z } from "zod";
 * import { deriveFastParser } from "./_fast_episode.ts";
 * const fast = deriveFastParser(z.object({ id: z.string().min(1), n: z.number().default(0) }).strict());
 * if (JSON.stringify(fast.parse({ id: "x" })) !== '{"id":"x","n":0}') throw new Error();
 * if (fast.parse({ id: "" }) !== undefined || fast.delegated.length !== 0) throw new Error();
 * ```
 */
export function deriveFastParser<T>(schema: z.ZodType<T>): FastParser<T> {
  const delegated: string[] = [];
  let root: Parse;
  try {
    root = derive(schema as unknown as Node, "", delegated);
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
    return { parse: () => undefined, derived: false, delegated: ["(root)"] };
  }
  return {
    parse: (raw) => {
      const value = root(raw);
      return value === FAIL ? undefined : value as T;
    },
    derived: true,
    delegated,
  };
}

/** The checker of one node; a child it does not understand is delegated to zod. */
function derive(node: Node, path: string, delegated: string[]): Parse {
  const child = (inner: Node, at: string): Parse => {
    try {
      return derive(inner, at, delegated);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      delegated.push(at === "" ? "(root)" : at);
      return viaZod(inner);
    }
  };
  const checks = checksOf(node);
  const kind = node._zod.def.type;
  if (!PRIMITIVES.has(kind) && checks.some((check) => check._zod.def.check !== "custom")) {
    throw new Unsupported(`a check on "${kind}" at "${path}"`);
  }
  const parse = deriveKind(node, path, child);
  const custom = checks.filter((check) => check._zod.def.check === "custom");
  return custom.length === 0 ? parse : withCustomChecks(parse, custom);
}

/** The kinds whose non-custom checks are inlined; on any other kind such a check is unsupported. */
const PRIMITIVES = new Set(["string", "number", "boolean"]);

type Child = (inner: Node, at: string) => Parse;

function deriveKind(node: Node, path: string, child: Child): Parse {
  const def = node._zod.def;
  if (def.coerce) throw new Unsupported(`coercion at "${path}"`);
  switch (def.type) {
    case "string":
      return typed((v) => typeof v === "string", inlineChecks(node), {
        type: (x) => `typeof ${x} === "string"`,
        checks: checksOf(node),
      });
    case "number":
      return typed((v) => typeof v === "number" && Number.isFinite(v), inlineChecks(node), {
        type: (x) => `typeof ${x} === "number" && Number.isFinite(${x})`,
        checks: checksOf(node),
      });
    case "boolean":
      return typed((v) => typeof v === "boolean", inlineChecks(node), {
        type: (x) => `typeof ${x} === "boolean"`,
        checks: checksOf(node),
      });
    case "literal":
    case "enum":
      return memberOf(node);
    case "nullable":
      return nullable(child(def.innerType!, path));
    case "optional":
      // zod passes an absent value into an inner schema that is optional-in itself (a default)
      if (def.innerType!._zod.optin === "optional") {
        throw new Unsupported(`optional of an optional-in schema at "${path}"`);
      }
      return optional(child(def.innerType!, path));
    case "default":
      return withDefault(def, child(def.innerType!, path));
    case "union":
      return union(node, path, child);
    case "object":
      return object(node, path, child);
    case "array":
      return array(child(def.element!, `${path}[]`));
    case "record":
      return record(node, path, child);
    case "pipe":
      return pipe(node, path, child);
    default:
      throw new Unsupported(`kind "${def.type}" at "${path}"`);
  }
}

/** A node's own checks: itself when it is a check (string formats), then `def.checks`. */
function checksOf(node: Node): Node[] {
  const own = node._zod.traits.has("$ZodCheck") ? [node] : [];
  return [...own, ...(node._zod.def.checks ?? [])];
}

/** One test per non-custom check, with zod's rule for that check. */
function inlineChecks(node: Node): Test[] {
  const tests: Test[] = [];
  for (const check of checksOf(node)) {
    const def = check._zod.def;
    if (def.check === "custom") continue;
    // zod gives the length checks a `when` (the value has a length), true after the type test
    if (def.when !== undefined && !LENGTH_CHECKS.has(def.check!)) {
      throw new Unsupported(`conditional check "${def.check}"`);
    }
    tests.push(checkTest(def));
  }
  return tests;
}

const LENGTH_CHECKS = new Set(["min_length", "max_length", "length_equals"]);

function checkTest(def: Def): Test {
  switch (def.check) {
    case "min_length": {
      const min = def.minimum!;
      return (v: string) => v.length >= min;
    }
    case "max_length": {
      const max = def.maximum!;
      return (v: string) => v.length <= max;
    }
    case "length_equals": {
      const length = def.length!;
      return (v: string) => v.length === length;
    }
    case "greater_than": {
      const bound = def.value!;
      return def.inclusive ? (v: number) => v >= bound : (v: number) => v > bound;
    }
    case "less_than": {
      const bound = def.value!;
      return def.inclusive ? (v: number) => v <= bound : (v: number) => v < bound;
    }
    case "number_format":
      if (def.format === "safeint") return (v: number) => Number.isSafeInteger(v);
      throw new Unsupported(`number format "${def.format}"`);
    case "string_format":
      if (
        (def.format === "regex" || def.format === "datetime" || def.format === "date") &&
        def.pattern instanceof RegExp
      ) {
        return patternTest(def.pattern);
      }
      throw new Unsupported(`string format "${def.format}"`);
    default:
      throw new Unsupported(`check "${def.check}"`);
  }
}

/** 1 for the code units of "0"-"9" and "a"-"f", else 0. */
const HEX_DIGIT = new Uint8Array(65536);
for (const digit of "0123456789abcdef") HEX_DIGIT[digit.charCodeAt(0)] = 1;

/** `^<literal prefix>[0-9a-f]{n}$`, the shape of the schema's digest patterns. */
const HEX_RUN = /^\^([A-Za-z0-9:_-]*)\[0-9a-f\]\{(\d+)\}\$$/;

/**
 * The test of a check's pattern: a branch-free scan for a literal prefix and
 * a run of lower-case hex digits (the digests, about 3× faster than the
 * regular expression), else the pattern itself as zod runs it.
 */
function patternTest(pattern: RegExp): Test {
  const hex = pattern.flags === "" ? HEX_RUN.exec(pattern.source) : null;
  if (hex === null) {
    return (v: string) => {
      pattern.lastIndex = 0;
      return pattern.test(v);
    };
  }
  const prefix = hex[1];
  const start = prefix.length;
  const end = start + Number(hex[2]);
  return (v: string) => {
    if (v.length !== end || !v.startsWith(prefix)) return false;
    let ok = 1;
    for (let i = start; i < end; i++) ok &= HEX_DIGIT[v.charCodeAt(i)];
    return ok === 1;
  };
}

/** A type test, then the checks, all inline; as code, the same tests in the same order. */
function typed(
  type: (v: unknown) => boolean,
  tests: Test[],
  code: { type: (x: string) => string; checks: Node[] },
): InlineParse {
  const check = allOf(tests);
  const parse: Parse = (v) => type(v) && check(v as never) ? v : FAIL;
  return withInline(parse, ({ input, output, fail, k }) => {
    const conditions = [code.type(input)];
    for (const check of code.checks) {
      if (check._zod.def.check !== "custom") conditions.push(checkCode(check._zod.def, input, k));
    }
    return `if (!(${conditions.join(" && ")})) ${fail}\n${output} = ${input};\n`;
  });
}

/**
 * One check of {@link checkTest} as an expression over `x`: the bounds as
 * literals, a pattern's test as a call of its {@link checkTest} function.
 */
function checkCode(def: Def, x: string, k: unknown[]): string {
  switch (def.check) {
    case "min_length":
      return `${x}.length >= ${def.minimum!}`;
    case "max_length":
      return `${x}.length <= ${def.maximum!}`;
    case "length_equals":
      return `${x}.length === ${def.length!}`;
    case "greater_than":
      return `${x} ${def.inclusive ? ">=" : ">"} ${def.value!}`;
    case "less_than":
      return `${x} ${def.inclusive ? "<=" : "<"} ${def.value!}`;
    default:
      k.push(checkTest(def));
      return `K[${k.length - 1}](${x})`;
  }
}

function allOf(tests: Test[]): Test {
  if (tests.length === 0) return () => true;
  if (tests.length === 1) return tests[0];
  if (tests.length === 2) {
    const [a, b] = tests;
    return (v) => a(v) && b(v);
  }
  return (v) => tests.every((test) => test(v));
}

/** Literals and enums: the value set zod itself tests (`_zod.values`). */
function memberOf(node: Node): InlineParse {
  const values = node._zod.values;
  if (values === undefined) {
    throw new Unsupported(`"${node._zod.def.type}" without a value set`);
  }
  return withInline((v) => values.has(v) ? v : FAIL, ({ input, output, fail, k }) => {
    k.push(values);
    return `if (!K[${k.length - 1}].has(${input})) ${fail}\n${output} = ${input};\n`;
  });
}

/** The statements of `inner`, or a call of it when it has none. */
function inlineOf(inner: InlineParse): Inline {
  return inner.inline ?? (({ input, output, fail, k }) => {
    k.push(inner);
    return `${output} = K[${k.length - 1}](${input});\nif (${output} === FAIL) ${fail}\n`;
  });
}

function nullable(inner: InlineParse): InlineParse {
  const code = inlineOf(inner);
  return withInline(
    (v) => v === null ? null : inner(v),
    (at) => `if (${at.input} === null) ${at.output} = null;\nelse {\n${code(at)}}\n`,
  );
}

function optional(inner: InlineParse): InlineParse {
  const code = inlineOf(inner);
  return withInline(
    (v) => v === undefined ? undefined : inner(v),
    (at) => `if (${at.input} === undefined) ${at.output} = undefined;\nelse {\n${code(at)}}\n`,
  );
}

/** zod's `default`: absent takes `def.defaultValue` (a getter: a fresh shallow copy). */
function withDefault(def: Def, inner: InlineParse): InlineParse {
  const sample = def.defaultValue;
  const code = inlineOf(inner);
  const primitive = sample === null || typeof sample !== "object";
  const parse: Parse = primitive
    ? (v) => {
      if (v === undefined) return sample;
      const out = inner(v);
      return out === undefined ? sample : out;
    }
    : (v) => {
      if (v === undefined) return def.defaultValue;
      const out = inner(v);
      return out === undefined ? def.defaultValue : out;
    };
  return withInline(parse, (at) => {
    at.k.push(primitive ? sample : def);
    const fallback = primitive ? `K[${at.k.length - 1}]` : `K[${at.k.length - 1}].defaultValue`;
    return `if (${at.input} === undefined) ${at.output} = ${fallback};\nelse {\n${code(at)}` +
      `if (${at.output} === undefined) ${at.output} = ${fallback};\n}\n`;
  });
}

/** zod's `union`: the first option that accepts, in order; as code, one block per option. */
function union(node: Node, path: string, child: Child): InlineParse {
  const def = node._zod.def;
  if (def.discriminator !== undefined) throw new Unsupported(`discriminated union at "${path}"`);
  const options = def.options!.map((option, i) => child(option, `${path}|${i}`));
  const parse: Parse = (v) => {
    for (const option of options) {
      const out = option(v);
      if (out !== FAIL) return out;
    }
    return FAIL;
  };
  return withInline(parse, (at) => {
    const done = `u${labels++}`;
    let text = `${done}: {\n`;
    for (const option of options) {
      const next = `u${labels++}`;
      text += `${next}: {\n${
        inlineOf(option)({ ...at, fail: `break ${next};` })
      }break ${done};\n}\n`;
    }
    return `${text}${at.fail}\n}\n`;
  });
}

/** zod's `array` without checks: an array whose every element its checker accepts, copied. */
function array(element: Parse): Parse {
  return (v) => {
    if (!Array.isArray(v)) return FAIL;
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const parsed = element(v[i]);
      if (parsed === FAIL) return FAIL;
      out[i] = parsed;
    }
    return out;
  };
}

/**
 * zod's `record` with keys of plain `z.string()` (no check, no value set):
 * zod takes a plain object ({@link isPlainObject}), walks `Reflect.ownKeys`
 * in order, skips `__proto__`, and writes each value's result into a new
 * object; a symbol key fails its string key type.
 */
function record(node: Node, path: string, child: Child): Parse {
  const def = node._zod.def;
  const key = def.keyType!;
  if (
    key._zod.def.type !== "string" || key._zod.def.coerce || checksOf(key).length > 0 ||
    key._zod.values !== undefined
  ) {
    throw new Unsupported(`record keys other than a plain string at "${path}"`);
  }
  const value = child(def.valueType!, `${path}{}`);
  return (v) => {
    if (!isPlainObject(v)) return FAIL;
    const out: Record<string, unknown> = {};
    for (const k of Reflect.ownKeys(v)) {
      if (k === "__proto__") continue;
      if (typeof k !== "string") return FAIL;
      const parsed = value(v[k]);
      if (parsed === FAIL) return FAIL;
      out[k] = parsed;
    }
    return out;
  };
}

/**
 * zod's `util.isPlainObject` (4.1.12), which its `record` applies: an
 * object, not an array, whose `constructor` is absent or has an object
 * prototype owning `isPrototypeOf` (so an own `constructor` key that is a
 * number makes it no plain object).
 */
function isPlainObject(v: unknown): v is Record<string | symbol, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const ctor = (v as { constructor?: { prototype?: unknown } }).constructor;
  if (ctor === undefined) return true;
  const prototype = ctor.prototype;
  if (typeof prototype !== "object" || prototype === null || Array.isArray(prototype)) {
    return false;
  }
  return Object.prototype.hasOwnProperty.call(prototype, "isPrototypeOf");
}

/**
 * zod's `object`: the shape's keys in order, each by its checker; a key
 * whose result is `undefined` (absent and optional) is left out; unknown
 * keys fail a strict object (catchall `never`) and are dropped otherwise.
 */
function object(node: Node, path: string, child: Child): Parse {
  const def = node._zod.def;
  const strict = def.catchall !== undefined && def.catchall._zod.def.type === "never";
  if (def.catchall !== undefined && !strict) throw new Unsupported(`catchall at "${path}"`);
  const shape = def.shape!;
  const keys = Object.keys(shape);
  if (keys.some((key) => key in Object.prototype)) {
    throw new Unsupported(`a key of Object.prototype at "${path}"`);
  }
  const parsers: InlineParse[] = keys.map((key) =>
    child(shape[key], path === "" ? key : `${path}.${key}`)
  );
  const optional = keys.map((key) => !alwaysDefined(shape[key]));
  return compileObject(keys, parsers, optional, strict);
}

/**
 * Whether zod's output for a node is never `undefined` (so its key is always
 * written), judged by kind alone; any kind not listed may be `undefined`
 * (optional, pipes, kinds this file does not know), and its key is written
 * only when its value is defined, as zod does.
 */
function alwaysDefined(node: Node): boolean {
  const def = node._zod.def;
  switch (def.type) {
    case "string":
    case "number":
    case "boolean":
    case "object":
    case "array":
    case "record":
      return true;
    case "literal":
    case "enum":
      return node._zod.values !== undefined && !node._zod.values.has(undefined);
    case "nullable":
      return alwaysDefined(def.innerType!);
    case "default":
      return def.defaultValue !== undefined;
    case "union":
      return def.options!.every(alwaysDefined);
    default:
      return false;
  }
}

/** Up to this many optional keys, one object literal per combination of present ones. */
const MAX_LITERAL_VARIANTS_LOG2 = 3;

/**
 * The object checker as straight-line code (as zod's own JIT does), built
 * once per object node: one read, one checker call and one failure test per
 * key, then one object literal in the shape's key order. A key whose result
 * may be `undefined` (`optional`: see {@link alwaysDefined}) is left out when
 * it is: one literal per combination of such keys present (up to
 * {@link MAX_LITERAL_VARIANTS_LOG2} of them), else a spread of `{key: value}`
 * or of an empty object. A checker with statements ({@link InlineParse})
 * runs inline, any other is called. The generated text holds only the keys
 * (as JSON string literals), indices, bounds and labels; the checkers and
 * constants are arguments.
 */
function compileObject(
  keys: string[],
  parsers: InlineParse[],
  optional: boolean[],
  strict: boolean,
): Parse {
  const lines = [
    'if (typeof v !== "object" || v === null || Array.isArray(v)) return FAIL;',
    "let present = 0;",
  ];
  const k: unknown[] = [];
  keys.forEach((key, i) => {
    lines.push(`const v${i} = v[${JSON.stringify(key)}];`);
    lines.push(`if (v${i} !== undefined) present++;`);
    lines.push(`let r${i};`);
    lines.push(inlineOf(parsers[i])({ input: `v${i}`, output: `r${i}`, fail: "return FAIL;", k }));
    // zod writes a present key even when its result is undefined: not a row this path builds
    if (optional[i]) lines.push(`if (r${i} === undefined && v${i} !== undefined) return FAIL;`);
  });
  if (strict) {
    lines.push("let own = 0;", "for (const _ in v) own++;", "if (own !== present) return FAIL;");
  }
  const optionals = keys.map((_, i) => i).filter((i) => optional[i]);
  const entry = (i: number) => `${JSON.stringify(keys[i])}: r${i}`;
  if (optionals.length <= MAX_LITERAL_VARIANTS_LOG2) {
    const mask = optionals.map((i, bit) => `(r${i} === undefined ? 0 : ${1 << bit})`);
    lines.push(`switch (${mask.length === 0 ? "0" : mask.join(" | ")}) {`);
    for (let variant = 0; variant < 1 << optionals.length; variant++) {
      const included = keys.map((_, i) => i).filter((i) =>
        !optional[i] || (variant & (1 << optionals.indexOf(i))) !== 0
      );
      lines.push(`case ${variant}: return { ${included.map(entry).join(", ")} };`);
    }
    lines.push("}");
    lines.push("return FAIL;");
  } else {
    const fields = keys.map((_, i) =>
      optional[i] ? `...(r${i} === undefined ? NONE : { ${entry(i)} })` : entry(i)
    );
    lines.push(`return { ${fields.join(", ")} };`);
  }
  const factory = new Function("K", "FAIL", "NONE", `return (v) => {\n${lines.join("\n")}\n};`);
  return factory(k, FAIL, {}) as Parse;
}

/** A pipe into a transform: the input's checker, then the schema's own transform function. */
function pipe(node: Node, path: string, child: Child): Parse {
  const def = node._zod.def;
  const out = def.out!._zod.def;
  if (out.type !== "transform" || checksOf(def.out!).length > 0) {
    throw new Unsupported(`pipe into "${out.type}" at "${path}"`);
  }
  const input = child(def.in!, path);
  const transform = out.transform!;
  const payload: Payload = { value: undefined, issues: [] };
  return (v) => {
    const value = input(v);
    if (value === FAIL) return FAIL;
    payload.value = value;
    const result = transform(value, payload);
    payload.value = undefined;
    if (result instanceof Promise || payload.issues.length > 0) {
      payload.issues = [];
      return FAIL;
    }
    return result;
  };
}

/** refine and superRefine: the schema's own check function, on zod's payload. */
function withCustomChecks(parse: Parse, checks: Node[]): Parse {
  for (const check of checks) {
    if (check._zod.def.when !== undefined || check._zod.check === undefined) {
      throw new Unsupported("conditional custom check");
    }
  }
  const run = checks.map((check) => check._zod.check!);
  // one payload, reused: the checks are synchronous and a row with an issue is zod's to word
  // (superRefine sets `payload.addIssue` on every call, a cheap store once the key exists)
  const payload: Payload = { value: undefined, issues: [] };
  return (v) => {
    const value = parse(v);
    if (value === FAIL) return FAIL;
    payload.value = value;
    for (const check of run) {
      if (check(payload) instanceof Promise || payload.issues.length > 0) {
        payload.issues = [];
        return FAIL;
      }
    }
    payload.value = undefined;
    return value;
  };
}

/** A delegated node: its own zod schema (the absent and null results cached when primitive). */
function viaZod(node: Node): Parse {
  const cache = (value: unknown): { hit: boolean; value: unknown } => {
    const result = node.safeParse(value);
    if (!result.success) return { hit: true, value: FAIL };
    const data = result.data;
    return { hit: data === null || data === undefined || typeof data !== "object", value: data };
  };
  const absent = cache(undefined);
  const nul = cache(null);
  return (v) => {
    if (v === undefined && absent.hit) return absent.value;
    if (v === null && nul.hit) return nul.value;
    const result = node.safeParse(v);
    return result.success ? result.data : FAIL;
  };
}

const EPISODE = deriveFastParser(EpisodeSchema);

/** Whether the fast path is on: the derivation understood `Episode`'s root. */
export const FAST_PATH_ENABLED: boolean = EPISODE.derived;

/** Paths of `Episode`'s nodes left to their own zod schema (none today; the test pins it). */
export const EPISODE_DELEGATED: readonly string[] = EPISODE.delegated;

/**
 * Parses a JSON object as an {@link Episode} when it is a well-formed row,
 * with exactly the value `Episode.safeParse(raw).data` would give (same keys,
 * key order, defaults and omissions); returns `undefined` for anything else,
 * leaving the verdict and the message to zod. The checker is derived from
 * the `Episode` schema ({@linkcode deriveFastParser}); seed 001's row with
 * the defaults of `analysis/schema/records.ts`. O(row size).
 *
 * @param raw the parsed JSON object of one line
 * @returns the row, or `undefined` when zod must decide
 */
export function fastEpisode(raw: Record<string, unknown>): Episode | undefined {
  return EPISODE.parse(raw);
}
