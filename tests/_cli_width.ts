/**
 * The width checks of `tests/cli_width_test.ts` (and of its engine case,
 * `tests/cli_width_demo_test.ts`): each command line run at 80 and 100
 * columns, in this process (`cliInProcess`), every line of stdout and stderr
 * no wider than the width (`displayLength`: an ellipsis is one column).
 *
 * @module
 */
import assert from "node:assert/strict";
import { cliInProcess } from "./_cli_run.ts";
import { displayLength } from "../cli/_table_layout.ts";

/** Every line of `text` no wider than `width` display columns, or the first that is. */
export function assertFits(text: string, width: number, what: string): void {
  const wide = text.split("\n").find((line) => displayLength(line) > width);
  assert.equal(
    wide,
    undefined,
    `${what}: a line of ${displayLength(wide ?? "")} > ${width} columns:\n${wide}`,
  );
}

/** One command line, run at a width into a fresh scratch directory (`{dir}` in an argument). */
export type Case = {
  name: string;
  args: (dir: string) => string[];
  codes?: number[];
  json?: boolean;
};

/** Runs every case at 80 and 100 columns: stdout and stderr fit; the exit status is expected. */
export async function checkCases(cases: Case[]): Promise<void> {
  for (const c of cases) {
    for (const width of [80, 100]) {
      const dir = await Deno.makeTempDir({ prefix: "ledgerbench-cli-width-" });
      try {
        const result = await cliInProcess(...c.args(dir), "--width", String(width));
        const what = `${c.name} --width ${width}`;
        assert.ok((c.codes ?? [0]).includes(result.code), `${what}: ${result.stderr}`);
        assert.ok(result.stdout.length > 0, what);
        assertFits(result.stdout, width, what);
        assertFits(result.stderr, width, `${what} (stderr)`);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
  }
}

/** `--json` of each case the same bytes with and without `--width 80`. */
export async function checkJson(cases: Case[]): Promise<void> {
  for (const c of cases.filter((c) => c.json !== false)) {
    const outputs: string[] = [];
    for (const extra of [[], ["--width", "80"]]) {
      const dir = await Deno.makeTempDir({ prefix: "ledgerbench-cli-width-" });
      try {
        const result = await cliInProcess(...c.args(dir), "--json", ...extra);
        assert.ok((c.codes ?? [0]).includes(result.code), `${c.name} --json: ${result.stderr}`);
        // the scratch directory differs between the runs: compare the rest
        outputs.push(
          result.stdout.replaceAll(dir, "{dir}"),
        );
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
    assert.equal(outputs[1], outputs[0], c.name);
  }
}
