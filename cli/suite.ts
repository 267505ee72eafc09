/**
 * `ledgerbench suite`: working with suite directories. One subcommand so
 * far, `import harbor` (issue 12): Harbor / Terminal-Bench task directories
 * as a native suite. Reading is `inputs/harbor_task.ts`, writing
 * `runner/import_harbor_suite.ts`. A subcommand is one entry of
 * {@link SUBCOMMANDS}.
 *
 * @module
 */
import { fitLines, outputWidth, WIDTH_HELP, WIDTH_OPTION } from "./_table_layout.ts";
import { lineText } from "../analysis/untrusted_text.ts";
import { formatProblem, LedgerError } from "../analysis/ledger_error.ts";
import { type HarborTask, harborTaskDirs, readHarborTask } from "../inputs/harbor_task.ts";
import { writeHarborSuite } from "../runner/import_harbor_suite.ts";
import { RewardRule, SuiteManifest, TaskVerifier } from "../analysis/schema/suite_manifest.ts";
import { plural } from "../report/format.ts";
import { choiceOption, numberOption, parseCommandArgs, stringOption, textOption } from "./_args.ts";
import { InputError, type Io, runSubcommand, type Subcommands, UsageError } from "./_command.ts";
import { allowHostOption } from "./_allow_host_option.ts";
import { expandPackageIndexes, PACKAGE_INDEXES } from "../runner/egress/agent_egress.ts";
import { emit } from "./_output.ts";
import { CHECK_HELP, runCheck } from "./suite_check.ts";

/** Help text, an example first. */
export const help = `Work with suite directories (suite.json and tasks/<task_id>/...).

Import the Terminal-Bench style tasks of a directory as a suite, then freeze a plan on it:
  deno task ledgerbench suite import harbor tests/fixtures/harbor_tasks --out suites/tb \\
    --without-internet

Import a Harbor task whose verifier installs pytest from PyPI, every reward.json dimension
required to pass:
  deno task ledgerbench suite import harbor harbor/my-task --out suites/mine \\
    --verifier-allow-host pypi.org --verifier-allow-host files.pythonhosted.org \\
    --reward-rule min

Prove every task's verifier (oracle resolved, no change not resolved) before a run:
  deno task ledgerbench suite check suites/tb

USAGE:
  deno task ledgerbench suite import harbor DIR... --out SUITE [OPTIONS]
  deno task ledgerbench suite check SUITE [--json]

SUBCOMMANDS:
  import harbor   Harbor / Terminal-Bench task directories (task.toml, instruction.md,
                  environment/Dockerfile, tests/test.sh, solution/solve.sh) as a suite.
                  A DIR is a task, or holds tasks in its subdirectories (sorted by
                  name); the task id is the directory's name. instruction.md becomes
                  TASK.md, tests/ the hidden verifier (at /tests, verdict read from
                  /logs/verifier/reward.txt or reward.json), solution/ the oracle. The
                  environment runs as built: the image's WORKDIR, with what its COPY and
                  RUN steps made, is the workspace. The verifier runs as Harbor runs it: in the
                  candidate's container after the agent ("shared"), or in a separate
                  environment (environment_mode = "separate", [verifier.environment];
                  tests/Dockerfile its image) receiving only the task's artifacts. A
                  task's prebuilt docker_image is its environment (--force-build: its
                  Dockerfile). A task that asks for the internet (allow_internet, true by
                  default in Harbor; network_mode "public" or "allowlist") gives its agent
                  the hosts the plan allows (freeze --agent-allow-host) or its own
                  allowed_hosts, through the runner's recording proxy. A multi-step
                  task ([[steps]], shared mode) runs its steps in one environment, each
                  verified after it. Compose sidecars (environment/docker-compose.yaml)
                  run beside the agent in its loopback-only network namespace.
${CHECK_HELP}

OPTIONS (import harbor):
  --out SUITE         The suite directory to create (absent or empty; required)
  --suite-id ID       The suite's id (default: the base name of SUITE)
  --without-internet  Import tasks that ask for the internet without it, recording
                      "internet_waived": true in suite.json (their agents get no network)
  --skip-refused      Import the other tasks when some are refused (a Compose key that
                      cannot run, a verifier's Compose file...): each refused
                      task is printed and recorded by its directory and reason in
                      suite.json ("import_skipped"). Default: one refused task refuses
                      the import, and nothing is written
  --force-build       Build each environment from its Dockerfile even where the task names
                      a prebuilt docker_image (Harbor's --force-build). Default: the prebuilt
                      image, as Harbor runs it; freeze pulls it when the engine lacks it and
                      pins it by digest
  --pass-threshold X  The reward that passes (default 1)
  --reward-key KEY    The key of reward.json that is the reward (default "reward")
  --reward-rule RULE  How reward.json decides: key (the --reward-key), min (the smallest
                      of its numbers: every dimension must pass) or mean (their mean);
                      default key
  --verifier-allow-host HOST
                      A host the verifier may reach through the runner's recording proxy
                      (a host name or *.name, optionally :port, lower-cased; repeatable), or
                      "@package-indexes" for the package indexes a test.sh installs from
                      (PyPI, npm, Debian, Ubuntu, Go, crates.io, Maven Central, RubyGems).
                      The verifier reaches exactly these, plus a task's own allowed_hosts
                      when its verifier's network_mode is "allowlist"; default none
${WIDTH_HELP}
  --json              Canonical JSON instead of text
  -h, --help          This help

Warnings (every task.toml key not applied: storage_mb, skills_dir, a verifier that asks
for the internet, no oracle, unknown keys...) go to stderr; the suite is loaded back
before it is kept, and its SHA-256 printed.

EXIT STATUS:
  0 imported, or every task proven; 1 usage error; 2 a task cannot be read or is
  refused (file, line and field named; nothing is written then), or an image the
  check itself runs is missing; 3 the check ran and a task failed (one whose
  environment cannot be built or pulled fails alone, the others are checked), or no
  Docker engine answers
`;

const IMPORT_OPTIONS = {
  out: { type: "string" },
  "suite-id": { type: "string" },
  "without-internet": { type: "boolean" },
  "force-build": { type: "boolean" },
  "skip-refused": { type: "boolean" },
  "pass-threshold": { type: "string" },
  "reward-key": { type: "string" },
  "reward-rule": { type: "string" },
  "verifier-allow-host": { type: "string", multiple: true },
  ...WIDTH_OPTION,
} as const;

/** `--pass-threshold`: any finite reward. */
const PASS_THRESHOLD = {
  name: "pass-threshold",
  range: { min: -Number.MAX_VALUE, max: Number.MAX_VALUE },
};

const FORMATS = ["harbor"] as const;

/** The subcommands, by the first argument. */
const SUBCOMMANDS: Subcommands = {
  import: runImport,
  check: runCheck,
};

/** Runs `suite`; see {@link help}. */
export function run(args: string[], io: Io): Promise<number> {
  return runSubcommand(SUBCOMMANDS, args, io);
}

/** `suite import FORMAT DIR... --out SUITE`. */
async function runImport(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, IMPORT_OPTIONS, {
    required: ["FORMAT", "DIR"],
    optional: Number.MAX_SAFE_INTEGER,
  });
  const width = outputWidth(values);
  const [format, ...sources] = positionals;
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(
      `Unknown format "${format}": expected ${FORMATS.map((f) => `"${f}"`).join(", ")}`,
    );
  }
  const out = stringOption(values, "out");
  if (out === undefined || out === "") throw new UsageError('Missing option: "--out"');
  const suiteId = textOption(values, {
    name: "suite-id",
    schema: SuiteManifest.shape.suite_id,
    form: "a non-empty id",
  });
  const withoutInternet = values["without-internet"] === true;
  const passThreshold = numberOption(values, PASS_THRESHOLD);
  const rewardKey = textOption(values, {
    name: "reward-key",
    schema: TaskVerifier.shape.reward_key,
    form: "a non-empty key",
  });
  const rewardRule = choiceOption(values, {
    name: "reward-rule",
    choices: RewardRule.options,
    fallback: "key",
  });
  const verifierHosts = allowHostOption(values, "verifier-allow-host", [PACKAGE_INDEXES]);
  const verifierAllowHosts = verifierHosts === undefined
    ? undefined
    : expandPackageIndexes(verifierHosts);
  const warn = (dir: string, message: string) =>
    io.stderr(fitLines(`warning: ${lineText(`${dir}: ${message}`)}\n`, width));
  const tasks: HarborTask[] = [];
  const skipped: { dir: string; reason: string }[] = [];
  for (const source of sources) {
    for (const dir of await harborTaskDirs(source)) {
      let task: HarborTask;
      try {
        task = await readHarborTask(dir, {
          withoutInternet,
          passThreshold,
          rewardKey,
          rewardRule,
          verifierAllowHosts,
          forceBuild: values["force-build"] === true,
        });
      } catch (error) {
        // A task refused for what it is (a Compose key, a verifier's Compose file...), left out when asked;
        // a file that cannot be read is no refusal.
        const refused = error instanceof LedgerError &&
          error.problems.every((problem) => problem.code !== "io_error");
        if (!refused || values["skip-refused"] !== true) throw error;
        const reason = error.problems.map(formatProblem).join("; ");
        io.stderr(fitLines(`skipped: ${lineText(reason)}\n`, width));
        skipped.push({ dir, reason });
        continue;
      }
      for (const message of task.warnings) warn(dir, message);
      tasks.push(task);
    }
  }
  if (tasks.length === 0) {
    throw new InputError(
      `Cannot import: every task was refused (${skipped.length} skipped); nothing is written`,
    );
  }
  const suite = await writeHarborSuite(out, tasks, { suiteId, skipped });
  const rows = tasks.map((task) => {
    const entry = task.entry;
    const environment = entry.environment === undefined
      ? "default"
      : "image" in entry.environment
      ? `image ${entry.environment.image}`
      : entry.environment.dockerfile;
    return {
      task_id: entry.task_id,
      source: task.dir,
      environment,
      verifier: entry.verifier?.mode ?? "sealed",
      internet_waived: entry.internet_waived === true,
      agent_network: entry.agent_network?.mode ?? "none",
      steps: entry.steps?.length ?? 1,
      services: entry.services?.map((service) => service.name) ?? [],
      files: task.files.length,
      warnings: task.warnings,
    };
  });
  emit(io, {
    json: values.json === true,
    width,
    payload: {
      command: "suite import",
      format,
      out,
      suite_id: suite.manifest.suite_id,
      suite_sha256: suite.sha256,
      tasks: rows,
      skipped,
    },
    render: () => {
      let text = `Imported ${plural(rows.length, "task")} (${format}) into ${out} ` +
        `(suite "${suite.manifest.suite_id}")${
          skipped.length === 0 ? "" : `, ${plural(skipped.length, "refused task")} skipped`
        }\n`;
      for (const row of rows) {
        text += `  ${row.task_id}  ${row.environment}  verifier ${row.verifier}${
          row.internet_waived
            ? "  internet waived"
            : row.agent_network === "none"
            ? ""
            : `  agent network ${row.agent_network}`
        }${row.steps === 1 ? "" : `  ${row.steps} steps`}${
          row.services.length === 0 ? "" : `  services ${row.services.join(", ")}`
        }  ${plural(row.files, "file")}\n`;
      }
      text += `suite sha256: ${suite.sha256}\n`;
      return text;
    },
  });
  return 0;
}
