/**
 * The notebooks' parameters (issue 25: three of six notebooks failed on a
 * researcher's own ledger without code edits). Every notebook's first code
 * cell (tagged `parameters`) reads its inputs through this module, so that
 * they all follow the same rules:
 *
 * - each input comes from the environment variable of the same name
 *   (`LEDGER=out/run.jsonl jupyter nbconvert --execute ...`); unset means
 *   its documented default, an empty value means none;
 * - an optional input is really optional: none skips the part that needs
 *   it, a required one (the ledger) refuses to be empty;
 * - a relative path resolves from the directory the user ran Jupyter or
 *   nbconvert from ({@link userDirectory}), not from `notebooks/`, where
 *   the kernel runs; a default resolves from the repository;
 * - the example inputs (plan, errata, price table, ...) go with the example
 *   ledger only: once `LEDGER` names another ledger they default to none,
 *   so a researcher's ledger is never checked against the example's plan;
 * - the task list defaults to the one `import` wrote beside the ledger
 *   (`findTaskListBeside`), unless a plan is the denominator;
 * - a path that does not exist is refused in one sentence that names the
 *   variable, the path as given and where it was resolved from.
 *
 * Every value read is recorded, so that a notebook can show its inputs and
 * where each came from ({@link Parameters.inputs}).
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { findTaskListBeside } from "../inputs/task_list.ts";

/** The repository's root directory (absolute), where the defaults resolve from. */
export const REPOSITORY_ROOT: string = decodeURIComponent(new URL("../", import.meta.url).pathname)
  .replace(/\/$/, "");

/**
 * The variable that names the directory relative paths resolve from, for a
 * program that starts Jupyter in a directory without setting `PWD` to it.
 */
export const CWD_VARIABLE = "LEDGERBENCH_CWD";

/** Where relative paths given by the user resolve from, and why. */
export interface UserDirectory {
  /** The directory, absolute. */
  path: string;
  /** What named it: the explicit variable, the shell's `PWD`, or the kernel's own directory. */
  from: typeof CWD_VARIABLE | "PWD" | "kernel";
}

/** The environment as this module reads it (a `Deno.env` fits; tests pass a Map). */
export interface Environment {
  get(name: string): string | undefined;
}

/**
 * The directory the user ran Jupyter or nbconvert from, where the relative
 * paths they give resolve from.
 *
 * Rule: Jupyter starts the kernel with its working directory set to the
 * notebook's folder, but passes its own environment on unchanged, so `PWD`
 * (which the shell sets to the directory a command was typed in) still
 * names the user's directory; for a JupyterLab server it is the directory
 * the server was started from, the root of its file browser. In order:
 * {@link CWD_VARIABLE} when set (absolute, or resolved from the kernel's
 * directory), else `PWD` when it is an absolute path, else the kernel's
 * working directory.
 *
 * @param env the environment (default `Deno.env`)
 * @returns the directory and what named it
 * @example
 * ```ts
 * import { userDirectory } from "./parameters.ts";
 * const dir = userDirectory(new Map([["PWD", "/data"], ["LEDGERBENCH_CWD", "/work"]]));
 * if (dir.path !== "/work" || dir.from !== "LEDGERBENCH_CWD") throw new Error(JSON.stringify(dir));
 * ```
 */
export function userDirectory(env: Environment = Deno.env): UserDirectory {
  const explicit = env.get(CWD_VARIABLE) ?? "";
  if (explicit !== "") return { path: resolve(Deno.cwd(), explicit), from: CWD_VARIABLE };
  const pwd = env.get("PWD") ?? "";
  if (pwd !== "" && isAbsolute(pwd)) return { path: resolve(pwd), from: "PWD" };
  return { path: Deno.cwd(), from: "kernel" };
}

/** How a parameter got its value. */
export type ParameterSource =
  | "environment"
  | "default"
  | "example default"
  | "none"
  | "beside the ledger";

/** One input a notebook read, as shown in its inputs table. */
export interface ParameterRecord {
  /** The variable. */
  name: string;
  /** The value used: an absolute path, a number or text; null for none. */
  value: string | number | null;
  /** How it got its value. */
  source: ParameterSource;
  /** A few words on why (e.g. why an example default does not apply); "" when nothing to say. */
  note: string;
}

/** Options of {@link Parameters.path}. */
export interface PathOptions {
  /**
   * The default, relative to the repository root; it applies whenever the
   * variable is unset. Give `example` instead for an input that goes with
   * the example ledger only.
   */
  default?: string;
  /**
   * The default for the example ledger, relative to the repository root:
   * it applies only while `LEDGER` is unset too; otherwise none.
   */
  example?: string;
  /** True: none is refused (the notebook cannot run without it). Default false. */
  required?: boolean;
}

/** A refused parameter: one sentence, without a stack (a notebook shows it as the cell's error). */
export class ParameterError extends Error {
  /** @param message the sentence */
  constructor(message: string) {
    super(message);
    this.name = "ParameterError";
    this.stack = `${this.name}: ${message}`;
  }
}

const FROM_WORDS: Record<UserDirectory["from"], string> = {
  [CWD_VARIABLE]: CWD_VARIABLE,
  PWD: "PWD, the directory Jupyter was started from",
  kernel: "the kernel's working directory, as neither LEDGERBENCH_CWD nor PWD is set",
};

/**
 * The parameters of one notebook: read them in its `parameters` cell, then
 * show {@link Parameters.inputs} beside what the notebook loaded.
 */
export class Parameters {
  /** Where relative paths resolve from. */
  readonly directory: UserDirectory;
  readonly #env: Environment;
  readonly #records: ParameterRecord[] = [];

  /**
   * @param env the environment (default `Deno.env`)
   */
  constructor(env: Environment = Deno.env) {
    this.#env = env;
    this.directory = userDirectory(env);
  }

  /** True while `LEDGER` is unset: the example inputs go with it. */
  get exampleLedger(): boolean {
    return this.#env.get("LEDGER") === undefined;
  }

  /** Every parameter read so far, in order. */
  get inputs(): readonly ParameterRecord[] {
    return this.#records;
  }

  /**
   * A path parameter (module doc): the variable's value resolved from
   * {@link userDirectory}; unset, the default (or, with the example ledger,
   * the example default) resolved from the repository; empty, none.
   *
   * @param name the variable, e.g. `"PLAN"`
   * @param options the default or example default, and whether it is required
   * @returns the absolute path, or null for none
   * @throws {ParameterError} when the path does not exist, or a required one is none:
   *   `Cannot read LEDGER: "out/run.jsonl" resolved from /home/me (PWD, the directory
   *   Jupyter was started from) is /home/me/out/run.jsonl, which does not exist`
   */
  path(name: string, options: PathOptions = {}): string | null {
    const given = this.#env.get(name);
    let source: ParameterSource;
    let note = "";
    let path: string | null;
    if (given !== undefined && given !== "") {
      source = "environment";
      path = resolve(this.directory.path, given);
      if (!exists(path)) {
        throw new ParameterError(
          `Cannot read ${name}: "${given}" resolved from ${this.directory.path} (${
            FROM_WORDS[this.directory.from]
          }) is ${path}, which does not exist`,
        );
      }
    } else if (given === "") {
      source = "none";
      path = null;
      note = `${name} is empty`;
    } else if (options.default !== undefined) {
      source = "default";
      path = join(REPOSITORY_ROOT, options.default);
    } else if (options.example !== undefined && this.exampleLedger) {
      source = "example default";
      path = join(REPOSITORY_ROOT, options.example);
    } else {
      source = "none";
      path = null;
      note = options.example !== undefined
        ? `the example's ${name} goes with the example ledger only, and LEDGER is set`
        : `${name} is not set`;
    }
    if (path === null && options.required === true) {
      throw new ParameterError(
        `Cannot run without ${name}: set it to a file (relative paths resolve from ${this.directory.path})`,
      );
    }
    this.#records.push({ name, value: path, source, note });
    return path;
  }

  /**
   * The task list, the denominator of an imported ledger (issue 25: only
   * one notebook took one, so the others ranked an agent missing 23% of
   * its tasks second). `TASKS` set: that file; empty: none; unset: none
   * when a plan is given (the plan's tasks are the denominator), else the
   * task list `import` wrote beside the ledger when there is one
   * (`findTaskListBeside`), else the example default. A plan and a task
   * list are never both used: given both, the one set in the environment
   * wins over a default, and both set is refused.
   *
   * @param ledger the ledger's path ({@link Parameters.path})
   * @param plan the plan's path, or null; read before this call
   * @param options the example default (relative to the repository)
   * @returns the absolute path, or null for none
   * @throws {ParameterError} when the path does not exist, or `PLAN` and `TASKS` are both set
   */
  async taskList(
    ledger: string,
    plan: string | null,
    options: { example?: string } = {},
  ): Promise<string | null> {
    const given = this.#env.get("TASKS");
    if (given !== undefined && given !== "") {
      if (plan !== null) {
        const planRecord = this.#records.find((r) => r.name === "PLAN");
        if (planRecord?.source === "environment") {
          throw new ParameterError(
            "Cannot use both PLAN and TASKS: the plan's tasks are the denominator, so set one of them",
          );
        }
      }
      return this.path("TASKS");
    }
    if (given === "" || plan !== null) {
      this.#records.push({
        name: "TASKS",
        value: null,
        source: "none",
        note: given === "" ? "TASKS is empty" : "the plan's tasks are the denominator",
      });
      return null;
    }
    const beside = await findTaskListBeside(ledger);
    if (beside !== null) {
      this.#records.push({
        name: "TASKS",
        value: beside,
        source: "beside the ledger",
        note: "the task list import wrote beside the ledger: missing tasks count",
      });
      return beside;
    }
    return this.path("TASKS", { example: options.example });
  }

  /**
   * A number parameter: the variable's value, else the default (null: none).
   *
   * @param name the variable
   * @param fallback the default
   * @returns the number, or null
   * @throws {ParameterError} when the value is not a finite number
   */
  number(name: string, fallback: number | null): number | null {
    const given = this.#env.get(name);
    if (given === undefined || given === "") {
      this.#records.push({
        name,
        value: given === "" ? null : fallback,
        source: given === "" || fallback === null ? "none" : "default",
        note: "",
      });
      return given === "" ? null : fallback;
    }
    const value = Number(given);
    if (given.trim() === "" || !Number.isFinite(value)) {
      throw new ParameterError(`Cannot read ${name}: "${given}" is not a number`);
    }
    this.#records.push({ name, value, source: "environment", note: "" });
    return value;
  }

  /**
   * A text parameter: the variable's value, else the default (null: none;
   * empty means none).
   *
   * @param name the variable
   * @param fallback the default
   * @param options `example`: the default is the example's, and applies only when this is true
   *   (e.g. `parameters.exampleLedger`)
   * @returns the text, or null
   */
  text(name: string, fallback: string | null, options: { example?: boolean } = {}): string | null {
    const given = this.#env.get(name);
    const useDefault = options.example ?? true;
    const value = given === undefined
      ? (useDefault ? fallback : null)
      : given === ""
      ? null
      : given;
    this.#records.push({
      name,
      value,
      source: given !== undefined && given !== ""
        ? "environment"
        : value === null
        ? "none"
        : options.example !== undefined
        ? "example default"
        : "default",
      note: given === undefined && !useDefault && fallback !== null
        ? `the example's ${name} goes with the example's inputs only`
        : given === ""
        ? `${name} is empty`
        : "",
    });
    return value;
  }

  /**
   * The inputs as table rows, with the directory relative paths resolved from.
   *
   * @returns one row per parameter read, then the directory
   */
  rows(): { parameter: string; value: string | number | null; from: string }[] {
    return [
      ...this.#records.map((r) => ({
        parameter: r.name,
        value: r.value,
        from: r.note === "" ? r.source : `${r.source} (${r.note})`,
      })),
      {
        parameter: "relative paths resolve from",
        value: this.directory.path,
        from: FROM_WORDS[this.directory.from],
      },
    ];
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
