/**
 * `ledgerbench demo` (`deno task demo`): the whole pipeline on this machine.
 * Builds the images offline, generates the demo suite from its public seed,
 * freezes a plan for two agents (the solver agent backed by a strong and by a
 * weak scripted model), runs the batch in Docker against scripted providers,
 * writes `out/ledger-demo/` and prints the summary and the comparison (the
 * committed `ledgers/demo/` is one such run, written with `--out ledgers/demo`,
 * so that running the demo never changes a tracked file). Without a
 * Docker engine it says so and analyses the shipped example ledgers instead.
 * Then the shipped judged example (`suites/judge_example`, issue 14): the
 * scripted judge is calibrated on its golden set, a plan with the judge is
 * frozen, and both agents' answers are judged in the sandboxed run through
 * the judge's relay, into `out/ledger-demo/judge/`.
 * Either way it ends by writing the replayable report of the shipped example
 * ledger (and of the demo ledger when one was run) under `out/`.
 *
 * @module
 */
import { fitLines, outputWidth, WIDTH_OPTION, widthHelpAt } from "./_table_layout.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { buildImages, VERIFIER_IMAGE } from "../runner/docker/build_images.ts";
import { dockerAvailable } from "../runner/docker/docker_available.ts";
import { freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { createProgress } from "../runner/progress.ts";
import { startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import { describeHalt } from "../runner/run_batch.ts";
import type { Upstream } from "../runner/relay/upstream.ts";
import { runPlan } from "../runner/run_plan.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { DEMO_SEED, DEMO_SUITE } from "../suites/demo_suite.ts";
import { JUDGE_EXAMPLE } from "../suites/judge_example.ts";
import { loadGoldenSet } from "../inputs/golden_set.ts";
import { loadJudgeSettings } from "../inputs/judge_settings.ts";
import { startScriptedUpstream } from "./_upstream_options.ts";
import { loadSuite } from "../inputs/suite.ts";
import { calibrateJudge } from "../runner/judge/calibrate_judge.ts";
import { planJudge } from "../runner/judge/judge_calibration_store.ts";
import { copyTree } from "../runner/sandbox/copy_tree.ts";
import type { Suite } from "../analysis/schema/suite_manifest.ts";
import {
  type NumberOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  stringOption,
} from "./_args.ts";
import { ExitCode, type Io, processIo } from "./_command.ts";
import { PARALLEL_RANGE } from "./_option_ranges.ts";
import { nextStep } from "./_next_step.ts";

/** `--parallel`: episodes at once. */
const PARALLEL: NumberOption = { name: "parallel", range: PARALLEL_RANGE };
/** The demo's episodes at once: its two agents side by side. */
const DEMO_PARALLEL = 2;

/** Help text, an example first. */
export const help = `Run the whole pipeline on this machine: build the images offline
(containers/build_images.sh, nothing is pulled), generate the 7-task demo suite
from its PUBLIC demo seed (written in suites/demo_suite.ts on purpose; a real
evaluation uses a private seed kept outside git), freeze a plan for two agents
(the solver agent backed by a strong and by a weak scripted model), run the
batch in Docker against scripted providers on loopback, write the plan, the
ledger, the errata file and a price table to out/ledger-demo/, and print the
summary and the comparison. Then the judged example (suites/judge_example):
its scripted LLM judge is calibrated on the shipped golden set (agreement with
the human labels, kappa, swap consistency), and both agents' answers to its
open task are judged in a second sandboxed run, the judge's calls metered
through its own relay, into out/ledger-demo/judge/. It ends by writing the replayable report
(report.md, report.html, figures, summary.json) of the shipped example
ledger to out/report-example/ and, after a run, of the demo ledger to
out/report-demo/ and of the judged run to out/report-judge/; check any with
"ledgerbench verify-report DIR".

Without a reachable Docker engine the demo says so and analyses the shipped
example ledger (ledgers/examples/) instead; it never runs a candidate
unsandboxed.

Run the demo:
  deno task demo

Four episodes at once, outputs elsewhere:
  deno task ledgerbench demo --parallel 4 --out /tmp/demo --work /tmp/demo-work \
    --reports /tmp/demo-reports

USAGE:
  deno task ledgerbench demo [OPTIONS]

OPTIONS:
  --parallel N     Episodes at once, ${rangeText(PARALLEL.range)} (default ${DEMO_PARALLEL})
  --out DIR        Where the plan, ledger, errata, price table and the
                   artifact store (artifacts/: workspaces and episode logs,
                   which "ledgerbench show" reads) go (default
                   out/ledger-demo; its previous demo files are replaced;
                   the committed ledgers/demo/ was written with
                   --out ledgers/demo, its artifacts/ is not committed)
  --work DIR       The generated suite (default out/demo; replaced)
  --reports DIR    Where report-demo/, report-judge/ and report-example/ go
                   (default out)
${widthHelpAt(19)}
  -h, --help       This help

EXIT STATUS:
  0 demo complete (or, without Docker, the example analysis printed);
  3 the batch halted
`;

const OPTIONS = {
  parallel: { type: "string" },
  out: { type: "string" },
  work: { type: "string" },
  reports: { type: "string" },
  ...WIDTH_OPTION,
} as const;

/** The files the demo writes into `--out`. */
export const DEMO_FILES = [
  "plan.json",
  "plan.json.sha256",
  "ledger.jsonl",
  "ledger.jsonl.torn.jsonl",
  "errata.jsonl",
  "price_table.json",
] as const;

/** The demo's frozen price table (illustrative rates, per million tokens). */
export const DEMO_PRICE_TABLE = {
  schema_version: 1,
  price_table_id: "demo-usd-illustrative",
  currency: "USD",
  default_rate: { prompt_per_million: 0.5, completion_per_million: 2 },
  agent_rates: {},
};

/** Runs `demo`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, OPTIONS);
  const parallel = numberOption(values, PARALLEL) ?? DEMO_PARALLEL;
  const out = stringOption(values, "out") ?? "out/ledger-demo";
  const work = stringOption(values, "work") ?? "out/demo";
  const reports = stringOption(values, "reports") ?? "out";
  // the width of the analyses' text, passed on to summarize, compare and report
  const width = outputWidth(values);
  const example: AnalysedFiles = { ...EXAMPLE_FILES, width };

  const engine = await dockerAvailable();
  if (!engine.available) {
    io.stderr(
      `demo: No Docker engine is reachable: ${engine.reason}\n` +
        `demo: No episode was run (candidates never run unsandboxed in the demo).\n` +
        `demo: Falling back to the analysis of the shipped example ledger ` +
        `ledgers/examples/synthetic_ledger.jsonl.\n\n`,
    );
    // the report's own next: line names the example's view and report
    const status = await analyse(io, example);
    return firstFailure(status, await writeReport(io, example, `${reports}/report-example`));
  }

  io.stderr(`demo: Docker engine ${engine.serverVersion} on ${engine.socketPath}\n`);
  io.stderr("demo: building images offline (containers/build_images.sh)\n");
  const images = await buildImages();
  await Deno.mkdir(out, { recursive: true });
  for (const file of DEMO_FILES) await Deno.remove(`${out}/${file}`).catch(() => {});
  await removeSnapshots(`${out}/judge`);
  // Beside the ledger, where `show` looks for the episode logs the report points at.
  const artifacts = `${out}/artifacts`;
  await removeSnapshots(artifacts);
  await removeSnapshots(work);
  await Deno.mkdir(work, { recursive: true });

  io.stderr(
    `demo: generating suite "${DEMO_SUITE.suite_id}" from the PUBLIC demo seed ${
      DEMO_SEED.slice(0, 16)
    }… ` +
      `(suites/demo_suite.ts; a real run uses a private seed)\n`,
  );
  const suite = await generateSuite(DEMO_SUITE, {
    seed: DEMO_SEED,
    dir: `${work}/suite`,
    publicSeed: true,
  });
  await Deno.writeTextFile(`${out}/price_table.json`, canonicalJson(DEMO_PRICE_TABLE));
  const plan = freezePlan(suite, {
    plan_id: "demo",
    created_at: new Date().toISOString(),
    agents: demoAgents(images),
    order_seed: 20261107,
    // seed 000's output policy and context limit: the relay caps every call's
    // output at 512 tokens and the gate checks both against server usage
    model_limits: { max_output_tokens: 512, context_limit_tokens: 8192 },
    price_table_id: DEMO_PRICE_TABLE.price_table_id,
    runner_version: await runnerVersion(),
    verifier_image: VERIFIER_IMAGE,
    verifier_image_digest: images["ledgerbench/verifier"],
  });
  const frozen = await writePlan(`${out}/plan.json`, plan);
  io.stderr(
    `demo: plan ${frozen.path} (sha256 ${frozen.sha256}), order ${
      plan.tasks.map((t) => t.task_id).join(", ")
    }\n`,
  );
  await Deno.writeTextFile(`${out}/errata.jsonl`, "");

  const providers = await demoProviders(suite);
  let halted = false;
  try {
    io.stderr(
      `demo: running ${plan.tasks.length * plan.agents.length} episodes, ${parallel} at a time\n`,
    );
    const outcome = await runPlan({
      plan: frozen,
      suite: suite.dir,
      ledger: `${out}/ledger.jsonl`,
      artifacts,
      parallel,
      upstream: (agent) => providers.upstreams[agent.agent_id],
      progress: createProgress(),
    });
    if (outcome.halted !== null) {
      halted = true;
      io.stderr(`demo: halted: ${describeHalt(outcome.halted)}\n`);
    }
  } finally {
    await providers.close();
  }
  if (!halted) halted = !(await runJudgedExample(io, { out, work, parallel, images }));
  io.stderr(
    `demo: wrote ${out}/{plan.json,plan.json.sha256,ledger.jsonl,errata.jsonl,price_table.json} ` +
      `and the same in ${out}/judge/\n\n`,
  );
  const demoFiles = { ...demoFilesIn(out), width };
  const judgedFiles = { ...demoFilesIn(`${out}/judge`), width };
  const status = firstFailure(
    await analyse(io, demoFiles),
    await summarizeFiles(io, judgedFiles, { label: " (the judged example)", apart: true }),
    await writeReport(io, demoFiles, `${reports}/report-demo`),
    await writeReport(io, judgedFiles, `${reports}/report-judge`),
    await writeReport(io, example, `${reports}/report-example`),
  );
  // after the example's report and its next: line, the run's own
  io.stdout(
    "\n" + nextStep({
      command: ["view", demoFiles.ledger],
      note: `or open ${reports}/report-demo/report.html in a browser`,
    }, width),
  );
  return halted ? ExitCode.refused : status;
}

/** The demo's two agents: the solver image backed by a strong and by a weak scripted model. */
function demoAgents(images: Record<string, string>) {
  const solver = "ledgerbench/agent-solver:latest";
  return ["strong", "weak"].map((strength) => ({
    agent_id: `solver-${strength}`,
    image: solver,
    image_digest: images["ledgerbench/agent-solver"],
    model: `demo-${strength}-1`,
  }));
}

/**
 * The scripts of the demo's two scripted models on `suite`: strong (every
 * answer right, model `demo-strong-1`) and weak (half, `demo-weak-1`); the
 * Slurm test runs the demo plan from them as files.
 *
 * @param suite the demo suite
 * @returns the two scripts
 */
export async function demoProviderScripts(suite: Suite) {
  return {
    strong: await suiteProviderScript(suite, { model: "demo-strong-1", correctRate: 1 }),
    weak: await suiteProviderScript(suite, {
      model: "demo-weak-1",
      correctRate: 0.5,
      seed: "demo-weak",
    }),
  };
}

/** The demo's scripted providers for `suite` ({@link demoProviderScripts}). */
async function demoProviders(suite: Suite) {
  const keys = { strong: crypto.randomUUID(), weak: crypto.randomUUID() };
  const scripts = await demoProviderScripts(suite);
  const strong = await startScriptedProvider(scripts.strong, { apiKey: keys.strong });
  const weak = await startScriptedProvider(scripts.weak, { apiKey: keys.weak });
  const upstreams: Record<string, Upstream> = {
    "solver-strong": {
      baseUrl: strong.baseUrl,
      key: keys.strong,
      expectedModelIds: ["demo-strong-1"],
    },
    "solver-weak": { baseUrl: weak.baseUrl, key: keys.weak, expectedModelIds: ["demo-weak-1"] },
  };
  return {
    upstreams,
    close: async () => {
      await strong.close();
      await weak.close();
    },
  };
}

/**
 * The judged example (issue 14): calibrates the shipped scripted judge on
 * the shipped golden set beside a copy of `suites/judge_example`, freezes a
 * plan with the judge and the calibration it found, and runs both demo
 * agents on it, their answers judged through the judge's relay.
 *
 * @returns false when the batch halted
 */
async function runJudgedExample(
  io: Io,
  options: { out: string; work: string; parallel: number; images: Record<string, string> },
): Promise<boolean> {
  const dir = `${options.out}/judge`;
  await Deno.mkdir(dir, { recursive: true });
  // The judged run's report reads an errata file and a price table too: none, and the demo's.
  await Deno.writeTextFile(`${dir}/errata.jsonl`, "");
  await Deno.writeTextFile(`${dir}/price_table.json`, canonicalJson(DEMO_PRICE_TABLE));
  const suiteDir = `${options.work}/judge_suite`;
  await copyTree(JUDGE_EXAMPLE.suite, suiteDir);
  const suite = await loadSuite(suiteDir);
  const settings = (await loadJudgeSettings(JUDGE_EXAMPLE.judge)).value;
  const golden = await loadGoldenSet(JUDGE_EXAMPLE.golden);
  const judgeProvider = await startScriptedUpstream(JUDGE_EXAMPLE.script);
  const judge: Upstream = { ...judgeProvider.upstream, expectedModelIds: [JUDGE_EXAMPLE.model] };
  const providers = await demoProviders(suite);
  try {
    const calibration = await calibrateJudge({ suite, settings, golden, upstream: judge });
    const { summary } = calibration;
    io.stderr(
      `demo: judge "${settings.model}" calibrated on ${golden.labels.length} human labels: ` +
        `agreement ${summary.human_agreement?.toFixed(3)} (blind labels), swap consistency ` +
        `${summary.swap_consistency?.toFixed(3)}: ${summary.passed ? "passed" : "failed"} ` +
        `(${calibration.dir})\n`,
    );
    const frozen = await writePlan(`${dir}/plan.json`, {
      ...freezePlan(suite, {
        plan_id: "demo-judge",
        created_at: new Date().toISOString(),
        agents: demoAgents(options.images),
        order_seed: 20261107,
        price_table_id: DEMO_PRICE_TABLE.price_table_id,
        runner_version: await runnerVersion(),
        verifier_image: VERIFIER_IMAGE,
        verifier_image_digest: options.images["ledgerbench/verifier"],
      }),
      judge: await planJudge(suite, settings),
    });
    io.stderr(`demo: running the judged task for both agents (${frozen.path})\n`);
    const outcome = await runPlan({
      plan: frozen,
      suite: suite.dir,
      ledger: `${dir}/ledger.jsonl`,
      artifacts: `${dir}/artifacts`,
      parallel: options.parallel,
      upstream: (agent) => providers.upstreams[agent.agent_id],
      judgeUpstream: judge,
      progress: createProgress(),
    });
    if (outcome.halted !== null) {
      io.stderr(`demo: judged run halted: ${describeHalt(outcome.halted)}\n`);
      return false;
    }
    return true;
  } finally {
    await providers.close();
    await judgeProvider.close();
  }
}

/** Removes a directory that may hold read-only snapshots (artifacts), best effort. */
async function removeSnapshots(dir: string): Promise<void> {
  await removeTree(dir).catch(() => {});
}

/** The shipped example: ledger, plan, errata and price table. */
const EXAMPLE_FILES: AnalysedFiles = {
  ledger: "ledgers/examples/synthetic_ledger.jsonl",
  plan: "ledgers/examples/synthetic_plan.json",
  errata: "ledgers/examples/synthetic_errata.jsonl",
  priceTable: "ledgers/examples/price_table.json",
};

/** The files one analysis reads. */
interface AnalysedFiles {
  ledger: string;
  plan: string;
  errata: string;
  priceTable: string;
  /** The width of their analyses' text (`--width`; default: `outputWidth`'s). */
  width?: number;
}

/** The `--width` option of the analyses of `files`, when they have a width. */
function widthArgs(files: AnalysedFiles): string[] {
  return files.width === undefined ? [] : ["--width", String(files.width)];
}

/** A heading folded to the width of the analyses of `files`, when they have one. */
function fitted(files: AnalysedFiles, text: string): string {
  return files.width === undefined ? text : fitLines(text, files.width);
}

/** The first non-zero exit status, or 0. */
function firstFailure(...statuses: number[]): number {
  return statuses.find((status) => status !== ExitCode.ok) ?? ExitCode.ok;
}

/** Writes the replayable report of one ledger through the CLI's own `report` command. */
async function writeReport(io: Io, files: AnalysedFiles, dir: string): Promise<number> {
  const report = await import("./report.ts");
  io.stdout(fitted(files, `\n== report ${files.ledger} -> ${dir}/report.md\n`));
  return await report.run([
    files.ledger,
    "--plan",
    files.plan,
    "--errata",
    files.errata,
    "--price-table",
    files.priceTable,
    "--out",
    dir,
    ...widthArgs(files),
  ], io);
}

/** The files of a demo run in `dir`: its ledger, plan, errata and price table. */
function demoFilesIn(dir: string): AnalysedFiles {
  return {
    ledger: `${dir}/ledger.jsonl`,
    plan: `${dir}/plan.json`,
    errata: `${dir}/errata.jsonl`,
    priceTable: `${dir}/price_table.json`,
  };
}

/**
 * Prints `summarize` of one ledger, through the CLI's own command, under the
 * heading `== summarize <ledger><label>` (after a blank line when `apart`).
 */
async function summarizeFiles(
  io: Io,
  files: AnalysedFiles,
  heading: { label?: string; apart?: boolean } = {},
): Promise<number> {
  const summarize = await import("./summarize.ts");
  io.stdout(
    fitted(
      files,
      `${heading.apart ? "\n" : ""}== summarize ${files.ledger}${heading.label ?? ""}\n`,
    ),
  );
  return await summarize.run([
    files.ledger,
    "--plan",
    files.plan,
    "--errata",
    files.errata,
    "--price-table",
    files.priceTable,
    ...widthArgs(files),
  ], io);
}

/** Prints `summarize` then `compare` of one ledger, through the CLI's own commands. */
async function analyse(io: Io, files: AnalysedFiles): Promise<number> {
  const compare = await import("./compare.ts");
  const first = await summarizeFiles(io, files);
  io.stdout(fitted(files, `\n== compare ${files.ledger}\n`));
  const second = await compare.run(
    [files.ledger, "--plan", files.plan, "--errata", files.errata, ...widthArgs(files)],
    io,
  );
  return first !== ExitCode.ok ? first : second;
}

if (import.meta.main) {
  const { main } = await import("./main.ts");
  Deno.exit(await main(["demo", ...Deno.args], processIo()));
}
