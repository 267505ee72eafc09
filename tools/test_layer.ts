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
 * Each layer runs in two lanes ({@link LANES}) side by side; the system
 * layer's files that must not share the machine ({@link ALONE}) run after
 * both, by themselves.
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
 * on the layer (`deno task test:unit`, `deno task test:system`), a process
 * per lane, each line it prints after `lane N | `, then a line per lane;
 * `... tools/test_layer.ts list unit|system` prints its test files.
 *
 * @module
 */

/** The layers, in the order CI runs them. */
export const LAYERS = ["unit", "system"] as const;
/** One layer of the suite. */
export type Layer = typeof LAYERS[number];

/**
 * The lanes of each layer: each a `deno test` process, every test in one
 * of them, the two side by side. A `system` file names its lane
 * ({@link SystemFile.lane}); `unit` files take turns ({@link unitLaneFiles}).
 */
export const LANES = [1, 2] as const;
/** One lane of a layer. */
export type Lane = typeof LANES[number];
/**
 * The place of the `system` files that run by themselves, after both
 * lanes, in a `deno test` process of their own: Podman's passes of the
 * attack suites and of the Slurm executor's tests, which failed under the
 * other lane's load (in two of three clean-clone runs: the Podman service's
 * answer to a probe, then a verifier's run) and pass alone.
 */
export const ALONE = "alone" as const;
/** Where a `system` file runs: a lane, or {@link ALONE}. */
export type SystemLane = Lane | typeof ALONE;

/** A `system` test file: what it needs, and the lane it runs in. */
export interface SystemFile {
  /** What it needs that the `unit` layer must not have. */
  readonly needs: string;
  /**
   * The lane: its files run one after another, in one `deno test`
   * process, beside the other lane (most of a system test's time is
   * waiting on containers, the Debian mirror, Slurm or a kernel: two lanes
   * took 28 minutes where one took 45), or {@link ALONE} after both.
   * Files that find what they check by state the whole machine shares
   * never run at once: the Slurm cluster's queue (`slurm_*` in lane 1, and
   * the Podman pass of the Slurm executor's tests alone), and containers
   * and images found by tag (the stand-in bases, the prebuilt-image
   * registry, in lane 2). Lane 2 holds the tests that build tasks' images
   * and fetch Debian's packages, the notebooks, the browser and, to even
   * the lanes, what broke on other machines; lane 1 the
   * sandbox, the relay, the rest of the runner (the ledger lock and resume
   * among it), the engines and the documents' commands.
   */
  readonly lane: SystemLane;
}

/**
 * The `system` layer: every test file that needs a container engine, a
 * Slurm cluster, Jupyter or a browser (or a test that runs only when one
 * answers), by path from the repository root, with what it needs and its
 * lane.
 */
export const SYSTEM: Readonly<Record<string, SystemFile>> = {
  "runner/docker/docker_available_test.ts": {
    needs: "the Docker engine (its version, when one answers)",
    lane: 1,
  },
  "runner/remove_orphans_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/agent_check_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/agent_network_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/budget_attacks_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/claude_code_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/cli_width_demo_test.ts": {
    needs: "the Docker engine (the demo's episodes, when not kept)",
    lane: 1,
  },
  "tests/codex_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/doc_commands_test.ts": { needs: "the Docker engine and Jupyter", lane: 1 },
  "tests/engine_faults_test.ts": { needs: "the Docker engine and a second engine", lane: 1 },
  "tests/filler_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/first_run_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/gemini_cli_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/hand_written_suite_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/harbor_cookbook_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/harbor_environment_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/harbor_examples_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/harbor_suite_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/judge_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/kill_resume_property_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/multi_step_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/notebooks_test.ts": { needs: "Jupyter with the Deno kernel", lane: 2 },
  "tests/opencode_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/other_machines_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/podman_engine_test.ts": {
    needs: "the Docker engine, Podman and the Slurm cluster (the Slurm executor's tests on Podman)",
    lane: ALONE,
  },
  "tests/prebuilt_image_test.ts": { needs: "the Docker engine and the local registry", lane: 2 },
  "tests/relay_attacks_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/relay_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/resume_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/runner_lock_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/runner_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/sandbox_conformance_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/sandbox_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/shared_mode_attacks_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/sidecar_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/slurm_client_test.ts": { needs: "the Slurm cluster", lane: 1 },
  "tests/slurm_executor_test.ts": { needs: "the Docker engine and the Slurm cluster", lane: 1 },
  "tests/stand_in_base_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/suite_check_repeat_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/suite_check_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/task_environment_test.ts": { needs: "the Docker engine", lane: 2 },
  "tests/verifier_integrity_test.ts": { needs: "the Docker engine", lane: 1 },
  "tests/view_browser_test.ts": {
    needs: "chromium (and the Docker engine for the demo's episodes)",
    lane: 2,
  },
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

/** The `system` files of `lane` (or of {@link ALONE}), in {@link SYSTEM}'s order. */
export function laneFiles(lane: SystemLane): string[] {
  return Object.entries(SYSTEM).filter(([, file]) => file.lane === lane).map(([path]) => path);
}

/**
 * The `unit` test files lane 2 runs: two of every three, in path order
 * (lane 1 runs the third, and every `@example` and Markdown block of a
 * module that is not a test file). Each such block is a module of its own,
 * started in an isolate of its own, so the blocks cost about as much as a
 * third of the test files; the lanes then take about as long as each
 * other, each keeping a core busy.
 */
export async function unitLaneFiles(): Promise<string[]> {
  const unit = (await testFiles()).filter((file) => layerOf(file) === "unit");
  return unit.filter((_, index) => index % 3 !== 0);
}

/**
 * The arguments of `deno test` for a layer: `unit` is the whole of
 * `deno test --doc` with the `system` files ignored; `system` names them.
 * With `lane`, that lane's part: `system`, the files of that lane (or of
 * {@link ALONE}); `unit` lane 2, the files {@link unitLaneFiles} names;
 * `unit` lane 1, the whole of `unit` with those ignored too.
 */
export async function layerArguments(layer: Layer, lane?: SystemLane): Promise<string[]> {
  const common = ["test", "--allow-all", "--doc"];
  if (layer === "system") {
    return [...common, ...(lane === undefined ? Object.keys(SYSTEM) : laneFiles(lane))];
  }
  if (lane === 2) return [...common, ...await unitLaneFiles()];
  const ignore = [
    ...await configExcludes(),
    ...Object.keys(SYSTEM),
    ...(lane === 1 ? await unitLaneFiles() : []),
  ];
  return [...common, `--ignore=${ignore.join(",")}`];
}

/** `deno test`'s line as a file's tests start, its colours taken out: `running 3 tests from ./a_test.ts`. */
const FILE_START = /^running \d+ tests? from \.\/(\S+)$/;
const ESCAPE = String.fromCharCode(0x1b);

/** `line` without its colour sequences (escape, `[`, digits and `;`, `m`), as `deno test` prints them to a pipe. */
function withoutColours(line: string): string {
  return line.split(ESCAPE).map((part, i) => (i === 0 ? part : part.replace(/^\[[0-9;]*m/, "")))
    .join("");
}

/** The file whose tests start on `line` of `deno test`'s output, else null. */
export function fileStarting(line: string): string | null {
  return FILE_START.exec(withoutColours(line))?.[1] ?? null;
}

/**
 * A lane's wall time and where it went, for its last line: the time before
 * its first file's tests (the type check, and the first file's loading),
 * then the longest files, each from its tests' start to the next file's
 * (so its module's own setup counts to the file before; one `deno test`
 * process runs a lane's files one after another).
 *
 * @param starts each file and the time its tests started (ms), in order
 * @param start the lane's start (ms)
 * @param end the lane's end (ms)
 * @param longest how many files to name
 * @returns e.g. `in 25m12s; 1m05s before the first file; longest: tests/a_test.ts 3m20s`
 */
export function laneTimes(
  starts: readonly (readonly [string, number])[],
  start: number,
  end: number,
  longest = 5,
): string {
  const clock = (ms: number) => {
    const seconds = Math.round(ms / 1000);
    return seconds < 60
      ? `${seconds}s`
      : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
  };
  const first = starts[0]?.[1] ?? end;
  const files = starts.map(([file, at], i) => [file, (starts[i + 1]?.[1] ?? end) - at] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, longest);
  return `in ${clock(end - start)}; ${clock(first - start)} before the first file` +
    (files.length === 0
      ? ""
      : `; longest: ${files.map(([f, ms]) => `${f} ${clock(ms)}`).join(", ")}`);
}

/**
 * Copies `stream` to `out` line by line, each line after `prefix`, so that
 * two lanes printing at once stay readable; a last line without its
 * newline gets one. `onLine` sees each line as it is copied.
 */
async function prefixLines(
  stream: ReadableStream<Uint8Array>,
  prefix: string,
  out: { writeSync(bytes: Uint8Array): number },
  onLine: (line: string) => void = () => {},
): Promise<void> {
  const encoder = new TextEncoder();
  const write = (text: string) => {
    const bytes = encoder.encode(text);
    for (let done = 0; done < bytes.length;) done += out.writeSync(bytes.subarray(done));
  };
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    const lines = (pending + decoder.decode(chunk, { stream: true })).split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      onLine(line);
      write(`${prefix}${line}\n`);
    }
  }
  pending += decoder.decode();
  if (pending !== "") write(`${prefix}${pending}\n`);
}

/**
 * Runs `deno test` with `args` (options, then files) from the root,
 * printing what it prints after `prefix`, and returns its exit code and
 * where its time went ({@link laneTimes}).
 */
async function runDenoTest(
  args: readonly string[],
  prefix: string,
): Promise<{ code: number; times: string }> {
  const start = performance.now();
  const starts: [string, number][] = [];
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await Promise.all([
    prefixLines(child.stdout, prefix, Deno.stdout, (line) => {
      const file = fileStarting(line);
      if (file !== null) starts.push([file, performance.now()]);
    }),
    prefixLines(child.stderr, prefix, Deno.stderr),
  ]);
  const { code } = await child.status;
  return { code, times: laneTimes(starts, start, performance.now()) };
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
  const runLane = async (lane: SystemLane) => {
    const [test, ...args] = await layerArguments(layer, lane);
    return runDenoTest([test, ...rest, ...args], `lane ${lane} | `);
  };
  const lanes: SystemLane[] = [...LANES];
  const results = await Promise.all(LANES.map(runLane));
  if (layer === "system" && laneFiles(ALONE).length > 0) {
    lanes.push(ALONE);
    results.push(await runLane(ALONE));
  }
  for (const [index, { code, times }] of results.entries()) {
    const verdict = code === 0 ? "passed" : `FAILED (exit ${code})`;
    console.log(`lane ${lanes[index]}: ${verdict} ${times}`);
  }
  Deno.exit(results.find(({ code }) => code !== 0)?.code ?? 0);
}
