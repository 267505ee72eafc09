/**
 * Reading one Harbor / Terminal-Bench task directory (issues 12, 22) into what
 * `suite import harbor` writes: the suite manifest's entry, the files to
 * copy (from the source, to a place inside `tasks/<task_id>/`) and the
 * warnings. Nothing is written here (`runner/import_harbor_suite.ts` writes).
 *
 * The format read is Harbor's, as its source defines it
 * (`src/harbor/models/task/config.py`, `TaskConfig` schema version 1.1, and
 * `src/harbor/environments/docker/docker.py`, read at commit 73fd120 of a
 * mirror of harbor-framework/harbor, late 2026), with the separate verifier
 * environment of Harbor's changelog of 2026-05-09 (`[verifier]
 * environment_mode`, `[verifier.environment]`, the top-level `artifacts`)
 * and its network policy page (a `network_mode` per phase over the
 * `[environment]` baseline):
 *
 * ```text
 * <task_id>/instruction.md         the prompt            -> workspace/TASK.md
 * <task_id>/task.toml              the configuration     -> the manifest entry
 * <task_id>/environment/Dockerfile the image and context -> environment/
 * <task_id>/tests/test.sh          the verifier          -> verifier/ (seen at /tests)
 * <task_id>/tests/Dockerfile       a separate verifier's image -> verifier/Dockerfile
 * <task_id>/solution/solve.sh      the oracle            -> solution/
 * <task_id>/steps/<step>/...       a multi-step task's   -> steps/<step>/TASK.md, verifier/<step>/, solution/<step>/
 * <task_id>/environment/docker-compose.yaml its sidecars -> the manifest's services (harbor_compose.ts)
 * ```
 *
 * Every key of `task.toml` and what becomes of it (Harbor's defaults in
 * brackets; "a warning" names the key and its value, and nothing is applied):
 *
 * | Harbor | ledgerbench |
 * |---|---|
 * | `schema_version`, `version`, `[task]`, `[metadata]`, `[source]` | nothing, silently (metadata) |
 * | `[[steps]]` | `steps` (`name`; `[steps.agent] timeout_sec` as `wall_ms_cap`, else `[agent] timeout_sec`; `[steps.verifier] timeout_sec` as `verifier_wall_ms`, its `env` as `verifier_env` over the task's; `min_reward`; `[steps.healthcheck]`; `artifacts` in separate mode), each step's files (`workdir/` included) as `readSteps` says; a step's own verifier mode or environment refused, and its own `tests/` beside a separate verifier's image; its other keys a warning each |
 * | `multi_step_reward_strategy` [mean] | `step_reward`; a warning without steps |
 * | `artifacts` (a path, or a table's `source`) | `verifier.artifacts` in separate mode, or `verifier.service_artifacts` when the table names a sidecar `service`; a warning in shared mode; a table's `destination` (where Harbor files its copy) silently |
 * | `[[verifier.collect]]` (`service` [main], `command`, `timeout_sec` [60], `user`) | `verifier.collect` in separate mode (run in `main` before its container ends, in a sidecar after) |
 * | `[solution] env` | a warning (`suite check` runs `solve.sh` without it) |
 * | `[verifier] timeout_sec` [600] | `verifier.wall_ms` (× 1000, rounded) |
 * | `[verifier] env` | `verifier.env` (copied literally; Harbor resolves `${VAR}` from the host, we do not: a warning) |
 * | `[verifier] user` [root] | `verifier.user` |
 * | `[verifier] environment_mode` ["shared"] | `verifier.mode`: `shared`, or `separate` when it says so or `[verifier.environment]` exists (`shared` with the table is refused, as Harbor refuses it) |
 * | `[verifier.environment]` | separate mode: `verifier.environment` is its `docker_image` as `{image}` (unless `--force-build`), else `verifier/Dockerfile` when `tests/Dockerfile` exists (Harbor's build context `tests/`, copied to `verifier/`); neither is refused. Separate mode without the table: `verifier/Dockerfile` when `tests/Dockerfile` exists, else absent (the task's environment, fresh) |
 * | `[verifier.environment] allow_internet` [true], `network_mode`, `allowed_hosts` | the separate verifier's network baseline (below) |
 * | `[verifier.environment] cpus`, `memory_mb`, its other keys | a warning each (the verifier gets the task's resources) |
 * | `[verifier] network_mode`, `allowed_hosts` | `verifier.allow_hosts` (below) |
 * | `[agent] timeout_sec` [none] | `limits.wall_ms_cap` |
 * | `[agent] user` [root] | `agent_user` |
 * | `[agent] network_mode`, `allowed_hosts` | the internet rule (below) |
 * | `[environment] docker_image` | `environment.image` (pulled and pinned by digest at `freeze`), unless `--force-build` builds the Dockerfile |
 * | `[environment] cpus`, `memory_mb`, `storage_mb` | `resources` (absent: ours, not Harbor's 1 CPU and 2048 MiB; Harbor's 10240 MiB of disk) |
 * | `[environment] allow_internet` [true], `network_mode`, `allowed_hosts` | the internet rule; the verifier's baseline in shared mode and in separate mode without `[verifier.environment]` |
 * | `[environment] env` | `environment_env`: every process of the environment sees them (copied literally; `${VAR}` is not resolved from the host: a warning) |
 * | `[environment.healthcheck]` (`command`; `interval_sec` [5], `timeout_sec` [30], `start_period_sec` [0], `start_interval_sec` [5], `retries` [3]) | `environment_healthcheck` (in ms): the agent starts once it passes |
 * | `[environment] workdir` | `workdir`: where the agent and the tests run, and the workspace appears, in place of the image's `WORKDIR` (a separate verifier's own image keeps its own: a warning) |
 * | `[environment] build_timeout_sec`, `gpus`, `gpu_types`, `mcp_servers`, `skills_dir`, `memory`, `storage` | a warning each, unless the value asks for nothing (`0`, `false`, `""`, `[]`, an empty table) |
 * | any other key | a warning naming the file, the line and the key (Harbor ignores it too) |
 *
 * The internet rule (the agent's phase): an explicit `network_mode` wins,
 * else `allow_internet`; the agent's own `network_mode` overrides it.
 * `public` becomes `agent_network` `{"mode": "public"}` (the frozen plan
 * names the hosts, `freeze --agent-allow-host`), `allowlist` the phase's
 * `allowed_hosts`; the agent reaches them only through the runner's
 * recording proxy. `--without-internet` imports such a task without a
 * network (`internet_waived`).
 *
 * The verifier's network: its phase's mode is `[verifier] network_mode`,
 * else its baseline's (`[verifier.environment]` for a separate verifier
 * that has the table, else `[environment]`). Its `allow_hosts` are exactly
 * the hosts the operator names with `--verifier-allow-host`, plus Harbor's
 * `allowed_hosts` (the phase's own when it sets the mode, else the
 * baseline's) when that mode is `allowlist`; a verifier whose mode is
 * `public` (Harbor's default) gets a warning naming the hosts it gets, or
 * "none". A Harbor host that is no lower-case host name (after lowering
 * its case) is refused.
 *
 * Rewards: `verifier.reward_key` and `verifier.reward_rule` are the
 * operator's (`--reward-key`, `--reward-rule`), default `reward` and `key`;
 * a `tests/test.sh` that mentions `reward.json` under the `key` rule gets a
 * warning naming the key (the multi-dimensional reward files of Harbor's
 * cookbook have no `reward` key).
 *
 * Both a Dockerfile and `docker_image`: the prebuilt image, as Harbor runs
 * it unless `--force-build` (its Docker environment's `start`), which
 * builds the Dockerfile instead; `freeze` pulls the image when the engine
 * lacks it and pins it by digest.
 *
 * @module
 */
import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { ioError, LedgerError, type LedgerProblem } from "../analysis/ledger_error.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import {
  type AgentNetwork,
  type RewardRule,
  SuiteTaskEntry,
  type TaskHealthcheck,
  TaskResources,
  TaskStep,
  TaskVerifier,
} from "../analysis/schema/suite_manifest.ts";
import { AllowHost } from "../analysis/schema/allow_host.ts";
import { pathExists, pathIs, readInput } from "./input_file.ts";
import { schemaProblem } from "../analysis/schema/schema_problems.ts";
import { decodeStrictText } from "../analysis/schema/strict_json.ts";
import { type ComposeEnvironment, composeServiceNames, readCompose } from "./harbor_compose.ts";

/** Where Harbor copies `tests/` in the verifier's container. */
export const HARBOR_TESTS_MOUNT = "/tests";

/** Harbor's `[[verifier.collect]] timeout_sec` when absent (`CollectConfig`), in seconds. */
const HARBOR_COLLECT_TIMEOUT_SEC = 60;

/** Harbor's `[verifier] timeout_sec` when absent (`VerifierConfig`), in seconds. */
export const HARBOR_VERIFIER_TIMEOUT_SEC = 600;

/** One file to copy: an absolute or given source path, and its place inside `tasks/<task_id>/`. */
export interface HarborTaskFile {
  from: string;
  /** Relative to the task's directory in the suite, `/`-separated. */
  to: string;
  /** The mode to set after copying (the entry points' 0o755); absent: the source's. */
  mode?: number;
}

/** One Harbor task, read. */
export interface HarborTask {
  /** The source directory, as given. */
  dir: string;
  /** The manifest entry, through the {@link SuiteTaskEntry} schema. */
  entry: SuiteTaskEntry;
  /** The files of `tasks/<task_id>/`, each destination once. */
  files: HarborTaskFile[];
  /** What the import could not carry over, one sentence each (no file prefix). */
  warnings: string[];
}

/** Options of {@link readHarborTask}. */
export interface ReadHarborTaskOptions {
  /**
   * Import a task that asks for the internet without it, recording
   * `internet_waived` (default false: its `agent_network`).
   */
  withoutInternet?: boolean;
  /** The reward that passes (`verifier.pass_threshold`); default 1. */
  passThreshold?: number;
  /** The key of `reward.json` that decides (`verifier.reward_key`); default `reward`. */
  rewardKey?: string;
  /** How `reward.json` decides (`verifier.reward_rule`); default `key`. */
  rewardRule?: RewardRule;
  /**
   * Hosts the verifier may reach (`--verifier-allow-host`), each an
   * {@link AllowHost}; with Harbor's own `allowed_hosts` in `allowlist` mode.
   */
  verifierAllowHosts?: readonly string[];
  /**
   * Build each environment from its Dockerfile even where the task names a
   * prebuilt `docker_image` (Harbor's `--force-build`); default false: the
   * prebuilt image, as Harbor runs it.
   */
  forceBuild?: boolean;
}

/** Harbor's `network_mode` values (`NetworkMode`). */
const NetworkMode = z.enum(["public", "no-network", "allowlist"]);

/** A key of Harbor's schema that the import does not read (or reads only to warn). */
const Ignored = z.unknown().optional();

/** Harbor's `user`: a name or a uid, kept as text. */
const HarborUser = z.union([z.string().min(1), z.number().int().nonnegative()])
  .transform(String).optional();

/** Harbor's `allowed_hosts`: host names, checked against {@link AllowHost} once read. */
const HarborHosts = z.array(z.string()).optional();

/** One entry of Harbor's top-level `artifacts`: a path, or a table naming it as `source`. */
const HarborArtifact = z.union([
  z.string(),
  z.looseObject({
    source: z.string(),
    destination: z.string().optional(),
    service: z.string().optional(),
  }),
]);

/** Harbor's `HealthcheckConfig` (`[environment.healthcheck]`, `[steps.healthcheck]`), with its defaults. */
const HarborHealthcheck = z.looseObject({
  command: z.string().min(1),
  interval_sec: z.number().positive().default(5),
  timeout_sec: z.number().positive().default(30),
  start_period_sec: z.number().nonnegative().default(0),
  start_interval_sec: z.number().positive().default(5),
  retries: z.number().int().positive().default(3),
});

/** A Harbor healthcheck as the manifest's `TaskHealthcheck` (seconds as milliseconds). */
function healthcheckEntry(check: z.infer<typeof HarborHealthcheck>): TaskHealthcheck {
  return {
    command: check.command,
    interval_ms: seconds(check.interval_sec),
    timeout_ms: seconds(check.timeout_sec),
    start_period_ms: Math.round(check.start_period_sec * 1000),
    start_interval_ms: seconds(check.start_interval_sec),
    retries: check.retries,
  };
}

/** An `[environment]` table (`EnvironmentConfig`), also the shape of `[verifier.environment]`. */
const HarborEnvironment = z.looseObject({
  build_timeout_sec: Ignored,
  docker_image: z.string().min(1).optional(),
  cpus: TaskResources.shape.cpus,
  memory_mb: TaskResources.shape.memory_mb,
  storage_mb: TaskResources.shape.storage_mb,
  gpus: Ignored,
  gpu_types: Ignored,
  allow_internet: z.boolean().optional(),
  network_mode: NetworkMode.optional(),
  allowed_hosts: HarborHosts,
  mcp_servers: Ignored,
  env: TaskVerifier.shape.env,
  skills_dir: Ignored,
  healthcheck: HarborHealthcheck.optional(),
  workdir: z.string().min(1).optional(),
  memory: Ignored,
  storage: Ignored,
});
type HarborEnvironment = z.infer<typeof HarborEnvironment>;

/**
 * The part of Harbor's `task.toml` (`TaskConfig`) that is read; the other
 * keys of Harbor's schema are listed as `z.unknown()`, so that a key outside
 * it can be told apart (and warned about).
 */
const HarborTaskToml = z.looseObject({
  schema_version: Ignored,
  version: Ignored,
  task: Ignored,
  metadata: Ignored,
  source: Ignored,
  solution: z.looseObject({ env: Ignored }).default({}),
  steps: z.array(z.looseObject({
    name: z.string().min(1),
    agent: z.looseObject({ timeout_sec: z.number().positive().optional() }).default({}),
    verifier: z.looseObject({
      timeout_sec: z.number().positive().optional(),
      env: TaskVerifier.shape.env,
    }).default({}),
    min_reward: TaskStep.shape.min_reward,
    healthcheck: HarborHealthcheck.optional(),
    artifacts: z.array(z.string()).optional(),
  })).optional(),
  multi_step_reward_strategy: z.enum(["mean", "final"]).optional(),
  artifacts: z.array(HarborArtifact).optional(),
  verifier: z.looseObject({
    timeout_sec: z.number().positive().optional(),
    env: TaskVerifier.shape.env,
    user: HarborUser,
    network_mode: NetworkMode.optional(),
    allowed_hosts: HarborHosts,
    environment_mode: z.enum(["shared", "separate"]).optional(),
    environment: HarborEnvironment.optional(),
    collect: z.array(z.looseObject({
      service: z.string().min(1).default("main"),
      command: z.string().min(1),
      user: HarborUser,
      timeout_sec: z.number().positive().default(HARBOR_COLLECT_TIMEOUT_SEC),
    })).optional(),
  }).default({}),
  agent: z.looseObject({
    timeout_sec: z.number().positive().optional(),
    user: HarborUser,
    network_mode: NetworkMode.optional(),
    allowed_hosts: HarborHosts,
  }).default({}),
  environment: HarborEnvironment.default({}),
});
type HarborTaskToml = z.infer<typeof HarborTaskToml>;

/**
 * Why each environment key is not applied (`[environment]` and
 * `[verifier.environment]`), for its warning.
 */
const NOT_APPLIED: Record<string, string> = {
  build_timeout_sec: "freeze builds without a time limit, as Harbor's Docker environment does",
  storage: "Harbor's older spelling: write storage_mb",
  memory: "Harbor's older spelling: write memory_mb",
  gpus: "episodes have no GPU",
  gpu_types: "episodes have no GPU",
  mcp_servers: "the agent is not configured with them; a sidecar serving one runs all the same",
  skills_dir: "the agent is not given the skills there; they stay in the image",
};

/**
 * The task directories a source names: the directory itself when it holds a
 * `task.toml`, else its subdirectories that hold one, sorted by name (a
 * dataset such as Terminal-Bench's `tasks/`).
 *
 * @param dir the source directory, as given
 * @returns the task directories, `dir` joined with each name
 * @throws {LedgerError} `io_error` when `dir` cannot be listed, or is no task and holds none
 */
export async function harborTaskDirs(dir: string): Promise<string[]> {
  if (await pathExists(`${dir}/task.toml`)) return [dir];
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory && await pathExists(`${dir}/${entry.name}/task.toml`)) {
        names.push(entry.name);
      }
    }
  } catch (error) {
    if (error instanceof LedgerError) throw error;
    throw ioError(dir, error);
  }
  if (names.length === 0) {
    throw ioError(dir, "not a Harbor task directory (no task.toml), nor holds one");
  }
  names.sort(byCodePoint);
  const base = dir.replace(/\/+$/, "");
  return names.map((name) => `${base}/${name}`);
}

/**
 * Reads one Harbor task directory (see the module doc for the mapping).
 *
 * Rules beyond the mapping: the task id is the directory's name and must fit
 * the manifest's id rule (no renaming); a multi-step task's steps are read
 * by `readSteps`; any other task's `tests/test.sh` must exist;
 * `environment/docker-compose.yaml` gives the task's sidecar services
 * (`readCompose`, shared mode only), and a separate verifier's
 * `tests/docker-compose.yaml` is refused, naming the services it
 * declares; a missing `solution/solve.sh` is a warning (no oracle). The working directory is not read here: the task's environment
 * runs as built (issue 22), so the built image's `WORKDIR`, with whatever
 * its `COPY` and `RUN` steps put there, is the candidate's workspace when
 * the episode runs (`runner/sandbox/environment_candidate.ts`).
 *
 * @param dir the task directory, as given (recorded in `source.dir`)
 * @param options `withoutInternet`, `passThreshold`, `rewardKey`, `rewardRule`, `verifierAllowHosts`
 * @returns the entry, the files to copy and the warnings
 * @throws {LedgerError} one problem naming the file (and the line and the
 *   field where there is one): a file that cannot be read or is not UTF-8,
 *   a TOML syntax error (line and column), a `task.toml` field of the wrong
 *   type, and every refusal above
 */
export async function readHarborTask(
  dir: string,
  options: ReadHarborTaskOptions = {},
): Promise<HarborTask> {
  const base = dir.replace(/\/+$/, "");
  const taskId = base.slice(base.lastIndexOf("/") + 1);
  if (!SuiteTaskEntry.shape.task_id.safeParse(taskId).success) {
    throw refusal(
      dir,
      `"${taskId}" (the directory's name) must be lower-case letters, digits, dashes and ` +
        "underscores, starting with a letter or digit: rename the directory",
      { field: "task_id" },
    );
  }
  const warnings: string[] = [];
  const tomlPath = `${base}/task.toml`;
  const tomlBytes = await readInput(tomlPath);
  const tomlText = strictText(tomlPath, tomlBytes);
  const config = parseTaskToml(tomlPath, tomlText, warnings);
  const mode = verifierMode(tomlPath, tomlText, config);
  // A separate verifier's own image (Harbor builds it from tests/), which holds its tests.
  const separateOwn = await pathIs(`${base}/tests/Dockerfile`, "file") ||
    config.verifier.environment?.docker_image !== undefined;
  const multiStep = await readSteps(base, tomlPath, tomlText, config, {
    mode,
    separateOwn,
    warnings,
  });
  const files: HarborTaskFile[] = [];
  let testShs: string[];
  if (multiStep === null) {
    strictText(`${base}/instruction.md`, await readInput(`${base}/instruction.md`));
    files.push({ from: `${base}/instruction.md`, to: "workspace/TASK.md" });
    const testSh = `${base}/tests/test.sh`;
    if (!(await pathIs(testSh, "file"))) {
      throw await windowsRefusal(`${base}/tests`) ??
        ioError(testSh, "missing: a Harbor task's verifier is tests/test.sh");
    }
    testShs = [testSh];
    files.push(...await treeFiles(`${base}/tests`, "verifier", { "test.sh": 0o755 }));
    if (await pathIs(`${base}/solution/solve.sh`, "file")) {
      files.push(...await treeFiles(`${base}/solution`, "solution", { "solve.sh": 0o755 }));
    } else {
      warnings.push("no solution/solve.sh: no oracle: suite check cannot prove this task");
    }
  } else {
    files.push(...multiStep.files);
    testShs = multiStep.testShs;
  }

  // A separate verifier with sidecars needs its own image: a fresh copy of the task's would lack them.
  const compose = await composeEnvironment(base, tomlPath, tomlText, mode, separateOwn);
  warnings.push(...compose.warnings);
  if (mode === "separate") {
    warnings.push(
      ...await refuseVerifierCompose(base),
    );
  }
  const environmentConfig = config.environment;
  const image = environmentConfig.docker_image;
  const dockerfile = `${base}/environment/Dockerfile`;
  let environment: SuiteTaskEntry["environment"];
  const environmentSource = harborEnvironmentSource(
    await pathIs(dockerfile, "file"),
    image,
    options.forceBuild === true,
    { file: tomlPath, text: tomlText, table: "environment", dockerfile: "environment/Dockerfile" },
  );
  if (environmentSource === "dockerfile") {
    environment = { dockerfile: "environment/Dockerfile" };
    files.push(...await treeFiles(`${base}/environment`, "environment", {}));
  } else if (environmentSource === "image") {
    environment = { image: image! };
  } else {
    throw refusal(
      tomlPath,
      "no environment/Dockerfile beside it and no docker_image: the task has no environment",
      { field: "environment.docker_image" },
    );
  }

  const agentNetwork = agentNetworkRule(tomlPath, tomlText, config, options);
  if (agentNetwork.waived) {
    warnings.push("asks for the internet: imported without it (internet_waived)");
  }
  warnings.push(...notApplied(config, mode));
  const verifierEnv = config.verifier.env;
  // Compose's main environment under [environment.env], as Harbor merges them.
  const environmentEnv = Object.keys(compose.mainEnv).length === 0
    ? config.environment.env
    : { ...compose.mainEnv, ...config.environment.env };
  for (
    const [table, env] of [["verifier", verifierEnv], ["environment", environmentEnv]] as const
  ) {
    if (env !== undefined && Object.values(env).some((v) => v.includes("${"))) {
      warnings.push(`[${table}] env holds \${...}: copied literally, not resolved from the host`);
    }
  }
  const verifier = {
    entry: "test.sh",
    mount: HARBOR_TESTS_MOUNT,
    mode,
    ...(config.verifier.user === undefined ? {} : { user: config.verifier.user }),
    verdict: "reward",
    pass_threshold: options.passThreshold ?? 1,
    reward_key: options.rewardKey ?? "reward",
    reward_rule: options.rewardRule ?? "key",
    wall_ms: Math.max(
      1,
      Math.round((config.verifier.timeout_sec ?? HARBOR_VERIFIER_TIMEOUT_SEC) * 1000),
    ),
    ...(verifierEnv === undefined ? {} : { env: verifierEnv }),
    ...allowHostsField(
      verifierAllowHosts(tomlPath, tomlText, config, mode, options.verifierAllowHosts, warnings),
    ),
    ...(mode === "separate"
      ? await separateVerifier(
        base,
        tomlPath,
        tomlText,
        config,
        options.forceBuild === true,
        compose.services.map((service) => service.name),
        // A multi-step task's tests are each step's copy of tests/ (none has its own here).
        multiStep === null ? "verifier" : `verifier/${multiStep.steps[0].name}`,
      )
      : artifactsNotApplied(config, warnings)),
  } as const;
  for (const testSh of testShs) {
    warnings.push(...await rewardFileWarning(testSh, verifier.reward_rule, verifier.reward_key));
  }
  const resources = {
    ...(environmentConfig.cpus === undefined ? {} : { cpus: environmentConfig.cpus }),
    ...(environmentConfig.memory_mb === undefined
      ? {}
      : { memory_mb: environmentConfig.memory_mb }),
    ...(environmentConfig.storage_mb === undefined
      ? {}
      : { storage_mb: environmentConfig.storage_mb }),
  };
  const agentTimeout = config.agent.timeout_sec;
  const entry = SuiteTaskEntry.parse({
    task_id: taskId,
    limits: {
      token_cap: null,
      step_cap: null,
      wall_ms_cap: multiStep !== null
        ? multiStep.wallMsCap
        : agentTimeout === undefined
        ? null
        : Math.round(agentTimeout * 1000),
    },
    environment,
    verifier,
    ...(Object.keys(resources).length === 0 ? {} : { resources }),
    ...(config.agent.user === undefined ? {} : { agent_user: config.agent.user }),
    ...(environmentConfig.workdir === undefined ? {} : { workdir: environmentConfig.workdir }),
    ...(environmentEnv === undefined || Object.keys(environmentEnv).length === 0
      ? {}
      : { environment_env: environmentEnv }),
    ...(environmentConfig.healthcheck === undefined
      ? {}
      : { environment_healthcheck: healthcheckEntry(environmentConfig.healthcheck) }),
    ...(agentNetwork.waived ? { internet_waived: true } : {}),
    ...(agentNetwork.network === undefined ? {} : { agent_network: agentNetwork.network }),
    ...(compose.services.length === 0 ? {} : {
      services: compose.services,
      ...(Object.keys(compose.mainDependsOn).length === 0
        ? {}
        : { environment_depends_on: compose.mainDependsOn }),
      ...(compose.mainVolumes.length === 0 ? {} : { environment_volumes: compose.mainVolumes }),
    }),
    ...(multiStep === null ? {} : {
      steps: multiStep.steps,
      ...(config.multi_step_reward_strategy === undefined
        ? {}
        : { step_reward: config.multi_step_reward_strategy }),
    }),
    source: { format: "harbor", dir, task_toml_sha256: sha256Hex(tomlBytes) },
  });
  return { dir, entry, files, warnings };
}

/** Seconds as whole milliseconds, at least one. */
function seconds(value: number): number {
  return Math.max(1, Math.round(value * 1000));
}

/** Whether one absolute path is, lies inside or holds the other. */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** Sorts strings by code point (no locale). */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A multi-step task, read ({@link readSteps}). */
interface HarborSteps {
  steps: TaskStep[];
  /** The files of every step: instruction, tests (Harbor's `tests/` under the step's own), oracle. */
  files: HarborTaskFile[];
  /** Each step's `test.sh` as its source holds it (the step's own, else the task's). */
  testShs: string[];
  /** The episode's wall cap: the steps' caps summed, null when one step has none. */
  wallMsCap: number | null;
}

/**
 * Reads a multi-step task (Harbor's `[[steps]]`, `trial/multi_step.py`):
 * each step's `steps/<name>/instruction.md` becomes `steps/<name>/TASK.md`
 * (the first also `workspace/TASK.md`), its `workdir/` (uploaded to the
 * working directory before the step, its `setup.sh` run there) is copied
 * as `steps/<name>/workdir/`, its `[steps.healthcheck]` is the step's
 * `healthcheck`; its tests are Harbor's upload for
 * the step, the task's `tests/` with the step's `steps/<name>/tests/` over
 * it, as `verifier/<name>/`, one `test.sh` required; its
 * `steps/<name>/solution/` becomes `solution/<name>/` (none: a warning, no
 * oracle). A step's agent wall cap is its `[steps.agent] timeout_sec`,
 * else the task's `[agent] timeout_sec`; its verifier's, its own
 * `timeout_sec` when it sets one. A step key not read is a warning.
 *
 * @returns the steps, or null for a task without `[[steps]]`
 * @throws {LedgerError} for a `steps/` directory without `[[steps]]`, a
 *   step name that is no directory name or repeats, a separate verifier, a
 *   step without instruction or `test.sh`
 */
async function readSteps(
  base: string,
  tomlPath: string,
  text: string,
  config: HarborTaskToml,
  { mode, separateOwn, warnings }: {
    mode: "shared" | "separate";
    /** The separate verifier has its own image (which holds its tests). */
    separateOwn: boolean;
    warnings: string[];
  },
): Promise<HarborSteps | null> {
  const steps = config.steps ?? [];
  const at = { line: tomlKeyLine(text, "steps"), field: "steps" };
  if (steps.length === 0) {
    if (await pathIs(`${base}/steps`, "directory")) {
      throw refusal(`${base}/steps`, "a steps/ directory, but task.toml has no [[steps]]");
    }
    return null;
  }
  const files: HarborTaskFile[] = [];
  const testShs: string[] = [];
  const entries: TaskStep[] = [];
  const taskTimeout = config.agent.timeout_sec;
  let wallMsCap: number | null = 0;
  for (const [index, step] of steps.entries()) {
    const name = TaskStep.shape.name.safeParse(step.name);
    if (!name.success || entries.some((e) => e.name === step.name)) {
      throw refusal(
        tomlPath,
        `step ${JSON.stringify(step.name)} ${
          name.success ? "repeats" : "must be a directory name (letters, digits, '.', '_', '-')"
        }`,
        { ...at, field: `steps[${index}].name` },
      );
    }
    const dir = `${base}/steps/${step.name}`;
    const stepVerifier = step.verifier as Record<string, unknown>;
    const stepMode = stepVerifier.environment_mode ??
      (stepVerifier.environment === undefined ? mode : "separate");
    if (stepMode !== mode || stepVerifier.environment !== undefined) {
      throw refusal(
        tomlPath,
        `step "${step.name}" sets its own verifier environment, which is not supported: every ` +
          `step is verified in the task's ${mode} mode here`,
        { line: tomlKeyLine(text, "steps.verifier"), field: `steps[${index}].verifier` },
      );
    }
    // Harbor builds a separate verifier's image from each step's own tests/ (its Dockerfile).
    if (
      mode === "separate" && separateOwn &&
      await pathIs(`${base}/steps/${step.name}/tests`, "directory")
    ) {
      throw refusal(
        `${base}/steps/${step.name}/tests`,
        "a step's own tests/ with a separate verifier (an image per step) is not supported: the " +
          "steps share the task's verifier",
      );
    }
    if (await pathIs(`${dir}/workdir`, "directory")) {
      files.push(...await treeFiles(`${dir}/workdir`, `steps/${step.name}/workdir`, {}));
    }
    const instruction = `${dir}/instruction.md`;
    strictText(instruction, await readInput(instruction));
    files.push({ from: instruction, to: `steps/${step.name}/TASK.md` });
    if (index === 0) files.push({ from: instruction, to: "workspace/TASK.md" });
    const tests = new Map<string, HarborTaskFile>();
    for (const root of [`${base}/tests`, `${dir}/tests`]) {
      if (!(await pathIs(root, "directory"))) continue;
      for (const file of await treeFiles(root, `verifier/${step.name}`, { "test.sh": 0o755 })) {
        tests.set(file.to, file);
      }
    }
    const testSh = tests.get(`verifier/${step.name}/test.sh`);
    if (testSh === undefined) {
      throw await windowsRefusal(`${dir}/tests`) ??
        ioError(`${dir}/tests/test.sh`, "missing, and the task has no tests/test.sh");
    }
    testShs.push(testSh.from);
    files.push(...tests.values());
    if (await pathIs(`${dir}/solution/solve.sh`, "file")) {
      files.push(
        ...await treeFiles(`${dir}/solution`, `solution/${step.name}`, { "solve.sh": 0o755 }),
      );
    } else {
      warnings.push(`step "${step.name}" has no solution/solve.sh: suite check cannot prove it`);
    }
    const artifacts = mode === "separate"
      ? (step.artifacts ?? []).map((entry, i) =>
        artifactPath(tomlPath, entry, {
          line: tomlKeyLine(text, "steps"),
          field: `steps[${index}].artifacts.${i}`,
        })
      )
      : [];
    for (const key of Object.keys(step)) {
      if (key === "artifacts" && mode === "separate") continue;
      if (!["name", "agent", "verifier", "min_reward", "healthcheck"].includes(key)) {
        warnings.push(`[[steps]] "${step.name}": ${key} not applied`);
      }
    }
    for (const table of ["agent", "verifier"] as const) {
      const read = table === "agent" ? ["timeout_sec"] : ["timeout_sec", "env"];
      for (const key of Object.keys(step[table]).filter((k) => !read.includes(k))) {
        warnings.push(`[[steps]] "${step.name}": [${table}] ${key} not applied`);
      }
    }
    const timeout = step.agent.timeout_sec ?? taskTimeout;
    const verifierTimeout = step.verifier.timeout_sec;
    wallMsCap = timeout === undefined || wallMsCap === null
      ? null
      : wallMsCap + Math.round(timeout * 1000);
    entries.push({
      name: step.name,
      ...(timeout === undefined ? {} : { wall_ms_cap: seconds(timeout) }),
      ...(verifierTimeout === undefined ? {} : { verifier_wall_ms: seconds(verifierTimeout) }),
      ...(step.verifier.env === undefined ? {} : { verifier_env: step.verifier.env }),
      ...(step.min_reward === undefined ? {} : { min_reward: step.min_reward }),
      ...(step.healthcheck === undefined
        ? {}
        : { healthcheck: healthcheckEntry(step.healthcheck) }),
      ...(artifacts.length === 0 ? {} : { artifacts }),
    });
  }
  return { steps: entries, files, testShs, wallMsCap };
}

/**
 * The refusal of a Windows task (Harbor's `test.bat` in place of `test.sh`,
 * run in a Windows container): episodes run Linux containers. Null when
 * `testsDir` holds no `test.bat`.
 */
async function windowsRefusal(testsDir: string): Promise<LedgerError | null> {
  if (!(await pathIs(`${testsDir}/test.bat`, "file"))) return null;
  return refusal(
    `${testsDir}/test.bat`,
    "a Windows task (test.bat in place of test.sh) is not supported: episodes run in Linux " +
      "containers",
  );
}

/**
 * An artifact path as the manifest keeps it (a trailing `/` dropped):
 * absolute, outside the sandbox's reserved places, and clear of the
 * verifier's mount `/tests`.
 *
 * @throws {LedgerError} at `at`, quoting `raw`, with the rule it breaks
 */
function artifactPath(file: string, raw: string, at: { line: number; field: string }): string {
  const path = raw.length > 1 ? raw.replace(/\/+$/, "") : raw;
  const checked = TaskVerifier.shape.artifacts.unwrap().element.safeParse(path);
  if (!checked.success) throw refusal(file, `"${raw}" ${checked.error.issues[0].message}`, at);
  if (overlaps(path, HARBOR_TESTS_MOUNT)) {
    throw refusal(
      file,
      `"${raw}" must not be, lie inside or hold the verifier's mount "${HARBOR_TESTS_MOUNT}" ` +
        "(the hidden files)",
      at,
    );
  }
  return path;
}

/**
 * Harbor's verifier mode: `environment_mode` when given, else `separate`
 * when a `[verifier.environment]` table exists, else `shared`.
 *
 * @throws {LedgerError} for `environment_mode = "shared"` with the table (Harbor refuses it)
 */
function verifierMode(file: string, text: string, config: HarborTaskToml): "shared" | "separate" {
  const given = config.verifier.environment_mode;
  const table = config.verifier.environment !== undefined;
  if (given === "shared" && table) {
    throw refusal(
      file,
      'environment_mode = "shared" with a [verifier.environment] table: the table is a ' +
        'separate verifier\'s environment (Harbor refuses the pair too): write "separate" or ' +
        "drop the table",
      {
        line: tomlKeyLine(text, "verifier.environment_mode"),
        field: "verifier.environment_mode",
      },
    );
  }
  return given === "separate" || table ? "separate" : "shared";
}

/**
 * The task's Compose environment (`environment/docker-compose.yaml` or
 * `.yml`, read by `readCompose`): its sidecar services, what `main` waits
 * for and mounts, and the warnings (each naming the file). A file that
 * declares only `main` beside a Dockerfile (Harbor's airgapped form) is
 * that Dockerfile, with a warning. A separate verifier beside sidecars
 * needs its own environment (`separateOwn`): a fresh copy of the task's
 * would need its own sidecars.
 *
 * @throws {LedgerError} what `readCompose` refuses, and sidecars with a separate verifier
 *   in a fresh copy of the task's environment
 */
async function composeEnvironment(
  base: string,
  tomlPath: string,
  tomlText: string,
  mode: "shared" | "separate",
  separateOwn: boolean,
): Promise<ComposeEnvironment> {
  const none: ComposeEnvironment = {
    services: [],
    mainDependsOn: {},
    mainVolumes: [],
    mainEnv: {},
    warnings: [],
  };
  for (const name of ["docker-compose.yaml", "docker-compose.yml"]) {
    const path = `${base}/environment/${name}`;
    if (!(await pathExists(path))) continue;
    const read = readCompose(path, strictText(path, await readInput(path)), "environment");
    const warnings = read.warnings.map((warning) => `environment/${name}: ${warning}`);
    if (read.services.length === 0) {
      return {
        ...none,
        mainEnv: read.mainEnv,
        warnings: [
          ...warnings,
          `environment/${name} declares only the main service: the task's environment is one ` +
          "container, its Dockerfile or image",
        ],
      };
    }
    if (mode === "separate" && !separateOwn) {
      throw refusal(
        tomlPath,
        `sidecar services (environment/${name}: ${
          read.services.map((service) => service.name).join(", ")
        }) with a separate verifier in a fresh copy of the task's environment are not ` +
          "supported: give the verifier its own environment (tests/Dockerfile)",
        { line: tomlKeyLine(tomlText, "verifier"), field: "verifier.environment_mode" },
      );
    }
    return { ...read, warnings };
  }
  return none;
}

/**
 * Refuses a separate verifier's Compose file (`tests/docker-compose.yaml`
 * or `.yml`), naming the services it declares (sidecars run only in
 * Harbor's shared mode here); one that declares only Harbor's `main`
 * beside `tests/Dockerfile` is that Dockerfile (Harbor's airgapped form),
 * with a warning that its own settings are not read.
 *
 * @returns the warnings (the main-only form's)
 * @throws {LedgerError} `schema_violation` naming the Compose file
 */
async function refuseVerifierCompose(base: string): Promise<string[]> {
  for (const name of ["docker-compose.yaml", "docker-compose.yml"]) {
    const path = `${base}/tests/${name}`;
    if (!(await pathExists(path))) continue;
    const services = composeServiceNames(path, strictText(path, await readInput(path)));
    if (services.join() === "main" && await pathIs(`${base}/tests/Dockerfile`, "file")) {
      return [
        `tests/${name} declares only the main service: the separate verifier's image is ` +
        "tests/Dockerfile, and the Compose file's own settings are not read",
      ];
    }
    const declared = services.length === 0
      ? "it declares no services"
      : `it declares the service${services.length === 1 ? "" : "s"} ${services.join(", ")}`;
    throw refusal(
      path,
      `a separate verifier's Compose environment is not supported (${declared}; sidecars ` +
        "run only in Harbor's shared mode here): give the separate verifier a tests/Dockerfile",
    );
  }
  return [];
}

/** Whether a value asks for nothing: `0`, `false`, `""`, `[]` or an empty table. */
function asksNothing(value: unknown): boolean {
  if (value === 0 || value === false || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

/**
 * A key and its value as a warning shows them: `key = 600`, `key = "/skills"`,
 * `key = ["a", "b"]`; a table by its keys (`env (A, B)`: never the values,
 * which may be secrets); an array of tables by their `name`s.
 */
function describeKey(key: string, value: unknown): string {
  const scalar = (v: unknown) => typeof v === "string" ? JSON.stringify(v) : String(v);
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== "object" || v === null)) {
      return `${key} = [${value.map(scalar).join(", ")}]`;
    }
    const names = value.map((v, i) => {
      const name = (v as { name?: unknown } | null)?.name;
      return typeof name === "string" ? name : `#${i + 1}`;
    });
    return `${key} (${names.join(", ")})`;
  }
  if (typeof value === "object" && value !== null) {
    return `${key} (${Object.keys(value).join(", ")})`;
  }
  return `${key} = ${scalar(value)}`;
}

/**
 * The warnings for the keys that are read but not applied (see the module
 * doc's table), in the schema's order: `multi_step_reward_strategy`,
 * `[solution] env`, the `[environment]` keys of {@link NOT_APPLIED}, and a
 * separate verifier's `[verifier.environment]` keys but its image and network.
 */
function notApplied(config: HarborTaskToml, mode: "shared" | "separate"): string[] {
  const out: string[] = [];
  const strategy = config.multi_step_reward_strategy;
  if (strategy !== undefined && config.steps === undefined) {
    out.push(
      `${describeKey("multi_step_reward_strategy", strategy)} not applied (a multi-step ` +
        "setting, and the task has no steps)",
    );
  }
  if (config.solution.env !== undefined && !asksNothing(config.solution.env)) {
    out.push(
      `[solution] ${describeKey("env", config.solution.env)} not applied (suite check runs ` +
        "solve.sh without it)",
    );
  }
  const table = (name: string, values: HarborEnvironment, reasons: Record<string, string>) => {
    for (const key of Object.keys(HarborEnvironment.shape)) {
      const value = (values as Record<string, unknown>)[key];
      if (!Object.hasOwn(reasons, key) || value === undefined || asksNothing(value)) continue;
      out.push(`[${name}] ${describeKey(key, value)} not applied (${reasons[key]})`);
    }
  };
  table("environment", config.environment, NOT_APPLIED);
  const verifierTable = config.verifier.environment;
  if (mode === "separate" && verifierTable !== undefined) {
    const resources = "the verifier gets the task's resources";
    table("verifier.environment", verifierTable, {
      ...NOT_APPLIED,
      cpus: resources,
      memory_mb: resources,
      workdir: "the verifier runs in its image's WORKDIR",
      env: "the verifier's environment is not given these variables",
      healthcheck: "nothing waits for it",
    });
  }
  return out;
}

/**
 * The verifier's `allow_hosts` (see the module doc): the operator's hosts,
 * plus Harbor's `allowed_hosts` when the verifier's phase is in `allowlist`
 * mode, lower-cased, each once, sorted; a warning when the phase asks for
 * the public internet, and for a `[verifier] allowed_hosts` that its mode
 * leaves unused.
 *
 * @throws {LedgerError} `schema_violation` naming a Harbor host that is no {@link AllowHost}
 */
function verifierAllowHosts(
  file: string,
  text: string,
  config: HarborTaskToml,
  mode: "shared" | "separate",
  operator: readonly string[] | undefined,
  warnings: string[],
): string[] {
  const verifier = config.verifier;
  const own = mode === "separate" ? verifier.environment : undefined;
  const [prefix, baseline] = own === undefined
    ? ["environment", config.environment]
    : ["verifier.environment", own];
  const baselineMode = baseline.network_mode ??
    (baseline.allow_internet === false ? "no-network" : "public");
  const phaseMode = verifier.network_mode ?? baselineMode;
  let harbor: string[] = [];
  if (phaseMode === "allowlist") {
    const field = verifier.network_mode !== undefined
      ? "verifier.allowed_hosts"
      : `${prefix}.allowed_hosts`;
    const given =
      (verifier.network_mode !== undefined ? verifier.allowed_hosts : baseline.allowed_hosts) ?? [];
    harbor = harborHosts(file, text, field, given);
  } else if (verifier.allowed_hosts !== undefined && verifier.allowed_hosts.length > 0) {
    warnings.push(
      `[verifier] ${describeKey("allowed_hosts", verifier.allowed_hosts)} not applied (the ` +
        `verifier's network_mode is "${phaseMode}", not "allowlist")`,
    );
  }
  const hosts = [...new Set([...(operator ?? []), ...harbor])].sort(byCodePoint);
  if (phaseMode === "public") {
    const why = verifier.network_mode !== undefined
      ? '[verifier] network_mode = "public"'
      : baseline.network_mode !== undefined
      ? `[${prefix}] network_mode = "public"`
      : baseline.allow_internet === true
      ? `[${prefix}] allow_internet = true`
      : `[${prefix}] allow_internet is absent, and Harbor's default is true`;
    warnings.push(
      `the verifier asks for the internet (${why}): it may reach only the hosts given with ` +
        `--verifier-allow-host: ${hosts.length === 0 ? "none" : hosts.join(", ")}`,
    );
  }
  return hosts;
}

/**
 * Harbor's `allowed_hosts` as allow-list entries: each lower-cased and
 * checked against {@link AllowHost}.
 *
 * @throws {LedgerError} `schema_violation` naming the host, its line and its index
 */
function harborHosts(
  file: string,
  text: string,
  field: string,
  given: readonly string[],
): string[] {
  return given.map((host, index) => {
    const lower = host.toLowerCase();
    const checked = AllowHost.safeParse(lower);
    if (!checked.success) {
      throw refusal(file, `"${host}" ${checked.error.issues[0].message}`, {
        line: tomlKeyLine(text, field),
        field: `${field}.${index}`,
      });
    }
    return lower;
  });
}

/** `{allow_hosts}` when there are hosts, else nothing (absent: none). */
function allowHostsField(hosts: string[]): { allow_hosts?: string[] } {
  return hosts.length === 0 ? {} : { allow_hosts: hosts };
}

/** Harbor's top-level `artifacts`, as paths (a table's `source`). */
function artifactSources(config: HarborTaskToml): string[] {
  return (config.artifacts ?? []).map((a) => typeof a === "string" ? a : a.source);
}

/** In shared mode: a warning for the `artifacts`, which only a separate verifier receives. */
function artifactsNotApplied(config: HarborTaskToml, warnings: string[]): Record<never, never> {
  const sources = artifactSources(config);
  if (sources.length > 0) {
    warnings.push(
      `${describeKey("artifacts", sources)} not applied (only a separate verifier receives ` +
        "them; a shared one sees the candidate's container as it is)",
    );
  }
  return {};
}

/**
 * A separate verifier's fields: its `environment` (`<testsDir>/Dockerfile`,
 * the copy of `tests/Dockerfile`, when that exists, else `[verifier.environment]
 * docker_image`; without the table and without `tests/Dockerfile`, the
 * task's own environment), its `artifacts` (a sidecar's as
 * `service_artifacts`) and its `collect` hooks.
 *
 * @throws {LedgerError} for a `[verifier.environment]` with neither, and
 *   for an artifact path the manifest refuses (its rule worded, at `artifacts`)
 */
async function separateVerifier(
  base: string,
  file: string,
  text: string,
  config: HarborTaskToml,
  forceBuild: boolean,
  services: readonly string[],
  testsDir: string,
): Promise<Pick<TaskVerifier, "environment" | "artifacts" | "service_artifacts" | "collect">> {
  const table = config.verifier.environment;
  const image = table?.docker_image;
  let environment: TaskVerifier["environment"];
  const source = harborEnvironmentSource(
    await pathIs(`${base}/tests/Dockerfile`, "file"),
    image,
    forceBuild,
    { file, text, table: "verifier.environment", dockerfile: "tests/Dockerfile" },
  );
  if (source === "dockerfile") {
    environment = { dockerfile: `${testsDir}/Dockerfile` };
  } else if (source === "image") {
    environment = { image: image! };
  } else if (table !== undefined) {
    throw refusal(
      file,
      "a separate verifier environment with neither a tests/Dockerfile nor a docker_image: " +
        "the verifier has nothing to run in",
      { line: tomlKeyLine(text, "verifier.environment"), field: "verifier.environment" },
    );
  }
  const artifacts: string[] = [];
  const serviceArtifacts: NonNullable<TaskVerifier["service_artifacts"]> = [];
  for (const [index, entry] of (config.artifacts ?? []).entries()) {
    const raw = typeof entry === "string" ? entry : entry.source;
    const at = { line: tomlKeyLine(text, "artifacts"), field: `artifacts.${index}` };
    const path = artifactPath(file, raw, at);
    const service = typeof entry === "string" ? undefined : entry.service;
    if (service === undefined || service === "main") {
      if (!artifacts.includes(path)) artifacts.push(path);
    } else if (!services.includes(service)) {
      throw refusal(file, `"${raw}" names the service "${service}", which the task lacks`, at);
    } else if (!serviceArtifacts.some((a) => a.service === service && a.path === path)) {
      serviceArtifacts.push({ service, path });
    }
  }
  const collect: NonNullable<TaskVerifier["collect"]> = [];
  for (const [index, hook] of (config.verifier.collect ?? []).entries()) {
    if (hook.service !== "main" && !services.includes(hook.service)) {
      throw refusal(file, `collects from the service "${hook.service}", which the task lacks`, {
        line: tomlKeyLine(text, "verifier.collect"),
        field: `verifier.collect.${index}.service`,
      });
    }
    collect.push({
      service: hook.service,
      command: hook.command,
      timeout_ms: seconds(hook.timeout_sec),
      ...(hook.user === undefined ? {} : { user: hook.user }),
    });
  }
  return {
    ...(environment === undefined ? {} : { environment }),
    ...(artifacts.length === 0 ? {} : { artifacts }),
    ...(serviceArtifacts.length === 0 ? {} : { service_artifacts: serviceArtifacts }),
    ...(collect.length === 0 ? {} : { collect }),
  };
}

/**
 * A warning when `tests/test.sh` mentions `reward.json` and the `key` rule
 * decides: a reward file of several dimensions (Harbor's cookbook
 * `multi-reward`) may lack the key, a verifier fault on every episode.
 */
async function rewardFileWarning(
  testSh: string,
  rule: RewardRule,
  key: string,
): Promise<string[]> {
  if (rule !== "key") return [];
  const text = strictText(testSh, await readInput(testSh));
  if (!text.includes("reward.json")) return [];
  return [
    `tests/test.sh mentions reward.json: the verdict is its key "${key}" (a file without it ` +
    "is a verifier fault); choose with --reward-key KEY or --reward-rule min|mean",
  ];
}

/**
 * Harbor's network rule for the agent's phase (`EnvironmentConfig.resolve_baseline`):
 * an explicit `network_mode` wins, else `allow_internet`, true when absent; the agent's
 * own `network_mode` overrides it for the agent's phase. `no-network` gives the agent
 * none; `public` is `agent_network` `{"mode": "public"}` (the plan says which hosts);
 * `allowlist` is the phase's `allowed_hosts` (its own when it sets the mode, else the
 * baseline's), lower-cased, each once, sorted. With `withoutInternet`, a task that
 * asks for a network is imported without one, `internet_waived`.
 *
 * @returns the agent's network (absent: none) and whether it was waived
 * @throws {LedgerError} `schema_violation` naming a Harbor host that is no {@link AllowHost},
 *   or an allowlist without hosts
 */
function agentNetworkRule(
  file: string,
  text: string,
  config: HarborTaskToml,
  options: ReadHarborTaskOptions,
): { network?: AgentNetwork; waived: boolean } {
  const environment = config.environment;
  const agentMode = config.agent.network_mode;
  const baseline = environment.network_mode ??
    (environment.allow_internet === false ? "no-network" : "public");
  const mode = agentMode ?? baseline;
  if (mode === "no-network") return { waived: false };
  if (options.withoutInternet === true) return { waived: true };
  if (mode === "public") return { network: { mode: "public" }, waived: false };
  const field = agentMode !== undefined ? "agent.allowed_hosts" : "environment.allowed_hosts";
  const given =
    (agentMode !== undefined ? config.agent.allowed_hosts : environment.allowed_hosts) ??
      [];
  const hosts = harborHosts(file, text, field, given);
  if (hosts.length === 0) {
    throw refusal(
      file,
      'network_mode = "allowlist" with no allowed_hosts: write the hosts, or "no-network"',
      { line: tomlKeyLine(text, field.replace("allowed_hosts", "network_mode")), field },
    );
  }
  return {
    network: { mode: "allowlist", allow_hosts: [...new Set(hosts)].sort(byCodePoint) },
    waived: false,
  };
}

/** Decodes a file's bytes strictly (UTF-8, no byte-order mark), or throws naming the file. */
function strictText(file: string, bytes: Uint8Array): string {
  const decoded = decodeStrictText(bytes);
  if (!decoded.ok) throw new LedgerError([{ file, ...decoded.problem }]);
  return decoded.text;
}

/**
 * Parses `task.toml` and checks the keys that are read; a key Harbor's
 * schema does not have becomes a warning.
 */
function parseTaskToml(file: string, text: string, warnings: string[]): HarborTaskToml {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split("\n")[0].replace(/^Invalid TOML document: /, "");
    throw refusal(file, `invalid TOML at column ${error.column}: ${reason}`, {
      line: error.line,
      code: "malformed_json",
    });
  }
  const result = HarborTaskToml.safeParse(raw);
  if (!result.success) {
    throw new LedgerError(result.error.issues.map((issue): LedgerProblem => {
      const problem = schemaProblem(issue, raw);
      return {
        code: "schema_violation",
        file,
        line: tomlKeyLine(text, problem.field),
        ...problem,
      };
    }));
  }
  const config = result.data;
  const known = (schema: z.ZodObject) => new Set(Object.keys(schema.shape));
  const tables: [string, Record<string, unknown> | undefined, z.ZodObject][] = [
    ["", config, HarborTaskToml],
    ["solution.", config.solution, HarborTaskToml.shape.solution.unwrap()],
    ["verifier.", config.verifier, HarborTaskToml.shape.verifier.unwrap()],
    ["verifier.environment.", config.verifier.environment, HarborEnvironment],
    ["agent.", config.agent, HarborTaskToml.shape.agent.unwrap()],
    ["environment.", config.environment, HarborEnvironment],
  ];
  for (const [prefix, table, schema] of tables) {
    if (table === undefined) continue;
    const keys = known(schema);
    for (const key of Object.keys(table)) {
      if (!keys.has(key)) {
        const line = tomlKeyLine(text, prefix + key);
        warnings.push(
          `${file}${line > 0 ? `:${line}` : ""}: unknown key "${prefix}${key}" ` +
            "(not in Harbor's task.toml schema): ignored",
        );
      }
    }
  }
  return config;
}

/**
 * The 1-based line where a dotted key (`verifier.timeout_sec`) is set in a
 * TOML text (or the `[table]` or first `[[array]]` header it names), under
 * its header or as a dotted key; 0 when it cannot be found (an inline
 * table, a quoted key).
 */
function tomlKeyLine(text: string, field: string): number {
  const lines = text.split("\n");
  let table = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const header = /^\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?/.exec(line);
    if (header !== null) {
      table = header[1];
      if (table === field) return i + 1;
      continue;
    }
    const key = /^([A-Za-z0-9_.-]+)\s*=/.exec(line)?.[1].replaceAll(/\s/g, "");
    if (key === undefined) continue;
    const full = table === "" ? key : `${table}.${key}`;
    if (full === field) return i + 1;
  }
  return 0;
}

/**
 * A refusal of the source, as one problem: `schema_violation` at a line
 * (0: the whole file) and a field (`""`: none), or `malformed_json` for a
 * TOML syntax error (the problem codes have no TOML one).
 */
/**
 * Which environment of a phase runs, by Harbor's rule (its Docker
 * environment's `start`): the prebuilt `docker_image` when the task names
 * one, unless `--force-build`, which builds the Dockerfile instead; the
 * Dockerfile when there is no image. Null when there is neither.
 *
 * @throws {LedgerError} under `--force-build` when there is an image but no Dockerfile to build
 */
function harborEnvironmentSource(
  hasDockerfile: boolean,
  image: string | undefined,
  forceBuild: boolean,
  at: { file: string; text: string; table: string; dockerfile: string },
): "image" | "dockerfile" | null {
  if (hasDockerfile && (image === undefined || forceBuild)) return "dockerfile";
  if (image === undefined) return null;
  if (forceBuild) {
    const field = `${at.table}.docker_image`;
    throw refusal(
      at.file,
      `--force-build, but there is no ${at.dockerfile} to build (only the image "${image}")`,
      { line: tomlKeyLine(at.text, field), field },
    );
  }
  return "image";
}

function refusal(
  file: string,
  message: string,
  at: { line?: number; field?: string; code?: LedgerProblem["code"] } = {},
): LedgerError {
  const { line = 0, field = "", code = "schema_violation" } = at;
  return new LedgerError([{ code, file, line, field, message }]);
}

/**
 * Every regular file under `root`, relative paths sorted; a symbolic link or
 * special file is refused (the suite hash refuses them too).
 */
async function listTree(root: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  const dir = prefix === "" ? root : `${root}/${prefix}`;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    throw ioError(dir, error);
  }
  for (const entry of entries) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory) out.push(...await listTree(root, path));
    else if (entry.isFile) out.push(path);
    else {
      throw refusal(
        `${root}/${path}`,
        "is a symbolic link or special file: only regular files are imported",
      );
    }
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The files of a source tree mapped under `to`, with modes set for the names in `modes`. */
async function treeFiles(
  root: string,
  to: string,
  modes: Record<string, number>,
): Promise<HarborTaskFile[]> {
  return (await listTree(root)).map((path) => ({
    from: `${root}/${path}`,
    to: `${to}/${path}`,
    ...(Object.hasOwn(modes, path) ? { mode: modes[path] } : {}),
  }));
}
