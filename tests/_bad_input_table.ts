/**
 * The table-driven test of the CLI's answer to bad input (issue 10): each
 * case runs the CLI in this process (`cliInProcessWithEnv`: `main` of
 * `cli/main.ts` from the repository root, as a subprocess would run it, with
 * no fresh Deno start), in a fresh directory holding the files the case
 * writes, and checks the exit status, that stderr matches,
 * that no stack trace is printed and, for a usage error or bad input (1, 2),
 * that stderr opens with an `error: ...` (or `warning: ...`) line (a check
 * that said no, 3, states its verdict on stdout).
 *
 * Each area keeps its cases in its own `tests/bad_inputs_<area>_test.ts`,
 * which calls {@linkcode badInputTests}.
 *
 * @module
 */
import assert from "node:assert/strict";
import { cliInProcessWithEnv, ROOT } from "./_cli_run.ts";

/** One bad input and the answer the CLI must give. */
export interface BadInputCase {
  /** What is wrong, as the test name. */
  name: string;
  /**
   * Files written into the case's directory before the run, by name
   * relative to it: text, or bytes for encodings.
   */
  files?: Record<string, string | Uint8Array>;
  /**
   * The arguments after `cli/main.ts`. `{dir}` stands for the case's
   * directory; `{root}` for the repository root (e.g. `{root}/ledgers/...`).
   */
  args: string[];
  /** The expected exit status (1 usage, 2 bad input, 3 check said no). */
  code: 0 | 1 | 2 | 3;
  /** What stderr must match; `{dir}` (or `\{dir\}`) in its source stands for the directory. */
  stderr: RegExp;
  /** What stdout must match, when it matters. */
  stdout?: RegExp;
  /** Variables added to the environment (e.g. a `DOCKER_HOST` where no engine answers). */
  env?: Record<string, string>;
}

const STACK_LINE = /^\s+at .+\(?.*:\d+:\d+\)?$/m;

/** Replaces `{dir}` and `{root}` in one argument. */
function expand(text: string, dir: string): string {
  return text.replaceAll("{dir}", dir).replaceAll("{root}", ROOT.replace(/\/$/, ""));
}

/**
 * Registers one `Deno.test` per case. The CLI runs from the repository root
 * with `NO_COLOR=1`, as the `ledgerbench` task runs it (in this process).
 *
 * @param area the area's name, prefixed to every test name
 * @param cases the table
 */
export function badInputTests(area: string, cases: readonly BadInputCase[]): void {
  for (const testCase of cases) {
    Deno.test(`bad input (${area}): ${testCase.name}`, async () => {
      const dir = await Deno.makeTempDir({ prefix: "lb-bad-" });
      try {
        for (const [name, content] of Object.entries(testCase.files ?? {})) {
          const path = `${dir}/${name}`;
          await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
          if (typeof content === "string") await Deno.writeTextFile(path, content);
          else await Deno.writeFile(path, content);
        }
        const output = await cliInProcessWithEnv(
          testCase.env ?? {},
          ...testCase.args.map((a) => expand(a, dir)),
        );
        const { stderr, stdout } = output;
        const context = `\n--- stderr ---\n${stderr}--- stdout ---\n${stdout.slice(0, 2000)}`;
        assert.ok(!STACK_LINE.test(stderr), `a stack trace was printed${context}`);
        assert.equal(output.code, testCase.code, `exit status${context}`);
        const escaped = dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        const source = testCase.stderr.source.replaceAll("\\{dir\\}", escaped)
          .replaceAll("{dir}", escaped);
        const pattern = new RegExp(source, testCase.stderr.flags);
        assert.match(stderr, pattern, `stderr${context}`);
        if (testCase.stdout !== undefined) {
          assert.match(stdout, testCase.stdout, `stdout${context}`);
        }
        if (testCase.code === 1 || testCase.code === 2) {
          const first = stderr.split("\n")[0];
          assert.match(first, /^(error|warning): \S/, `first stderr line${context}`);
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
}
