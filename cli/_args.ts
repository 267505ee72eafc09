/**
 * Argument parsing for every subcommand, on `node:util` `parseArgs` (strict):
 * unknown options, missing values and stray positionals become
 * {@link UsageError}s; numeric and list options are checked here so that the
 * commands receive typed values.
 *
 * @module
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { UsageError } from "./_command.ts";

/** Options every command accepts. */
export const COMMON_OPTIONS = {
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
} as const satisfies ParseArgsOptionsConfig;

/** Parsed arguments: option values keyed by long name, and positionals. */
export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Parses `args` strictly against `options` (plus {@link COMMON_OPTIONS}) and
 * checks the number of positionals.
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
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...COMMON_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(describeParseError(error));
  }
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

/** Bounds for {@link numberOption}. */
export interface NumberBounds {
  /** Inclusive minimum. */
  min?: number;
  /** Inclusive maximum. */
  max?: number;
  /** Exclusive minimum. */
  above?: number;
  /** Exclusive maximum. */
  below?: number;
  integer?: boolean;
}

/**
 * Parses one number from option `name`, checking bounds.
 *
 * @throws {UsageError} when the text is not a finite number within bounds
 */
export function parseNumber(text: string, name: string, bounds: NumberBounds = {}): number {
  const value = text.trim() === "" ? NaN : Number(text);
  const kind = bounds.integer ? "an integer" : "a number";
  if (!Number.isFinite(value) || (bounds.integer && !Number.isInteger(value))) {
    throw new UsageError(`Option "--${name}" must be ${kind}: "${text}"`);
  }
  const fail = (rule: string) => {
    throw new UsageError(`Option "--${name}" must be ${kind} ${rule}: "${text}"`);
  };
  if (bounds.min !== undefined && value < bounds.min) fail(`of at least ${bounds.min}`);
  if (bounds.max !== undefined && value > bounds.max) fail(`of at most ${bounds.max}`);
  if (bounds.above !== undefined && value <= bounds.above) fail(`above ${bounds.above}`);
  if (bounds.below !== undefined && value >= bounds.below) fail(`below ${bounds.below}`);
  return value;
}

/** Options of {@link numberOption} and {@link numberListOption}: a fallback and bounds. */
export interface NumberOptionOptions<F> extends NumberBounds {
  /** What is returned when the option is absent; default `undefined`. */
  fallback?: F;
}

/**
 * Reads a numeric option, or returns `options.fallback` when it is absent.
 *
 * @param values the parsed options
 * @param name the option's name, without `--`
 * @param options the `fallback` and the bounds (`min`, `max`, `above`, `below`, `integer`)
 * @returns the value, or the fallback
 * @throws {UsageError} when the value is malformed or out of bounds
 */
export function numberOption<F extends number | undefined = undefined>(
  values: ParsedArgs["values"],
  name: string,
  options: NumberOptionOptions<F> = {},
): number | F {
  const text = values[name];
  if (text === undefined) return options.fallback as F;
  return parseNumber(String(text), name, options);
}

/**
 * Reads a comma-separated list of numbers (`--rates 0.3,0.5`), or returns
 * `options.fallback` when the option is absent.
 *
 * @param values the parsed options
 * @param name the option's name, without `--`
 * @param options the `fallback` and the bounds every item must meet
 * @returns the values, or the fallback
 * @throws {UsageError} when the list is empty or an item is malformed
 */
export function numberListOption<F extends number[] | undefined = undefined>(
  values: ParsedArgs["values"],
  name: string,
  options: NumberOptionOptions<F> = {},
): number[] | F {
  const text = values[name];
  if (text === undefined) return options.fallback as F;
  const items = String(text).split(",").map((item) => item.trim());
  if (items.length === 0 || items.some((item) => item === "")) {
    throw new UsageError(`Option "--${name}" must be a comma-separated list of numbers: "${text}"`);
  }
  return items.map((item) => parseNumber(item, name, options));
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
 * Reads a seed option: an integer literal becomes a number (so `--seed 7`
 * records the same `7` as the default), anything else stays a string.
 */
export function seedOption(
  values: ParsedArgs["values"],
  name = "seed",
): number | string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const text = String(value);
  if (text === "") throw new UsageError(`Option "--${name}" must not be empty`);
  return /^-?(0|[1-9][0-9]{0,14})$/.test(text) ? Number(text) : text;
}
