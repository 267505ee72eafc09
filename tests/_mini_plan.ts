/**
 * The plan the CLI's kill, resume, lock and engine-fault tests share: the
 * `mini` suite generated from a seed file, frozen through the real `freeze`
 * command, the `run` arguments that go with it, two solvers' scripted
 * providers, and the run's containers on the engine.
 *
 * @module
 */
import { equal } from "node:assert/strict";
import { loadSuite } from "../inputs/suite.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import type { Suite } from "../analysis/schema/suite_manifest.ts";
import { cli } from "./_cli_run.ts";

/** Options of {@linkcode freezeMiniPlan}. */
export interface MiniPlanOptions {
  /** The 64-hex suite seed. */
  seed: string;
  /** The plan id (and so the run id that labels the containers). */
  runId: string;
  /** The rest of `freeze`'s arguments: `--agent`s, caps, commands, order seed. */
  freezeArgs: readonly string[];
}

/**
 * Writes the seed file, generates the mini suite into `<dir>/suite` and
 * freezes `<dir>/plan.json` through the CLI, asserting that `freeze` exits 0.
 *
 * @param dir a fresh directory of the test's
 * @param options seed, run id and the agents' arguments
 * @returns the loaded suite
 */
export async function freezeMiniPlan(dir: string, options: MiniPlanOptions): Promise<Suite> {
  await Deno.writeTextFile(`${dir}/seed`, options.seed + "\n", { mode: 0o600 });
  const freeze = await cli(
    "freeze",
    "--without-agent-check",
    "the test freezes plans without an agent check",
    "--generate",
    "mini",
    "--seed-file",
    `${dir}/seed`,
    "--suite",
    `${dir}/suite`,
    "--out",
    `${dir}/plan.json`,
    "--plan-id",
    options.runId,
    ...options.freezeArgs,
  );
  equal(freeze.code, 0, freeze.stderr);
  return await loadSuite(`${dir}/suite`);
}

/**
 * The `run` arguments of the plan {@linkcode freezeMiniPlan} froze in `dir`.
 *
 * @param dir the directory holding `plan.json` and `suite/`
 * @param ledger the ledger to write
 * @param rest the remaining arguments (`--provider-script`s, `--parallel`, `--resume`)
 * @returns the argv after the CLI's name
 */
export function miniRunArgs(dir: string, ledger: string, rest: readonly string[]): string[] {
  return [
    "run",
    "--plan",
    `${dir}/plan.json`,
    "--suite",
    `${dir}/suite`,
    "--ledger",
    ledger,
    ...rest,
  ];
}

/**
 * Writes the scripted providers of two solver agents on `suite`: `a` always
 * right (model `m-a`), `b` right on half the tasks (model `m-b`,
 * `correctRate` 0.5), and returns their `--provider-script` arguments.
 *
 * @param dir where `a.json` and `b.json` go
 * @param suite the suite the scripts answer
 * @returns `["--provider-script", "a=...", "--provider-script", "b=..."]`
 */
export async function twoSolverScripts(dir: string, suite: Suite): Promise<string[]> {
  await Deno.writeTextFile(
    `${dir}/a.json`,
    JSON.stringify(await suiteProviderScript(suite, { model: "m-a" })),
  );
  await Deno.writeTextFile(
    `${dir}/b.json`,
    JSON.stringify(await suiteProviderScript(suite, { model: "m-b", correctRate: 0.5 })),
  );
  return ["--provider-script", `a=${dir}/a.json`, "--provider-script", `b=${dir}/b.json`];
}

/**
 * The ids of every container, running or not, labelled with run `runId`
 * on the shared engine.
 *
 * @param runId the plan id the runner labels its containers with
 * @returns container ids
 */
export function containersOf(runId: string): string[] {
  const out = new Deno.Command("docker", {
    args: ["ps", "-aq", "--filter", `label=ledgerbench.run=${runId}`],
    stdout: "piped",
  }).outputSync();
  return new TextDecoder().decode(out.stdout).split("\n").filter((line) => line !== "");
}
