/**
 * Argument parsing for every subcommand, on `node:util` `parseArgs` (strict):
 * unknown options, missing values, repeated options and stray positionals
 * become {@link UsageError}s; numeric options are checked against a
 * documented range, seeds read by one rule, and list options split here, so
 * that the commands receive typed values.
 *
 * The common command line (long options by their declared names, values as
 * `--name value` or `--name=value`, positionals) is read by
 * {@link simpleParse}, which gives what `parseArgs` gives for it; anything
 * else (a short option, `--`, an unknown option, a missing or ambiguous
 * value) goes to `parseArgs` itself, loaded then: loading `node:util` (the
 * Node compatibility layer) took a large share of `summarize`'s start-up.
 *
 * @module
 */
import type { ParseArgsOptionsConfig } from "node:util";
import { UsageError } from "./_command.ts";

/** Options every command accepts. */
export const COMMON_OPTIONS = {
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
} as const satisfies ParseArgsOptionsConfig;

/** Parsed arguments: option values keyed by long name, and positionals. */
export interface ParsedArgs {
  values: Record<string, string | string[] | boolean | undefined>;
  positionals: string[];
}

/**
 * Parses `args` strictly against `options` (plus {@link COMMON_OPTIONS}) and
 * checks the number of positionals. Rules beyond `parseArgs`'s own:
 *
 * - an option given twice is a usage error unless it is declared
 *   `multiple: true` (the last value used to win silently; issue 10);
 * - a value that looks like a negative number (`--rounds -1`) is the
 *   option's value, as `--rounds=-1` is, so that its range refuses it
 *   instead of "needs a value".
 *
 * @param args the arguments after the command name
 * @param options the command's own options (all `type: "string"` or `"boolean"`)
 * @param positionals names of the required positionals, e.g. `["LEDGER"]`;
 *   `optional` adds that many optional ones
 * @throws {UsageError} on any parse problem
 */
export function parseCommandArgs(
  args: string[],
  options: ParseArgsOptionsConfig,
  positionals: { required: string[]; optional?: number } = { required: [] },
): ParsedArgs {
  const all = { ...COMMON_OPTIONS, ...options };
  const joined = joinNegativeValues(args, all);
  let parsed = simpleParse(joined, all);
  if (parsed === null) {
    try {
      parsed = nodeUtil().parseArgs({
        args: joined,
        options: all,
        allowPositionals: true,
        strict: true,
        tokens: true,
      });
    } catch (error) {
      throw new UsageError(describeParseError(error));
    }
  }
  refuseRepeats(parsed.tokens, all);
  const given = parsed.positionals;
  const { required, optional = 0 } = positionals;
  if (given.length < required.length) {
    throw new UsageError(`Missing argument: ${required.slice(given.length).join(" ")}`);
  }
  if (given.length > required.length + optional) {
    const extra = given.slice(required.length + optional);
    throw new UsageError(`Unexpected argument: "${extra[0]}"`);
  }
  return { values: parsed.values as ParsedArgs["values"], positionals: given };
}

type NodeUtil = typeof import("node:util");

/** `node:util`, loaded on first use (`process.getBuiltinModule`, synchronous). */
function nodeUtil(): NodeUtil {
  const process = (globalThis as unknown as {
    process: { getBuiltinModule(id: "node:util"): NodeUtil };
  }).process;
  return process.getBuiltinModule("node:util");
}

/** What {@link simpleParse} gives: `parseArgs`'s values, positionals and option tokens. */
interface SimpleParse {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
  tokens: { kind: string; name?: string }[];
}

/**
 * `parseArgs` (strict, positionals allowed, no defaults) of a command line
 * that only it reads one way: every argument starting with `-` is a
 * declared long option, a boolean without `=value`, a string with
 * `=value` or followed by a value not starting with `-` (Node.js
 * `util.parseArgs`: such a value is the option's; a string option without
 * one is an error). Null for anything else, which `parseArgs` itself then
 * reads or refuses with its own message.
 */
function simpleParse(args: string[], options: ParseArgsOptionsConfig): SimpleParse | null {
  const values: SimpleParse["values"] = { __proto__: null } as unknown as SimpleParse["values"];
  const positionals: string[] = [];
  const tokens: SimpleParse["tokens"] = [];
  const set = (name: string, value: string | boolean) => {
    if (options[name].multiple === true) {
      ((values[name] ??= []) as (string | boolean)[]).push(value);
    } else {
      values[name] = value;
    }
    tokens.push({ kind: "option", name });
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") return null;
    const equals = arg.indexOf("=");
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    if (!Object.hasOwn(options, name) || options[name].default !== undefined) return null;
    if (options[name].type === "boolean") {
      if (equals !== -1) return null;
      set(name, true);
    } else if (equals !== -1) {
      set(name, arg.slice(equals + 1));
    } else {
      const value = args[i + 1];
      if (value === undefined || value.startsWith("-")) return null;
      set(name, value);
      i++;
    }
  }
  return { values, positionals, tokens };
}

/** A negative decimal number, as a value may be written: `-1`, `-0.5`, `-.5`, `-1e3`. */
const NEGATIVE_NUMBER = /^-(\d|\.\d)/;

/**
 * Rewrites `--name -1` as `--name=-1` for every string option, before any
 * `--` terminator, so that `parseArgs` reads the negative number as the value.
 */
function joinNegativeValues(args: string[], options: ParseArgsOptionsConfig): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return [...out, ...args.slice(i)];
    const name = arg.startsWith("--") ? arg.slice(2) : null;
    const next = args[i + 1];
    const takesValue = name !== null && Object.hasOwn(options, name) &&
      options[name].type === "string";
    if (takesValue && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** Throws on the first option given more than once that is not declared `multiple`. */
function refuseRepeats(
  tokens: ReadonlyArray<{ kind: string; name?: string }>,
  options: ParseArgsOptionsConfig,
): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option" || token.name === undefined) continue;
    if (options[token.name]?.multiple === true) continue;
    if (seen.has(token.name)) {
      throw new UsageError(`Option "--${token.name}" is given more than once`);
    }
    seen.add(token.name);
  }
}

function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const option = /'(-[^']*)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) return `Unknown option: "${option}"`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option) {
    return /argument missing/.test(message)
      ? `Option "${option.split(" ")[0]}" needs a value`
      : `Option "${option.split(" ")[0]}" takes no value`;
  }
  return `Cannot parse arguments: ${message}`;
}

/** The lower end of a {@link NumberRange}: inclusive `min` or exclusive `above`. */
export type LowerBound = { min: number; above?: never } | { above: number; min?: never };
/** The upper end of a {@link NumberRange}: inclusive `max` or exclusive `below`. */
export type UpperBound = { max: number; below?: never } | { below: number; max?: never };

/**
 * The documented range of a numeric option: both ends are required, so that
 * every value the CLI accepts keeps a run finite and memory-safe (issue 10).
 */
export type NumberRange = LowerBound & UpperBound & { integer?: boolean };

/**
 * The range as help texts show it: `1..1000000` when both ends are
 * inclusive, else e.g. `above 0, below 1`.
 *
 * @example
 * ```ts
 * import { rangeText } from "./_args.ts";
 * if (rangeText({ min: 1, max: 1000, integer: true }) !== "1..1000") throw new Error();
 * if (rangeText({ above: 0, below: 1 }) !== "above 0, below 1") throw new Error();
 * ```
 */
export function rangeText(range: NumberRange): string {
  if (range.min !== undefined && range.max !== undefined) return `${range.min}..${range.max}`;
  const lower = range.min !== undefined ? `at least ${range.min}` : `above ${range.above}`;
  const upper = range.max !== undefined ? `at most ${range.max}` : `below ${range.below}`;
  return `${lower}, ${upper}`;
}

/** The checks of a zod 4 number schema, as its `_zod.bag` holds them. */
interface NumberChecks {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  format?: string;
}

/** A zod 4 schema, possibly wrapped (`.default()`, `.optional()`, `.nullable()`). */
export interface SchemaLike {
  _zod: { bag: object };
  unwrap?: () => SchemaLike;
}

/**
 * The range of a zod number schema (read from its checks, `_zod.bag`, after
 * unwrapping defaults, optionals and nullables), so that an option mirroring
 * a plan field takes exactly that field's range (issue 10: `compare --band 2`
 * was accepted while a plan with `tie_band: 2` was refused). An integer
 * schema's exclusive ends become inclusive ones (`positive()` → `min: 1`).
 * Every plan field an option mirrors has both ends in the schema (the upper
 * ends a run can afford are `PLAN_LIMITS`).
 *
 * @param schema the plan schema's field, e.g. `Plan.shape.tie_band`
 * @returns the range, both ends set
 */
export function schemaRange(schema: SchemaLike): NumberRange {
  let inner = schema;
  while (typeof inner.unwrap === "function") inner = inner.unwrap();
  const bag = inner._zod.bag as NumberChecks;
  const integer = bag.format !== undefined && /int/.test(bag.format);
  return { ...lowerEnd(bag, integer), ...upperEnd(bag, integer), integer };
}

/** The tighter of a schema's inclusive and exclusive lower ends (an integer's becomes inclusive). */
function lowerEnd(bag: NumberChecks, integer: boolean): LowerBound {
  const min = bag.minimum ?? -Infinity;
  const above = bag.exclusiveMinimum;
  if (above !== undefined && above >= min) {
    return integer ? { min: Math.floor(above) + 1 } : { above };
  }
  if (min === -Infinity) throw new Error("schemaRange: the schema has no lower end");
  return { min };
}

/** The tighter of a schema's inclusive and exclusive upper ends (an integer's becomes inclusive). */
function upperEnd(bag: NumberChecks, integer: boolean): UpperBound {
  const max = bag.maximum ?? Infinity;
  const below = bag.exclusiveMaximum;
  if (below !== undefined && below <= max) {
    return integer ? { max: Math.ceil(below) - 1 } : { below };
  }
  if (max === Infinity) throw new Error("schemaRange: the schema has no upper end");
  return { max };
}

/**
 * Parses one number from option `name` and checks it against `range`.
 *
 * @throws {UsageError} when the text is not a finite number within the range,
 *   e.g. `Option "--rounds" must be an integer of at least 1: "-1"`
 */
function parseNumber(text: string, name: string, range: NumberRange): number {
  const value = text.trim() === "" ? NaN : Number(text);
  const kind = range.integer ? "an integer" : "a number";
  if (!Number.isFinite(value) || (range.integer && !Number.isInteger(value))) {
    throw new UsageError(`Option "--${name}" must be ${kind}: "${text}"`);
  }
  const fail = (rule: string) => {
    throw new UsageError(`Option "--${name}" must be ${kind} ${rule}: "${text}"`);
  };
  if (range.min !== undefined && value < range.min) fail(`of at least ${range.min}`);
  if (range.max !== undefined && value > range.max) fail(`of at most ${range.max}`);
  if (range.above !== undefined && value <= range.above) fail(`above ${range.above}`);
  if (range.below !== undefined && value >= range.below) fail(`below ${range.below}`);
  return value;
}

/** A numeric option: its name (without `--`) and its documented range. */
export interface NumberOption {
  name: string;
  range: NumberRange;
}

/**
 * Reads a numeric option checked against its range, or `undefined` when it
 * is absent (the caller supplies the default, from `analysis/defaults.ts`
 * or the plan).
 *
 * @param values the parsed options
 * @param option the option's `name` and `range`
 * @returns the value, or undefined
 * @throws {UsageError} when the value is malformed or out of range
 */
export function numberOption(
  values: ParsedArgs["values"],
  option: NumberOption,
): number | undefined {
  const text = stringOption(values, option.name);
  return text === undefined ? undefined : parseNumber(text, option.name, option.range);
}

/**
 * Reads a comma-separated list of numbers (`--rates 0.3,0.5`), each checked
 * against the option's range, or `undefined` when the option is absent.
 *
 * @param values the parsed options
 * @param option the option's `name` and the `range` every item must lie in
 * @returns the values, or undefined
 * @throws {UsageError} when the list is empty or an item is malformed or out of range
 */
export function numberListOption(
  values: ParsedArgs["values"],
  option: NumberOption,
): number[] | undefined {
  const text = stringOption(values, option.name);
  if (text === undefined) return undefined;
  const items = text.split(",").map((item) => item.trim());
  if (items.some((item) => item === "")) {
    throw new UsageError(
      `Option "--${option.name}" must be a comma-separated list of numbers: "${text}"`,
    );
  }
  return items.map((item) => parseNumber(item, option.name, option.range));
}

/**
 * Reads a comma-separated list of names (`--agents a,b`).
 *
 * @throws {UsageError} when an item is empty
 */
export function nameListOption(values: ParsedArgs["values"], name: string): string[] | undefined {
  const text = values[name];
  if (text === undefined) return undefined;
  const items = String(text).split(",").map((item) => item.trim());
  if (items.some((item) => item === "")) {
    throw new UsageError(`Option "--${name}" must be a comma-separated list of names: "${text}"`);
  }
  return items;
}

/** Reads a string option, or `undefined` when absent. */
export function stringOption(values: ParsedArgs["values"], name: string): string | undefined {
  const value = values[name];
  return value === undefined ? undefined : String(value);
}

/** A schema that can check one value (any zod schema). */
export interface Checker {
  safeParse(value: unknown): { success: boolean };
}

/** A text option checked against the schema of the field it sets. */
export interface TextOption {
  /** The option's name, without `--`. */
  name: string;
  /** The schema of the field the value goes into, e.g. `Plan.shape.plan_id`. */
  schema: Checker;
  /** The form the schema wants, for the message: `an ISO 8601 UTC datetime such as ...`. */
  form: string;
}

/**
 * Reads a text option and checks it against the schema of the record field
 * it sets, where the option is parsed, so that a malformed id, digest or
 * date is a usage error naming the option (issue 10: `errata append
 * --created-at yesterday` was blamed on line 1 of a file that did not exist).
 *
 * @param values the parsed options
 * @param option the option's `name`, the field's `schema` and the `form` it wants
 * @returns the value, or undefined when the option is absent
 * @throws {UsageError} `Option "--<name>" must be <form>: "<value>"`
 */
export function textOption(
  values: ParsedArgs["values"],
  option: TextOption,
): string | undefined {
  const value = stringOption(values, option.name);
  if (value !== undefined && !option.schema.safeParse(value).success) {
    throw new UsageError(`Option "--${option.name}" must be ${option.form}: "${value}"`);
  }
  return value;
}

/** The option {@link choiceOption} reads: its name, the values it allows and its fallback. */
export interface ChoiceOptionSpec<C extends string> {
  /** The option's name, without `--`. */
  name: string;
  /** The values allowed. */
  choices: readonly C[];
  /** What is returned when the option is absent. */
  fallback: C;
}

/**
 * Reads an option whose value must be one of `spec.choices`, or returns
 * `spec.fallback` when it is absent.
 *
 * @param values the parsed options
 * @param spec the option's `name`, its `choices` and its `fallback`
 * @returns the value, or the fallback
 * @throws {UsageError} on any other value
 */
export function choiceOption<C extends string>(
  values: ParsedArgs["values"],
  spec: ChoiceOptionSpec<C>,
): C {
  const { name, choices, fallback } = spec;
  const value = values[name];
  if (value === undefined) return fallback;
  if (!choices.includes(value as C)) {
    const list = choices.map((choice) => `"${choice}"`).join(", ");
    throw new UsageError(`Option "--${name}" must be one of ${list}: "${value}"`);
  }
  return value as C;
}

/**
 * The one rule for every seed the CLI reads (`--seed`, `--bootstrap-seed`,
 * `--order-seed`, calibrate's `--seed`): a decimal integer (an optional
 * minus sign and digits, leading zeros allowed) that is a safe integer is
 * recorded as that number, so `7`, `007` and the default `7` are one seed
 * and record the same bytes; any other text (`abc`, `1.5`,
 * `99999999999999999999`) is recorded as the string given. Both forms fit
 * the plan schema's `z.union([z.number().int(), z.string()])`; the
 * generators seed with `String(seed)` (`analysis/seeded_random.ts`), so a
 * number and its decimal string give the same stream.
 *
 * @param text the option's value
 * @param name the option's name, without `--`
 * @returns the seed to record
 * @throws {UsageError} when the text is empty
 * @example
 * ```ts
 * import { parseSeed } from "./_args.ts";
 * if (parseSeed("007", "seed") !== 7 || parseSeed("7", "seed") !== 7) throw new Error();
 * if (parseSeed("abc", "seed") !== "abc") throw new Error();
 * ```
 */
export function parseSeed(text: string, name: string): number | string {
  if (text === "") throw new UsageError(`Option "--${name}" must not be empty`);
  const value = Number(text);
  if (!/^-?[0-9]+$/.test(text) || !Number.isSafeInteger(value)) return text;
  return value === 0 ? 0 : value;
}

/**
 * Reads a seed option by {@link parseSeed}'s rule, or `undefined` when it is absent.
 *
 * @throws {UsageError} when the value is empty
 */
export function seedOption(
  values: ParsedArgs["values"],
  name = "seed",
): number | string | undefined {
  const text = stringOption(values, name);
  return text === undefined ? undefined : parseSeed(text, name);
}
