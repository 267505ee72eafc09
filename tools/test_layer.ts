/**
 * The test suite in two layers, so that CI fails on a unit failure before
 * the long installs instead of after them (`.ci/run`):
 *
 * - `unit`: everything `deno test --doc` runs (every test file, every
 *   `@example` and Markdown code block) except the `system` files: no
 *   container engine, no Slurm, no Jupyter, no browser, no network beyond
 *   loopback; it passes on a machine with none of those installed.
 * - `system`: the test files listed in {@link SYSTEM}, each with what it
 *   needs that `unit` must not.
 *
 * The rule that no file escapes: `unit` is the complement of {@link SYSTEM}
 * within what `deno test --doc` runs, so every test file (and doc test) is
 * in exactly one layer, and `deno task test` (both, in one run) and
 * `deno task test:unit` then `deno task test:system` run the same tests.
 * A new test file lands in `unit`; if it needs the engine there, it fails
 * (`requireDockerEngine` fails under `CI=true` when no engine answers, and
 * `tools/test_layer_test.ts` fails on a `unit` file that shows a mark of
 * one, {@link SYSTEM_MARKS}), never skipped silently.
 *
 * Usage: `tools/deno run --allow-read --allow-run tools/test_layer.ts
 * unit|system [deno test options...]` runs `deno test --allow-all --doc`
 * on the layer (`deno task test:unit`, `deno task test:system`);
 * `... tools/test_layer.ts list unit|system` prints its test files.
 *
 * @module
 */

/** The layers, in the order CI runs them. */
export const LAYERS = ["unit", "system"] as const;
/** One layer of the suite. */
export type Layer = typeof LAYERS[number];

/**
 * The `system` layer: every test file that needs a container engine, a
 * Slurm cluster, Jupyter or a browser (or a test that runs only when one
 * answers), by path from the repository root, with what it needs.
 */
export const SYSTEM: Readonly<Record<string, string>> = {
  "runner/docker/docker_available_test.ts": "the Docker engine (its version, when one answers)",
  "runner/remove_orphans_test.ts": "the Docker engine",
  "tests/agent_check_test.ts": "the Docker engine",
  "tests/agent_network_test.ts": "the Docker engine",
  "tests/budget_attacks_test.ts": "the Docker engine",
  "tests/claude_code_test.ts": "the Docker engine",
  "tests/cli_width_demo_test.ts": "the Docker engine (the demo's episodes, when not kept)",
  "tests/codex_test.ts": "the Docker engine",
  "tests/doc_commands_test.ts": "the Docker engine and Jupyter",
  "tests/engine_faults_test.ts": "the Docker engine and a second engine",
  "tests/filler_test.ts": "the Docker engine",
  "tests/first_run_test.ts": "the Docker engine",
  "tests/gemini_cli_test.ts": "the Docker engine",
  "tests/hand_written_suite_test.ts": "the Docker engine",
  "tests/harbor_cookbook_test.ts": "the Docker engine",
  "tests/harbor_environment_test.ts": "the Docker engine",
  "tests/harbor_examples_test.ts": "the Docker engine",
  "tests/harbor_suite_test.ts": "the Docker engine",
  "tests/judge_test.ts": "the Docker engine",
  "tests/kill_resume_property_test.ts": "the Docker engine",
  "tests/multi_step_test.ts": "the Docker engine",
  "tests/notebooks_test.ts": "Jupyter with the Deno kernel",
  "tests/opencode_test.ts": "the Docker engine",
  "tests/other_machines_test.ts": "the Docker engine",
  "tests/podman_engine_test.ts": "the Docker engine and Podman",
  "tests/prebuilt_image_test.ts": "the Docker engine and the local registry",
  "tests/relay_attacks_test.ts": "the Docker engine",
  "tests/relay_test.ts": "the Docker engine",
  "tests/resume_test.ts": "the Docker engine",
  "tests/runner_lock_test.ts": "the Docker engine",
  "tests/runner_test.ts": "the Docker engine",
  "tests/sandbox_conformance_test.ts": "the Docker engine",
  "tests/sandbox_test.ts": "the Docker engine",
  "tests/shared_mode_attacks_test.ts": "the Docker engine",
  "tests/sidecar_test.ts": "the Docker engine",
  "tests/slurm_client_test.ts": "the Slurm cluster",
  "tests/slurm_executor_test.ts": "the Docker engine and the Slurm cluster",
  "tests/stand_in_base_test.ts": "the Docker engine",
  "tests/suite_check_repeat_test.ts": "the Docker engine",
  "tests/suite_check_test.ts": "the Docker engine",
  "tests/task_environment_test.ts": "the Docker engine",
  "tests/verifier_integrity_test.ts": "the Docker engine",
  "tests/view_browser_test.ts": "chromium (and the Docker engine for the demo's episodes)",
};

/**
 * `unit` files that show a mark ({@link SYSTEM_MARKS}) through a helper
 * they import but need nothing `unit` lacks, with why.
 */
export const UNIT_DESPITE_MARKS: Readonly<Record<string, string>> = {
  "tests/stop_signal_test.ts":
    "takes only the run arguments from _mini_plan.ts; its plan runs host processes (--unsandboxed)",
};

/**
 * What shows that a test file (or a test helper it imports) needs what
 * `unit` must not have: the helpers that require an engine, a cluster or a
 * registry; a probe of the engine; the engine a test asks for; a browser;
 * the demo's episodes (run on the engine when not kept); a subprocess of
 * an engine's, Slurm's, Jupyter's or a browser's command.
 */
export const SYSTEM_MARKS: readonly RegExp[] = [
  /\brequire(DockerEngine|SlurmCluster|SecondEngine|LocalRegistry)\b/,
  /\bdockerAvailable\s*\(/,
  /\bLEDGERBENCH_TEST_ENGINE\b|\bTEST_ENGINE_VARIABLE\b/,
  /puppeteer|chromium/i,
  /\bdemoLedger\s*\(/,
  /["'`](docker|podman|sbatch|srun|squeue|scontrol|scancel|sinfo|jupyter|chromium)["'`]\s*,\s*[[{]/,
];

/** The repository root (this file's parent directory), without a final slash. */
export const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** Deno's test-file name rule (`deno test`'s default: `{*_,*.,}test.{ts,tsx,mts,js,mjs,jsx}`). */
export const TEST_FILE = /(^|[_.])test\.(ts|tsx|mts|js|mjs|jsx)$/;

/**
 * The paths and globs `deno test` leaves out (deno.json's `test.exclude`
 * and top-level `exclude`): `--ignore` replaces them, so the layers pass
 * them again.
 */
export async function configExcludes(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  return [...(config.test?.exclude ?? []), ...(config.exclude ?? [])];
}

/** True when `path` (from the root) is under one of `excludes` (paths, `*` in a name). */
export function excluded(path: string, excludes: readonly string[]): boolean {
  return excludes.some((pattern) => {
    const dir = pattern.endsWith("/");
    const source = pattern.replace(/\/$/, "").split("/").map((part) =>
      part.split("*").map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")
    ).join("/");
    return new RegExp(`^${source}${dir ? "/" : "(/|$)"}`).test(path);
  });
}

/** Every test file `deno test` runs, by path from the root, sorted. */
export async function testFiles(): Promise<string[]> {
  const excludes = await configExcludes();
  const files: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(dir === "" ? ROOT : `${ROOT}/${dir}`)) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.name.startsWith(".") || excluded(path, excludes)) continue;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && TEST_FILE.test(entry.name)) files.push(path);
    }
  }
  await walk("");
  return files.sort();
}

/** The layer of a test file, by path from the root. */
export function layerOf(path: string): Layer {
  return Object.hasOwn(SYSTEM, path) ? "system" : "unit";
}

/**
 * The arguments of `deno test` for a layer: `unit` is the whole of
 * `deno test --doc` with the `system` files ignored; `system` names them.
 */
export async function layerArguments(layer: Layer): Promise<string[]> {
  const common = ["test", "--allow-all", "--doc"];
  if (layer === "system") return [...common, ...Object.keys(SYSTEM)];
  const ignore = [...await configExcludes(), ...Object.keys(SYSTEM)];
  return [...common, `--ignore=${ignore.join(",")}`];
}

if (import.meta.main) {
  const [command, ...rest] = Deno.args;
  const layer = (command === "list" ? rest[0] : command) as Layer;
  if (!LAYERS.includes(layer)) {
    console.error(
      "usage: tools/test_layer.ts unit|system [deno test options...]\n" +
        "       tools/test_layer.ts list unit|system",
    );
    Deno.exit(1);
  }
  if (command === "list") {
    for (const file of await testFiles()) if (layerOf(file) === layer) console.log(file);
    Deno.exit(0);
  }
  // deno test options (e.g. --filter, --fail-fast) go before the files
  const [test, ...args] = await layerArguments(layer);
  const child = new Deno.Command(Deno.execPath(), {
    args: [test, ...rest, ...args],
    cwd: ROOT,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  Deno.exit((await child.status).code);
}
