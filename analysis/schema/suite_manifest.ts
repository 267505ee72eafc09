/**
 * The manifest of a suite (`suite.json`), generated or written by hand:
 * tasks with id, lane, weight and limits, and for a generated suite a
 * commitment to its private seed. The task files sit beside it:
 *
 * ```text
 * suite.json
 * tasks/<task_id>/workspace/…      what the candidate sees (TASK.md included)
 * tasks/<task_id>/verifier/…       hidden: verify.sh or verify.ts (or the task's
 *                                  `verifier.entry`), setup.sh, their data; for a
 *                                  judged task rubric.json and reference.md; for a
 *                                  separate verifier, maybe its Dockerfile
 * tasks/<task_id>/solution/solve.sh  hidden: the oracle (`suite check` runs it)
 * tasks/<task_id>/environment/…    the task's Dockerfile and its build context, if any
 * tasks/<task_id>/answer.md        hidden: a model answer that solves the task (scripted agents)
 * tasks/<task_id>/wrong_answer.md  hidden: a plausible answer that does not
 * ```
 *
 * Seed 000 (§01): the same seed gives byte-identical tasks, another seed
 * changes every variant; answers and verifiers live outside git, readable by
 * the owner only. A hand-written suite has no seed (issue 12): it leaves out
 * `seed_sha256` and `public_seed`; the suite hash (`suite_sha256.ts`) covers
 * every file either way. The smallest manifest names the suite and its tasks:
 *
 * ```json
 * {"suite_id": "my-suite", "tasks": [{"task_id": "fix-parser"}]}
 * ```
 *
 * @module
 */
import { z } from "zod";
import { AllowHost } from "./allow_host.ts";
import { Sha256 } from "./records.ts";

/** File name of the manifest inside a suite directory. */
export const SUITE_MANIFEST = "suite.json";

const Cap = z.number().int().nonnegative().nullable();

/** Budgets one task suggests (null or absent: no cap). */
export const TaskLimits = z.object({
  token_cap: Cap.default(null),
  step_cap: Cap.default(null),
  wall_ms_cap: Cap.default(null),
}).strict();
export type TaskLimits = z.infer<typeof TaskLimits>;

/**
 * The paths the sandbox itself mounts or needs in its containers: a task's
 * `workdir` or `verifier.mount` may be neither one of them nor inside one,
 * so that no task can put its workspace over the hidden files, the verdict
 * channel, the kit, the gate or the scratch space.
 */
export const RESERVED_CONTAINER_PATHS = [
  "/workspace",
  "/verifier",
  "/solution",
  "/tmp",
  "/scratch",
  "/logs",
  "/ledgerbench",
  "/opt/ledgerbench",
  "/.ledgerbench",
  "/proc",
  "/sys",
  "/dev",
  "/etc",
] as const;

/**
 * An absolute path inside a container of plain names, without `.` or `..`
 * parts or a trailing slash, that is not one of `reserved` nor inside one
 * (and, with `holding`, does not hold one either).
 */
function plainContainerPath(reserved: readonly string[], holding: boolean) {
  return z.string().regex(
    /^(\/[A-Za-z0-9._-]+)+$/,
    "must be an absolute path of plain names (letters, digits, '.', '_', '-')",
  ).refine((path) => !path.split("/").some((part) => part === "." || part === ".."), {
    message: "must not contain '.' or '..' parts",
  }).refine(
    (path) =>
      !reserved.some((place) =>
        path === place || path.startsWith(`${place}/`) ||
        (holding && place.startsWith(`${path}/`))
      ),
    {
      message: `must not be${holding ? ", lie inside or hold" : " or lie inside"} ${
        reserved.join(", ")
      }`,
    },
  );
}

/** An absolute path inside a container, without `..`, a trailing slash or a reserved place. */
const ContainerPath = plainContainerPath(RESERVED_CONTAINER_PATHS, false);

/** Variables given to processes, by name (never a secret: they are written into suite.json). */
const EnvVariables = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string());

/**
 * The task's own environment (issue 12): an image already present in the
 * local engine (never pulled), or a Dockerfile inside the task directory
 * whose directory is the build context, built offline by `freeze` (its
 * base images must be present). Absent: the default images (the agent's own
 * image for the candidate, the verifier image for the verifier).
 */
export const TaskEnvironment = z.union([
  z.object({ image: z.string().min(1) }).strict(),
  z.object({
    dockerfile: z.string().regex(
      /^(?!\/)(?!.*(^|\/)\.\.(\/|$)).+$/,
      "must be a path inside the task directory (relative, no '..')",
    ),
    /**
     * The build context, a directory of the task holding the Dockerfile
     * (Compose's `build.context` with a `dockerfile` below it); absent: the
     * Dockerfile's own directory.
     */
    context: z.string().regex(
      /^(?!\/)(?!.*(^|\/)\.\.(\/|$)).+$/,
      "must be a path inside the task directory (relative, no '..')",
    ).optional(),
  }).strict().refine(
    (built) => built.context === undefined || built.dockerfile.startsWith(`${built.context}/`),
    { message: "the Dockerfile must lie inside its build context", path: ["dockerfile"] },
  ),
]);
export type TaskEnvironment = z.infer<typeof TaskEnvironment>;

/**
 * The network a task gives its agent ({@link SuiteTaskEntry}'s
 * `agent_network`): `{"mode": "public"}`, the hosts the plan allows, or
 * `{"mode": "allowlist", "allow_hosts": [...]}`, the task's own hosts
 * (Harbor's `network_mode = "allowlist"` with `allowed_hosts`).
 */
export const AgentNetwork = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("public") }).strict(),
  z.object({ mode: z.literal("allowlist"), allow_hosts: z.array(AllowHost).min(1) }).strict(),
]);
/** A task's agent network; see {@link AgentNetwork}. */
export type AgentNetwork = z.infer<typeof AgentNetwork>;

/**
 * The places a separate verifier's `artifacts` may not name, lie inside or
 * hold (`/logs` holds `/logs/verifier`): the runner's own (the hidden files,
 * the oracle, the verdict channel `/logs/verifier`, the kit and the gate)
 * and the kernel's. Copying the candidate's copy of one of them into the
 * verifier's container would let the candidate speak for the verifier.
 */
export const RESERVED_ARTIFACT_PATHS = [
  "/verifier",
  "/solution",
  "/logs/verifier",
  "/ledgerbench",
  "/opt/ledgerbench",
  "/.ledgerbench",
  "/proc",
  "/sys",
  "/dev",
] as const;

/** A path a separate verifier copies from the candidate's container (Harbor's `artifacts`). */
const ArtifactPath = plainContainerPath(RESERVED_ARTIFACT_PATHS, true);

/**
 * Where a task's verifier runs (issue 22). `sealed`: ledgerbench's own
 * verifier container, a fresh one from the task's image (or the verifier
 * image) with the hidden files copied in after the candidate exits (native
 * suites). `shared`: Harbor's default, the verifier runs in the candidate's
 * own container once the agent has exited, seeing everything the agent left
 * (files, installed packages, processes' leftovers). `separate`: Harbor's
 * separate verifier environment, a fresh container of its own `environment`
 * (absent: the task's) that receives only `/logs/artifacts` and the paths in
 * `artifacts` from the candidate's container.
 */
export const VerifierMode = z.enum(["sealed", "shared", "separate"]);
export type VerifierMode = z.infer<typeof VerifierMode>;

/**
 * How the verdict is read from `reward.json` (`verdict: "reward"`).
 * `key`: the number at `reward_key` is the reward. `min`: the smallest of
 * the file's numbers is (every dimension must pass the threshold). `mean`:
 * their arithmetic mean is. A one-number `reward.txt` is the reward under
 * every rule.
 */
export const RewardRule = z.enum(["key", "min", "mean"]);
export type RewardRule = z.infer<typeof RewardRule>;

/**
 * How the task's verifier runs and how its verdict is read. Absent: the
 * driver's `verify.sh` or `verify.ts`, verdict by the JSON line, in the
 * sealed verifier container.
 *
 * Rules beyond each field's: `user` and `allow_hosts` only in `shared` or
 * `separate` mode; `artifacts` and `environment` only in `separate` mode;
 * an artifact may not be, lie inside or hold `mount` (the hidden files). The
 * task-level rules (`shared`/`separate` need `verdict: "reward"` and a task
 * `environment`) are {@link SuiteTaskEntry}'s.
 */
export const TaskVerifier = z.object({
  /**
   * The entry point, a path inside `verifier/` run as an executable (it
   * needs its execute bit and a `#!` line). Absent: `verify.sh` (with `sh`),
   * else `verify.ts` (with Deno).
   */
  entry: z.string().regex(
    /^(?!\/)(?!.*(^|\/)\.\.(\/|$)).+$/,
    "must be a path inside verifier/ (relative, no '..')",
  ).optional(),
  /**
   * A second place the hidden files appear in the verifier's container
   * (Harbor's tests expect `/tests`); they are always at `/verifier` too.
   */
  mount: ContainerPath.optional(),
  /** Where the verifier runs: {@link VerifierMode}; absent: `sealed`. */
  mode: VerifierMode.default("sealed"),
  /**
   * The user the verifier runs as (`shared` and `separate` only; Harbor's
   * `[verifier] user`, a name or a uid). Absent: root, as in Harbor.
   */
  user: z.string().min(1).optional(),
  /**
   * `line`: the last non-empty stdout line is the JSON verdict
   * `{"resolved": …, "checks": […]}`. `reward`: Harbor's reward file,
   * `/logs/verifier/reward.txt` (one number) or `reward.json` (an object of
   * numbers, read by `reward_rule`), passing when its reward is at least
   * `pass_threshold`.
   */
  verdict: z.enum(["line", "reward"]).default("line"),
  /** The smallest reward that passes (`verdict: "reward"` only). */
  pass_threshold: z.number().default(1),
  /** The key of `reward.json` holding the reward (`reward_rule: "key"`). */
  reward_key: z.string().min(1).default("reward"),
  /** How `reward.json` gives the reward: {@link RewardRule}; absent: `key`. */
  reward_rule: RewardRule.default("key"),
  /** The verifier's wall cap in ms; absent: the runner's 120000. */
  wall_ms: z.number().int().positive().optional(),
  /** Variables for the verifier's environment (never a secret: they are written into suite.json). */
  env: EnvVariables.optional(),
  /**
   * The hosts the verifier may reach through the runner's recording proxy
   * (`shared` and `separate` only; {@link AllowHost}). Absent: none, the
   * verifier has no network.
   */
  allow_hosts: z.array(AllowHost).optional(),
  /**
   * The paths copied from the candidate's container into the verifier's,
   * besides `/logs/artifacts` (`separate` only; Harbor's top-level
   * `artifacts`), each absolute, a file or a directory.
   */
  artifacts: z.array(ArtifactPath).optional(),
  /**
   * The paths copied from the task's sidecar services into the verifier's
   * container (`separate` only; Harbor's `artifacts` naming a `service`),
   * each restored at its path, after the `collect` commands have run.
   */
  service_artifacts: z.array(z.object({ service: z.string().min(1), path: ArtifactPath }).strict())
    .optional(),
  /**
   * Commands run before the verifier's inputs are copied (`separate` only;
   * Harbor's `[[verifier.collect]]`, e.g. a snapshot of a service's memory
   * into a file): in `main` (the agent's container) before it ends, in a
   * sidecar service after, by `/bin/sh -c` as `user` (absent: the
   * container's), each killed at its timeout. What they do is evidence the
   * tests read; how they end is not a verdict.
   */
  collect: z.array(
    z.object({
      service: z.string().min(1),
      command: z.string().min(1),
      timeout_ms: z.number().int().positive(),
      user: z.string().min(1).optional(),
    }).strict(),
  ).optional(),
  /**
   * The verifier's own environment (`separate` only), e.g.
   * `{"dockerfile": "verifier/Dockerfile"}` (its directory the build
   * context) or `{"image": REF}`. Absent in `separate` mode: a fresh
   * container of the task's environment.
   */
  environment: TaskEnvironment.optional(),
}).strict().superRefine((verifier, ctx) => {
  const harbor = verifier.mode === "shared" || verifier.mode === "separate";
  for (const key of ["user", "allow_hosts"] as const) {
    if (verifier[key] !== undefined && !harbor) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `"${key}" applies only to mode "shared" or "separate", not "${verifier.mode}"`,
      });
    }
  }
  for (const key of ["artifacts", "environment", "service_artifacts", "collect"] as const) {
    if (verifier[key] !== undefined && verifier.mode !== "separate") {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `"${key}" applies only to mode "separate", not "${verifier.mode}"`,
      });
    }
  }
  const mount = verifier.mount;
  for (const [index, path] of (verifier.artifacts ?? []).entries()) {
    if (
      mount !== undefined &&
      (path === mount || path.startsWith(`${mount}/`) || mount.startsWith(`${path}/`))
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["artifacts", index],
        message: `must not be, lie inside or hold the verifier's mount "${mount}" (the hidden ` +
          "files)",
      });
    }
  }
});
export type TaskVerifier = z.infer<typeof TaskVerifier>;

/** The hidden rubric of a judged task, inside `verifier/` (issue 14). */
export const JUDGE_RUBRIC_FILE = "rubric.json";
/** The hidden reference answer of a judged task, inside `verifier/`. */
export const JUDGE_REFERENCE_FILE = "reference.md";

/**
 * A task verified by the plan's LLM judge (issue 14, seed 000 §06): the
 * judge scores the candidate's answer, the file `answer` of its stored
 * workspace, on the rubric `verifier/rubric.json` against the reference
 * answer `verifier/reference.md` (both hidden, under the verifier's frozen
 * digest) and the question `workspace/TASK.md`. With `with_program` the
 * task's program verifier runs as well and both must pass; without it the
 * judge verifies instead of a program and the task has no entry point.
 */
export const TaskJudge = z.object({
  answer: z.string().regex(
    /^(?!\/)(?!.*(^|\/)\.\.(\/|$)).+$/,
    "must be a path inside the workspace (relative, no '..')",
  ),
  with_program: z.boolean().default(false),
}).strict();
export type TaskJudge = z.infer<typeof TaskJudge>;

/** Resources the task asks for; absent: seed 000's (candidate 1 GiB, verifier 256 MiB and half a CPU). */
export const TaskResources = z.object({
  /** CPUs for each container (fractional allowed). */
  cpus: z.number().positive().max(64).optional(),
  /** Memory for each container, in MiB (no swap). */
  memory_mb: z.number().int().min(64).max(65536).optional(),
  /**
   * Disk the agent may fill outside its workspace, in MiB: a task
   * environment run as built (Harbor's modes) has a writable root, and its
   * writable layer is measured while the agent runs (issue 22). Absent:
   * Harbor's 10240. The sealed sandbox's root is read-only: it has no use for it.
   */
  storage_mb: z.number().int().min(1).max(1_048_576).optional(),
}).strict();
export type TaskResources = z.infer<typeof TaskResources>;

/** Where an imported task came from (provenance, covered by the suite hash). */
export const TaskSource = z.object({
  format: z.literal("harbor"),
  /** The source task directory as given to `suite import`. */
  dir: z.string().min(1),
  /** SHA-256 of the source's `task.toml`. */
  task_toml_sha256: Sha256,
}).strict();
export type TaskSource = z.infer<typeof TaskSource>;

/**
 * A readiness check of the task's own environment (Harbor's
 * `[environment.healthcheck]`, which mirrors Docker's `HEALTHCHECK`): a
 * shell command run in the environment once it has started, every
 * `start_interval_ms` during the first `start_period_ms` (failures there do
 * not count) and every `interval_ms` after, each run killed after
 * `timeout_ms`; the first success lets the agent start, `retries`
 * consecutive failures after the start period fail the episode as the
 * task's fault, never the agent's.
 */
export const TaskHealthcheck = z.object({
  command: z.string().min(1),
  interval_ms: z.number().int().positive(),
  timeout_ms: z.number().int().positive(),
  start_period_ms: z.number().int().nonnegative(),
  start_interval_ms: z.number().int().positive(),
  retries: z.number().int().positive(),
}).strict();
export type TaskHealthcheck = z.infer<typeof TaskHealthcheck>;

/**
 * One step of a multi-step task (Harbor's `[[steps]]`, `trial/multi_step.py`):
 * its instruction `steps/<name>/TASK.md` is the agent's `TASK.md` for the
 * step, its tests `verifier/<name>/` (Harbor's `tests/` with the step's own
 * `steps/<name>/tests/` over it, as Harbor uploads them to `/tests`), its
 * oracle `solution/<name>/solve.sh`, and the files uploaded to the working
 * directory before it `steps/<name>/workdir/` (its `setup.sh` run there
 * then, Harbor's step setup). The workspace's `TASK.md` is the first step's
 * instruction (the suite loader checks it).
 */
export const TaskStep = z.object({
  /** A directory name: letters, digits, `.`, `_` and `-`, not starting with `.` or `-`. */
  name: z.string().regex(
    /^[A-Za-z0-9_][A-Za-z0-9._-]*$/,
    "must be letters, digits, '.', '_' and '-', starting with a letter, digit or '_'",
  ),
  /** The step's agent wall cap in ms (`[steps.agent] timeout_sec`); absent: the episode's. */
  wall_ms_cap: z.number().int().positive().optional(),
  /** The step's verifier wall cap in ms (`[steps.verifier] timeout_sec`); absent: the task's. */
  verifier_wall_ms: z.number().int().positive().optional(),
  /** Variables of the step's verifier, over the task's `verifier.env` (`[steps.verifier] env`). */
  verifier_env: EnvVariables.optional(),
  /**
   * The rewards the step must reach for the next step to run (Harbor's
   * `min_reward`): a number gates the key `reward`, a table each key it
   * names (a missing key is below). Absent: no gate.
   */
  min_reward: z.union([z.number(), z.record(z.string(), z.number())]).optional(),
  /**
   * When the environment is ready for the step's agent (`[steps.healthcheck]`),
   * checked after the step's `workdir/` is uploaded and its `setup.sh` has
   * run, besides the task's own at the start. Absent: none.
   */
  healthcheck: TaskHealthcheck.optional(),
  /**
   * Verifier mode `separate`: the paths copied into the step's verifier
   * besides the task's `verifier.artifacts` (Harbor's `[[steps]]
   * artifacts`, the step's alone: a later step's verifier does not get
   * them). Absent: none.
   */
  artifacts: z.array(ArtifactPath).optional(),
}).strict();
export type TaskStep = z.infer<typeof TaskStep>;

/**
 * A volume a task's services share (a Compose named volume): an empty
 * directory of the episode's, mounted at `path` in each container naming it.
 */
export const ServiceVolume = z.object({
  /** The volume's name, as the task's Compose file declares it. */
  volume: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, "must be a Compose volume name"),
  path: ContainerPath,
  read_only: z.boolean().optional(),
}).strict();
export type ServiceVolume = z.infer<typeof ServiceVolume>;

/** How ready a service must be before what depends on it starts (Compose's `depends_on` conditions). */
export const ServiceReadiness = z.enum(["started", "healthy"]);

/**
 * A sidecar service of a task's own environment (Harbor's Compose
 * services beside `main`): a container of its own image, run as built
 * (its entrypoint and command), sharing the agent's network namespace,
 * which has only loopback: the agent, the tests and the services reach
 * each other on `127.0.0.1` (each service's name resolves there), and
 * nothing reaches further but through the runner's relay and proxies. It
 * is started before the agent's environment, after the services it
 * depends on are ready, and ends with the episode.
 */
export const TaskService = z.object({
  /** The Compose service name (it resolves to `127.0.0.1` in the agent's environment). */
  name: z.string().regex(
    /^[a-z0-9][a-z0-9_.-]*$/,
    "must be a Compose service name (lower-case letters, digits, '.', '_', '-')",
  ),
  /** Its image: `{"dockerfile": ...}` (its directory the build context) or `{"image": REF}`. */
  environment: TaskEnvironment,
  /** Replaces the image's `ENTRYPOINT`; absent: the image's. */
  entrypoint: z.array(z.string()).optional(),
  /** Replaces the image's `CMD`; absent: the image's. */
  command: z.array(z.string()).optional(),
  /** Variables beyond the image's `ENV` (the task's `environment_env` is the agent's environment's alone). */
  env: EnvVariables.optional(),
  /** The user it runs as; absent: the image's. */
  user: z.string().min(1).optional(),
  /** Its healthcheck (`depends_on` with `healthy` waits for it to pass). */
  healthcheck: TaskHealthcheck.optional(),
  /** The services that must be ready before it starts. */
  depends_on: z.record(z.string(), ServiceReadiness).optional(),
  volumes: z.array(ServiceVolume).optional(),
}).strict();
export type TaskService = z.infer<typeof TaskService>;

/** One task of the manifest. */
export const SuiteTaskEntry = z.object({
  /**
   * Lower-case letters, digits, dashes and underscores, starting with a
   * letter or digit (Harbor's task directories use either separator: the
   * zjysteven/terminal-bench-env dataset's 3,566 tasks all use `_`).
   */
  task_id: z.string().regex(
    /^[a-z0-9][a-z0-9_-]*$/,
    "must be lower-case letters, digits, dashes and underscores",
  ),
  /** Seed 000's lane; absent: `default`. */
  lane: z.string().min(1).default("default"),
  /**
   * Lane weight divided by the number of tasks in the lane, as a generated
   * suite records it (seed 000's points per task); absent in a hand-written
   * suite (scores use the plan's lane weights, never this field).
   */
  weight: z.number().nonnegative().optional(),
  /** The task's own budgets; absent: no cap of its own. */
  limits: TaskLimits.default({ token_cap: null, step_cap: null, wall_ms_cap: null }),
  /** The task's own environment; absent: the default images. */
  environment: TaskEnvironment.optional(),
  /**
   * Variables every process of the task's own environment sees (its
   * entrypoint, the agent, the tests), beyond the image's `ENV` (Harbor's
   * `[environment.env]`); the runner's own variables win over them.
   */
  environment_env: EnvVariables.optional(),
  /** When the task's own environment is ready for the agent; absent: once its entrypoint has settled. */
  environment_healthcheck: TaskHealthcheck.optional(),
  /**
   * A second path the workspace appears at in both containers, where the
   * candidate also starts (Harbor tasks work in `/app`); the workspace is
   * always at `/workspace` too. Absent: `/workspace` only.
   */
  workdir: ContainerPath.optional(),
  /** How the verifier runs and is read; absent: the driver's defaults. */
  verifier: TaskVerifier.optional(),
  /** The task is verified by the plan's LLM judge; absent: by its program only. */
  judge: TaskJudge.optional(),
  resources: TaskResources.optional(),
  /**
   * The user the agent runs as in the task's own environment (Harbor's
   * `[agent] user`, a name or a uid). Absent: root there, as in Harbor.
   */
  agent_user: z.string().min(1).optional(),
  /**
   * The source task asked for the internet (Harbor's `allow_internet =
   * true`) and the operator chose to run it without (`suite import
   * --without-internet`): recorded here, so the suite hash and every plan
   * carry the choice. Episodes never have a network either way.
   */
  internet_waived: z.literal(true).optional(),
  /**
   * The network the task gives its agent (Harbor's `allow_internet`,
   * `network_mode` and `allowed_hosts` for the agent's phase): `public`
   * asks for the internet, and the plan says which hosts the agent reaches
   * (`Plan.agent_egress`); `allowlist` names the hosts itself. Either way the
   * agent reaches them only through the runner's recording proxy. Absent:
   * no network.
   */
  agent_network: AgentNetwork.optional(),
  /**
   * The task's steps, run in order in the same environment by one agent
   * with one relay, each verified after it (Harbor's multi-step tasks;
   * verifier mode `shared`, or `separate` with every step's verifier
   * started anew). Absent: one instruction, one verification.
   */
  steps: z.array(TaskStep).min(1).optional(),
  /**
   * How the steps' rewards become the attempt's (Harbor's
   * `multi_step_reward_strategy`): `mean`, each key's mean over the steps
   * verified (a key a step lacks counts 0), or `final`, the last verified
   * step's. With `steps` only; absent there: `mean`, Harbor's default.
   */
  step_reward: z.enum(["mean", "final"]).optional(),
  /**
   * The sidecar services of the task's own environment, in start order
   * (Harbor's Compose services beside `main`; verifier mode `shared`, or
   * `separate` with the verifier's own environment, which gets what
   * `verifier.service_artifacts` copies out of them).
   * Absent: the environment is one container.
   */
  services: z.array(TaskService).min(1).optional(),
  /** The services that must be ready before the agent's environment starts (`main`'s `depends_on`). */
  environment_depends_on: z.record(z.string(), ServiceReadiness).optional(),
  /** The services' volumes the agent's environment mounts too (`main`'s `volumes`). */
  environment_volumes: z.array(ServiceVolume).optional(),
  source: TaskSource.optional(),
}).strict().superRefine((task, ctx) => {
  serviceProblems(task, ctx);
  if (task.step_reward !== undefined && task.steps === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["step_reward"],
      message: 'needs "steps" (it combines the steps\' rewards)',
    });
  }
  if (task.steps !== undefined) {
    const mode = task.verifier?.mode;
    if ((mode !== "shared" && mode !== "separate") || task.verifier?.entry === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["steps"],
        message: 'need verifier mode "shared" or "separate" and an "entry" (Harbor\'s tests, ' +
          "run after each step)",
      });
    }
    task.steps.forEach((step, index) => {
      if (step.artifacts !== undefined && mode !== "separate") {
        ctx.addIssue({
          code: "custom",
          path: ["steps", index, "artifacts"],
          message: 'applies only to verifier mode "separate"',
        });
      }
    });
    const seen = new Set<string>();
    task.steps.forEach((step, index) => {
      if (seen.has(step.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["steps", index, "name"],
          message: `repeats step "${step.name}"`,
        });
      }
      seen.add(step.name);
    });
  }
  if (task.agent_network !== undefined && task.internet_waived === true) {
    ctx.addIssue({
      code: "custom",
      path: ["agent_network"],
      message: 'contradicts "internet_waived": a waived task gives its agent no network',
    });
  }
  for (const key of ["environment_env", "environment_healthcheck", "agent_network"] as const) {
    if (task[key] !== undefined && task.environment === undefined) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: "needs the task's own environment (it is that environment's)",
      });
    }
  }
  const verifier = task.verifier;
  if (verifier === undefined || verifier.mode === "sealed") return;
  if (verifier.verdict !== "reward") {
    ctx.addIssue({
      code: "custom",
      path: ["verifier", "verdict"],
      message: `must be "reward" in mode "${verifier.mode}" (Harbor's reward file)`,
    });
  }
  if (task.environment === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["environment"],
      message: `is required with verifier mode "${verifier.mode}" (the verifier runs in the ` +
        "task's own environment)",
    });
  }
});
export type SuiteTaskEntry = z.infer<typeof SuiteTaskEntry>;

/**
 * The rules a task's services obey beyond their own schema: they need the
 * task's own environment in shared mode; names are unique and not `main`;
 * `depends_on` names earlier services only (so the order starts them), a
 * `healthy` one with a healthcheck; volumes are the services' own.
 */
function serviceProblems(
  task: {
    services?: TaskService[];
    environment_depends_on?: Record<string, "started" | "healthy">;
    environment_volumes?: ServiceVolume[];
    environment?: unknown;
    verifier?: TaskVerifier;
  },
  ctx: z.RefinementCtx,
): void {
  const services = task.services ?? [];
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: "custom", path, message });
  const verifier = task.verifier;
  const named = new Set(services.map((service) => service.name));
  for (const key of ["service_artifacts", "collect"] as const) {
    (verifier?.[key] ?? []).forEach((entry, index) => {
      if (!named.has(entry.service) && !(key === "collect" && entry.service === "main")) {
        issue(
          ["verifier", key, index, "service"],
          `"${entry.service}" is not a service of the task`,
        );
      }
    });
  }
  if (services.length === 0) {
    for (const key of ["environment_depends_on", "environment_volumes"] as const) {
      if (task[key] !== undefined) issue([key], 'needs "services"');
    }
    return;
  }
  const separateOwn = verifier?.mode === "separate" && verifier.environment !== undefined;
  if (task.environment === undefined || (verifier?.mode !== "shared" && !separateOwn)) {
    issue(
      ["services"],
      'need the task\'s own environment and verifier mode "shared", or "separate" with the ' +
        "verifier's own environment",
    );
  }
  const earlier = new Map<string, TaskService>();
  const dependsOn = (path: (string | number)[], needs: Record<string, string> | undefined) => {
    for (const [name, readiness] of Object.entries(needs ?? {})) {
      const service = earlier.get(name);
      if (service === undefined) {
        issue(path, `names "${name}", which is not a service started before it`);
      } else if (readiness === "healthy" && service.healthcheck === undefined) {
        issue(path, `waits for "${name}" to be healthy, and it has no healthcheck`);
      }
    }
  };
  services.forEach((service, index) => {
    if (service.name === "main" || earlier.has(service.name)) {
      issue(["services", index, "name"], `"${service.name}" is taken`);
    }
    dependsOn(["services", index, "depends_on"], service.depends_on);
    earlier.set(service.name, service);
  });
  dependsOn(["environment_depends_on"], task.environment_depends_on);
}

/** The whole manifest. */
export const SuiteManifest = z.object({
  schema_version: z.literal(1).default(1),
  suite_id: z.string().min(1),
  /**
   * SHA-256 of the seed text: a commitment that does not reveal a 256-bit
   * seed. Generated suites only; a hand-written suite has none.
   */
  seed_sha256: Sha256.optional(),
  /** True only for suites generated from a seed published on purpose (the demo); with `seed_sha256`. */
  public_seed: z.boolean().optional(),
  /** Seed 000's lane weights; absent: none (no lane-weighted score). */
  lane_weights: z.record(z.string(), z.number().nonnegative()).default({}),
  tasks: z.array(SuiteTaskEntry).min(1),
  /**
   * The source tasks an import left out (`suite import harbor
   * --skip-refused`), each with its directory and why: the suite, and so
   * every plan's hash, says what it is not. Absent: none left out.
   */
  import_skipped: z.array(z.object({ dir: z.string().min(1), reason: z.string().min(1) }).strict())
    .optional(),
}).strict().refine((m) => (m.seed_sha256 === undefined) === (m.public_seed === undefined), {
  message: '"seed_sha256" and "public_seed" go together: both for a generated suite, neither ' +
    "for a hand-written one",
  path: ["public_seed"],
});
export type SuiteManifest = z.infer<typeof SuiteManifest>;

/** A loaded suite: the manifest, where it lives and its content hash. */
export interface Suite {
  /** Absolute path of the suite directory. */
  dir: string;
  manifest: SuiteManifest;
  /** {@link suiteSha256} of the directory. */
  sha256: string;
}

/**
 * The ids of a suite's judged tasks (a task `judge`, issue 14), in
 * manifest order: the tasks `suite check` and `reverify` leave to the LLM
 * judge and `freeze` needs a judge for.
 *
 * @param manifest the suite's manifest
 * @returns the judged task ids
 */
export function judgedTaskIds(manifest: SuiteManifest): Set<string> {
  return new Set(manifest.tasks.filter((task) => task.judge !== undefined).map((t) => t.task_id));
}

/** Paths of one task's parts inside a suite directory. */
export interface TaskPaths {
  /** The task's directory (a Dockerfile path is relative to it). */
  root: string;
  workspace: string;
  verifier: string;
  /** The oracle's directory; `solve.sh` in it is what `suite check` runs. */
  solution: string;
  /** A multi-step task's instructions, `<step>/TASK.md` each ({@link TaskStep}). */
  steps: string;
  answer: string;
  wrong_answer: string;
}

/**
 * Where one task's files are.
 *
 * @param suiteDir the suite directory
 * @param taskId the task id
 * @returns absolute or relative paths, as `suiteDir` is
 */
export function taskPaths(suiteDir: string, taskId: string): TaskPaths {
  const root = `${suiteDir}/tasks/${taskId}`;
  return {
    root,
    workspace: `${root}/workspace`,
    verifier: `${root}/verifier`,
    solution: `${root}/solution`,
    steps: `${root}/steps`,
    answer: `${root}/answer.md`,
    wrong_answer: `${root}/wrong_answer.md`,
  };
}

/** Where one step's files of a multi-step task are ({@link TaskStep}). */
export interface StepPaths {
  /** The step's instruction, the agent's `TASK.md` for the step. */
  instruction: string;
  /** The step's hidden tests, uploaded to `/tests` for its verification. */
  tests: string;
  /** The step's oracle directory (`solve.sh`), placed at `/solution` for the step. */
  solution: string;
  /** Files uploaded to the working directory before the step (absent: none); `setup.sh` among them runs then. */
  workdir: string;
}

/**
 * Where a multi-step task's step keeps its instruction, tests and oracle.
 *
 * @param paths the task's paths ({@link taskPaths})
 * @param stepName the step's name
 * @returns the step's paths
 * @example
 * ```ts
 * import { stepPaths, taskPaths } from "./suite_manifest.ts";
 * import { equal } from "node:assert/strict";
 * const step = stepPaths(taskPaths("s", "t"), "create-file");
 * equal(step.tests, "s/tasks/t/verifier/create-file");
 * equal(step.instruction, "s/tasks/t/steps/create-file/TASK.md");
 * ```
 */
export function stepPaths(paths: TaskPaths, stepName: string): StepPaths {
  return {
    instruction: `${paths.steps}/${stepName}/TASK.md`,
    tests: `${paths.verifier}/${stepName}`,
    solution: `${paths.solution}/${stepName}`,
    workdir: `${paths.steps}/${stepName}/workdir`,
  };
}
