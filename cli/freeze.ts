/**
 * `ledgerbench freeze`: writes the frozen plan before the first episode
 * (seeds 002 and 003), optionally generating the suite from a private seed
 * first (seed 000).
 *
 * @module
 */
import { fitLines, outputWidth, WIDTH_OPTION, widthHelpAt } from "./_table_layout.ts";
import { VERIFIER_IMAGE } from "../runner/docker/build_images.ts";
import {
  AgentCheck,
  CensoringPolicy,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  Digest,
  type JudgeConfig,
  Plan,
  PlannedAgent,
  ProviderFeature,
} from "../analysis/schema/records.ts";
import { freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { AGENT_NETWORK_HELP, AGENT_NETWORK_OPTIONS, agentEgressOption } from "./_agent_network.ts";
import { effectiveCaps } from "../runner/effective_caps.ts";
import { loadAgentCheck } from "../inputs/agent_check.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { UPSTREAM_KINDS, type UpstreamKind } from "../runner/relay/api/upstream_kind.ts";
import type { AgentUnderCheck } from "../runner/check_agents.ts";
import { agentsAgainstCheck } from "../analysis/agents_against_check.ts";
import type { FrozenServices, FrozenTaskEnvironment } from "../runner/task_environments.ts";
import { SandboxError } from "../runner/sandbox/sandbox_error.ts";
import { suiteCheckState } from "../runner/suite_check_state.ts";
import { planJudge } from "../runner/judge/judge_calibration_store.ts";
import { judgedTaskIds } from "../analysis/schema/suite_manifest.ts";
import { loadJudgeSettings } from "../inputs/judge_settings.ts";
import { displayId, lineText } from "../analysis/untrusted_text.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { loadSuite } from "../inputs/suite.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { createSeedFile, readSeedFile } from "../runner/suite_seed.ts";
import { SUITES } from "../suites/demo_suite.ts";
import {
  DEFAULT_BOOTSTRAP,
  DEFAULT_CENSORING,
  DEFAULT_INTERVAL_METHOD,
  DEFAULT_TIE_BAND,
  INTERVAL_METHODS,
} from "../analysis/defaults.ts";
import {
  choiceOption,
  nameListOption,
  type NumberOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  seedOption,
  stringOption,
  type TextOption,
  textOption,
} from "./_args.ts";
import { ExitCode, InputError, type Io, UsageError } from "./_command.ts";
import { emit } from "./_output.ts";
import { nextStep } from "./_next_step.ts";
import { dirname, join } from "node:path";
import { resolveSprtParams, SPRT_OPTIONS, SPRT_OPTIONS_HELP } from "./_sprt_flags.ts";
import {
  BOOTSTRAP_ROUNDS_RANGE,
  COUNT_CAP_RANGE,
  HEADLINE_MAX_RANGE,
  LABELLED_MAX_RANGE,
  MAX_ATTEMPTS_RANGE,
  MODEL_LIMIT_RANGE,
  TIE_BAND_RANGE,
  UPSTREAM_TIMEOUT_MS_RANGE,
  WALL_MS_CAP_RANGE,
} from "./_option_ranges.ts";

/** `freeze`'s numeric options, each with the range of the plan field it sets. */
const NUMBERS = {
  tokenCap: { name: "token-cap", range: COUNT_CAP_RANGE },
  stepCap: { name: "step-cap", range: COUNT_CAP_RANGE },
  wallMs: { name: "wall-ms", range: WALL_MS_CAP_RANGE },
  maxOutputTokens: { name: "max-output-tokens", range: MODEL_LIMIT_RANGE },
  contextLimitTokens: { name: "context-limit-tokens", range: MODEL_LIMIT_RANGE },
  upstreamTimeoutMs: { name: "upstream-timeout-ms", range: UPSTREAM_TIMEOUT_MS_RANGE },
  maxAttempts: { name: "max-attempts", range: MAX_ATTEMPTS_RANGE },
  headlineMax: { name: "headline-max", range: HEADLINE_MAX_RANGE },
  labelledMax: { name: "labelled-max", range: LABELLED_MAX_RANGE },
  missingHeadlineMax: { name: "missing-headline-max", range: HEADLINE_MAX_RANGE },
  missingLabelledMax: { name: "missing-labelled-max", range: LABELLED_MAX_RANGE },
  invalidHeadlineMax: { name: "invalid-headline-max", range: HEADLINE_MAX_RANGE },
  invalidLabelledMax: { name: "invalid-labelled-max", range: LABELLED_MAX_RANGE },
  judgeFaultHeadlineMax: { name: "judge-fault-headline-max", range: HEADLINE_MAX_RANGE },
  judgeFaultLabelledMax: { name: "judge-fault-labelled-max", range: LABELLED_MAX_RANGE },
  rounds: { name: "rounds", range: BOOTSTRAP_ROUNDS_RANGE },
  tieBand: { name: "tie-band", range: TIE_BAND_RANGE },
} as const satisfies Record<string, NumberOption>;

/** `freeze`'s text options, each checked against the plan field it sets. */
const TEXTS = {
  planId: { name: "plan-id", schema: Plan.shape.plan_id, form: "a non-empty id" },
  priceTableId: {
    name: "price-table-id",
    schema: Plan.shape.price_table_id,
    form: "a non-empty id",
  },
  verifierImage: {
    name: "verifier-image",
    schema: Plan.shape.environment.unwrap().shape.verifier_image,
    form: "a non-empty image reference",
  },
} as const satisfies Record<string, TextOption>;

/** The range of one of {@link NUMBERS}, as the help text shows it. */
const range = (key: keyof typeof NUMBERS) => rangeText(NUMBERS[key].range);

/**
 * The plan's default `max_attempts`, read from the schema (`Plan.parse`
 * fills it in) rather than restated.
 */
const DEFAULT_MAX_ATTEMPTS: number = Plan.shape.max_attempts.parse(undefined);

/** The provider features, as the help text lists them. */
const PROVIDER_FEATURE_LIST = ProviderFeature.options.join(", ");

/** Help text, an example first. */
export const help = `Freeze the plan of a run before its first episode (seeds 002 and 003): the
suite's hash, the task order shuffled once by a recorded seed, each agent's
image and its digest, caps, price table, stopping rule (fixed or SPRT),
invalid policy, censoring thresholds, bootstrap seed, runner version and
verifier image. The plan is written as canonical JSON with its SHA-256 beside
it (PLAN.sha256); "run" refuses a plan whose hash or environment differs.

Generate a suite from a new private seed (kept outside git), then freeze a
plan for two agents:
  deno task ledgerbench freeze --generate demo --new-seed-file ~/.ledgerbench/seed \\
    --suite ~/.ledgerbench/suite --out plan.json --order-seed 20261107 \\
    --agent solver=ledgerbench/agent-solver:latest \\
    --agent looper=ledgerbench/agent-looper:latest --token-cap 20000

One image, two configurations: the Codex CLI image as is, and with a command
(a JSON array replacing the image's CMD) and an environment variable of its
own; both are frozen into the plan and its hash:
  deno task ledgerbench freeze --suite ~/.ledgerbench/suite --out plan.json \\
    --agent codex=ledgerbench/agent-codex:latest \\
    --agent codex-low=ledgerbench/agent-codex:latest \\
    --agent-command 'codex-low=["codex-agent", "-c", "model_reasoning_effort=\\"low\\""]' \\
    --agent-env codex-low:RUST_LOG=warn

Freeze an SPRT plan over an existing suite, rerunning invalid attempts:
  deno task ledgerbench freeze --suite ~/.ledgerbench/suite --out plan.json \\
    --agent solver=ledgerbench/agent-solver:latest --sprt --invalid-policy rerun-task

USAGE:
  deno task ledgerbench freeze --suite DIR --out PLAN --agent ID=IMAGE... [OPTIONS]

SUITE:
  --suite DIR              The generated suite (tasks, hidden verifiers, answers)
  --generate NAME          Generate the suite into DIR first from template set
                           NAME (available: ${
  Object.keys(SUITES).join(", ")
}); DIR must not exist or be empty
  --seed-file FILE         The private 256-bit seed (64 hex digits) to generate from
  --new-seed-file FILE     Create a new private seed in FILE (mode 0600) and use it

AGENTS AND ENVIRONMENT:
  --agent ID=IMAGE         An agent and its image reference; repeat for each agent.
                           The image is resolved to its digest now (never pulled)
  --model ID=MODEL         The model name agent ID requests (LEDGERBENCH_MODEL)
  --agent-env ID:NAME=VALUE
                           An environment variable for agent ID's container;
                           repeat for each. NAME may not be one the runner sets
                           (OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL,
                           ANTHROPIC_API_KEY, GOOGLE_GEMINI_BASE_URL,
                           GEMINI_API_KEY, LEDGERBENCH_*); "run" refuses a
                           value holding the upstream key
  --agent-command ID=JSON  The command replacing the CMD of agent ID's image, a
                           JSON array of strings (a name without a slash is
                           found in the image's PATH); "run" refuses an
                           argument holding the upstream key
  --upstream-kind ID=KIND  The upstream kind agent ID speaks: ${UPSTREAM_KINDS.join(", ")}
                           (default openai), as the KIND+ of "run --upstream";
                           the agent check runs it against that kind
  --agent-check FILE       The result of "ledgerbench agent check --out FILE" (issue
                           21), in place of the check freeze runs itself
  --without-agent-check REASON
                           Freeze without checking the agents; the plan records
                           REASON. Without it or --agent-check, freeze runs the
                           agent check itself in the Docker sandbox (one short
                           episode per agent against a scripted provider of its
                           API, the plan's provider features allowed) and
                           writes the result to PLAN.agent-check.json; no
                           engine: refused (exit 3). Every agent of the plan must
                           be in the check with its image digest and have passed
                           (made a metered model call), else the plan is refused
                           (exit 3), naming what the relay refused and the
                           option that fixes it; a warning when the token cap is
                           below what an agent's first call requests (prompt
                           bound + output cap: the relay will lower its output
                           cap; below prompt bound + 1: every call will be
                           refused). The plan records the check's SHA-256 and
                           time ("agent_check")
  --verifier-image REF     Verifier image (default ${VERIFIER_IMAGE})
  --image-digest REF=DIGEST
                           The digest (sha256:<64 hex>, the image id "docker
                           image inspect" reports, as containers/build_images.sh
                           prints it) of image REF, taken as given instead of
                           asking the engine; repeat for each image. With a
                           digest for every image, no Docker engine is needed
                           ("run" still checks each digest against its engine)
  --build-network MODE     The network of the RUN steps when a task's
                           environment is built from its Dockerfile (the task
                           author's step, before any model call):
                           "default" (the default: the engine's default
                           network, as "docker build" without --network),
                           "none" (no network), "host", or the name of a Docker
                           network. The built image's tag depends on it. On an
                           engine without a default bridge (dockerd
                           --bridge=none, as .ci/install_docker.sh starts it)
                           "default" has no network either; "host" has the
                           machine's. The episodes always run with no network.
                           A task's prebuilt environment image (Harbor's
                           docker_image) is pulled when the engine lacks it and
                           pinned by its registry digest

PLAN:
  --out PLAN               Plan file to write (refused if it exists)
  --plan-id ID             Plan id (default: the file name without .json)
  --order-seed S           Seed of the one-time task shuffle: an integer (007 is
                           7) or any other text (default: a fresh random
                           integer, recorded in the plan)
  --token-cap N            Prompt + completion tokens per episode, ${range("tokenCap")}
  --step-cap N             Model calls per episode, ${range("stepCap")}
  --wall-ms N              Wall clock per episode in ms, ${range("wallMs")} (unset
                           caps fall back to each task's own limits)
  --max-output-tokens N    Output policy (seed 000), ${range("maxOutputTokens")}: the
                           relay caps every model call's output at N tokens, and a
                           call whose server reports more completion tokens than
                           its cap is missing evidence (evidence_missing)
  --context-limit-tokens N Declared context limit (seed 000), ${range("contextLimitTokens")}:
                           a call whose server reports more prompt + completion
                           tokens is missing evidence (evidence_missing)
  --upstream-timeout-ms N  The relay's wait for the upstream per model call,
                           ${range("upstreamTimeoutMs")} (default 90% of the smallest wall cap, at
                           most ${DEFAULT_UPSTREAM_TIMEOUT_MS}); must be below every episode's wall
                           cap, so that a call never answered is a provider_fault
  --allow-provider-feature NAME
                           Let the relay forward a provider-side capability, all
                           denied by default (repeat, or separate with commas):
                           ${PROVIDER_FEATURE_LIST}; recorded in the plan and on
                           every row whose calls used it. Allowed features work
                           outside the token count and the sandbox's network
  --price-table-id ID      Frozen price table id (default "unpriced")
  --sprt                   Stop each agent by seed 002's SPRT (else: fixed list)
${SPRT_OPTIONS_HELP}
  --invalid-policy P       "halt" (default; seed 000: stop, redo the whole run) or
                           "rerun-task" (seed 002: rerun the task as a new attempt)
  --max-attempts N         Attempts per task under rerun-task, ${range("maxAttempts")}
                           (default ${DEFAULT_MAX_ATTEMPTS})
  --headline-max X         Censoring below which a headline may be stated,
                           ${range("headlineMax")} (default ${DEFAULT_CENSORING.headline_max})
  --labelled-max X         Censoring up to which both scores are stated,
                           ${range("labelledMax")} (default ${DEFAULT_CENSORING.labelled_max})
  --missing-headline-max X Share of planned tasks without a row below which a
                           headline may be stated, ${range("missingHeadlineMax")}
                           (default: --headline-max)
  --missing-labelled-max X The same up to which both scores are stated,
                           ${range("missingLabelledMax")} (default: --labelled-max)
  --invalid-headline-max X Share of an agent's attempts that are invalid (any
                           reason) below which a headline may be stated,
                           ${range("invalidHeadlineMax")} (default: --headline-max)
  --invalid-labelled-max X The same up to which both scores are stated,
                           ${range("invalidLabelledMax")} (default: --labelled-max)
  --judge-fault-headline-max X
                           Share of an agent's judged rows that are judge
                           faults below which a headline may be stated,
                           ${range("judgeFaultHeadlineMax")} (default: --headline-max)
  --judge-fault-labelled-max X
                           The same up to which both scores are stated,
                           ${range("judgeFaultLabelledMax")} (default: --labelled-max)
  --bootstrap-seed S       Bootstrap seed: an integer (007 is 7) or any other text
                           (default ${DEFAULT_BOOTSTRAP.seed})
  --rounds N               Bootstrap rounds, ${range("rounds")}
                           (default ${DEFAULT_BOOTSTRAP.rounds})
  --tie-band X             Relative tie band of the comparison, ${range("tieBand")}
                           (default ${DEFAULT_TIE_BAND})
  --interval-method M      The 95% interval of the resolved rate every verdict
                           uses: ${INTERVAL_METHODS.map((m) => `"${m}"`).join(", ")}
                           (absent: "${DEFAULT_INTERVAL_METHOD}", seed 001)
  --without-suite-check REASON
                           Freeze although the suite's last "suite check" failed,
                           is older than the suite, or never ran; the plan
                           records the override, what the check's state was,
                           and REASON. Without it a failed or stale check is
                           refused and a missing one is recorded as "not_run"
${AGENT_NETWORK_HELP}
  --accept-flaky TASK      Freeze although the suite's last check failed, when it
                           failed only because TASK's verdicts flipped between the
                           runs of "suite check --repeat N" (each program right at
                           least once); the plan records the task by name as
                           flaky (repeat for each such task)
  --judge FILE             The LLM judge of the suite's judged tasks (issue 14):
                           a JSON file {"model": ..., "parameters": {...},
                           "max_attempts": N, "gates": {"human_agreement": X,
                           "swap_consistency": Y}}; required when the suite has
                           a judged task. The plan records it with the newest
                           "judge calibrate" result of exactly this judge on
                           this suite: "passed", "failed" or "not_run". Until
                           it passed, judged tasks are run and recorded but
                           not counted in formal scores
${widthHelpAt(27)}
  --json                   Print the plan and its hash as canonical JSON
  -h, --help               This help

EXIT STATUS:
  0 plan written; 1 usage error; 2 bad input (suite, seed, existing plan, an
  image that is not present, a task environment that cannot be built, an
  agent check file that does not fit its schema); 3 no Docker engine to
  resolve the image digests not given with --image-digest or to build the
  tasks' own environments, the suite's last check failed or is stale, or an
  agent failed the agent check or is not in it
`;

const OPTIONS = {
  suite: { type: "string" },
  generate: { type: "string" },
  "seed-file": { type: "string" },
  "new-seed-file": { type: "string" },
  agent: { type: "string", multiple: true },
  model: { type: "string", multiple: true },
  "agent-env": { type: "string", multiple: true },
  "agent-command": { type: "string", multiple: true },
  "verifier-image": { type: "string" },
  "image-digest": { type: "string", multiple: true },
  "build-network": { type: "string" },
  out: { type: "string" },
  "plan-id": { type: "string" },
  "order-seed": { type: "string" },
  "token-cap": { type: "string" },
  "step-cap": { type: "string" },
  "wall-ms": { type: "string" },
  "max-output-tokens": { type: "string" },
  "upstream-timeout-ms": { type: "string" },
  "context-limit-tokens": { type: "string" },
  "price-table-id": { type: "string" },
  sprt: { type: "boolean" },
  ...SPRT_OPTIONS,
  "invalid-policy": { type: "string" },
  "max-attempts": { type: "string" },
  "headline-max": { type: "string" },
  "labelled-max": { type: "string" },
  "missing-headline-max": { type: "string" },
  "missing-labelled-max": { type: "string" },
  "invalid-headline-max": { type: "string" },
  "invalid-labelled-max": { type: "string" },
  "judge-fault-headline-max": { type: "string" },
  "judge-fault-labelled-max": { type: "string" },
  "bootstrap-seed": { type: "string" },
  rounds: { type: "string" },
  "tie-band": { type: "string" },
  "interval-method": { type: "string" },
  "without-suite-check": { type: "string" },
  "accept-flaky": { type: "string", multiple: true },
  ...AGENT_NETWORK_OPTIONS,
  judge: { type: "string" },
  "allow-provider-feature": { type: "string", multiple: true },
  "agent-check": { type: "string" },
  "without-agent-check": { type: "string" },
  "upstream-kind": { type: "string", multiple: true },
  ...WIDTH_OPTION,
} as const;

/**
 * Parses repeated `ID=VALUE` options.
 *
 * @throws {UsageError} on a malformed item or a repeated id
 */
export function pairsOption(values: Record<string, unknown>, name: string): Map<string, string> {
  const items = (values[name] as string[] | undefined) ?? [];
  const out = new Map<string, string>();
  for (const item of items) {
    const at = item.indexOf("=");
    if (at <= 0 || at === item.length - 1) {
      throw new UsageError(`Option "--${name}" must look like ID=VALUE: "${item}"`);
    }
    const id = item.slice(0, at);
    if (out.has(id)) throw new UsageError(`Option "--${name}" names "${id}" twice`);
    out.set(id, item.slice(at + 1));
  }
  return out;
}

/**
 * The `--image-digest REF=DIGEST` options: image reference to digest, each
 * digest checked against the schema's `sha256:<64 hex>` form.
 *
 * @throws {UsageError} on a malformed item, a repeated reference or a malformed digest
 */
function givenDigests(values: Record<string, unknown>): Map<string, string> {
  const given = pairsOption(values, "image-digest");
  for (const [image, digest] of given) {
    if (!Digest.safeParse(digest).success) {
      throw new UsageError(
        `Option "--image-digest" for image "${image}": digest must look like "sha256:<64 hex>", got "${digest}"`,
      );
    }
  }
  return given;
}

/**
 * The `--upstream-kind ID=KIND` options: agent id to the upstream kind its
 * model calls are metered as (`UPSTREAM_KINDS`).
 *
 * @param values the parsed options
 * @param agents the `--agent` ids
 * @returns agent id → kind, only for agents given one
 * @throws {UsageError} on a malformed item, an unknown agent or an unknown kind
 */
export function upstreamKindOption(
  values: Record<string, unknown>,
  agents: ReadonlySet<string>,
): Map<string, UpstreamKind> {
  const kinds = new Map<string, UpstreamKind>();
  for (const [id, kind] of pairsOption(values, "upstream-kind")) {
    if (!agents.has(id)) {
      throw new UsageError(`Option "--upstream-kind" names "${id}", which is not an --agent`);
    }
    if (!UPSTREAM_KINDS.includes(kind as UpstreamKind)) {
      throw new UsageError(
        `Option "--upstream-kind" for agent "${id}" must be one of ${
          UPSTREAM_KINDS.map((k) => `"${k}"`).join(", ")
        }: "${kind}"`,
      );
    }
    kinds.set(id, kind as UpstreamKind);
  }
  return kinds;
}

/**
 * The agent check a plan is frozen with (seed 003: what the plan
 * promises must be checked before the first episode): the file given with
 * `--agent-check`; none, with `--without-agent-check REASON`; otherwise the
 * check run now on the local engine (`checkAgents`), its result written to
 * `out` (canonical JSON) and taken as that file. A refusal when no engine
 * answers, or when the check refused an agent (naming it, what the relay
 * refused and what fixes it: `whatToFix`).
 *
 * @param values the parsed options
 * @param run the agents with their kinds, the plan's provider features, where to write the
 *   result and a log for the operator
 * @returns the file to hold the plan to (null with the skip's reason), or the refusal
 * @throws {UsageError} when both options are given, or the reason is empty
 * @throws {InputError} when an image the check runs is not present
 */
async function agentCheckOf(
  values: Parameters<typeof stringOption>[0],
  run: {
    agents: AgentUnderCheck[];
    providerFeatures: ProviderFeature[];
    out: string;
    log: (line: string) => void;
  },
): Promise<{ file: string | null; skipped?: string } | { refused: string }> {
  const given = stringOption(values, "agent-check");
  const skipped = stringOption(values, "without-agent-check");
  if (given !== undefined && skipped !== undefined) {
    throw new UsageError('Options "--agent-check" and "--without-agent-check" exclude each other');
  }
  if (given !== undefined) return { file: given };
  if (skipped !== undefined) {
    if (skipped.trim() === "") {
      throw new UsageError('Option "--without-agent-check" needs a reason');
    }
    return { file: null, skipped };
  }
  const { dockerAvailable } = await import("../runner/docker/docker_available.ts");
  const engine = await dockerAvailable();
  if (!engine.available) {
    return {
      refused: `Cannot check the agents: ${engine.reason} (freeze runs the agent check in the ` +
        'Docker sandbox: give "--agent-check FILE" from a machine with an engine, or ' +
        '"--without-agent-check REASON")',
    };
  }
  const { AgentCheckError, checkAgents } = await import("../runner/check_agents.ts");
  let result;
  try {
    result = AgentCheck.parse(
      await checkAgents(run.agents, { log: run.log, providerFeatures: run.providerFeatures }),
    );
  } catch (error) {
    if (error instanceof AgentCheckError) throw new InputError(error.message);
    throw error;
  }
  await Deno.writeTextFile(run.out, canonicalJson(result));
  return { file: run.out };
}

/**
 * The `--agent-env ID:NAME=VALUE` options: agent id to its environment, each
 * map checked against the plan schema's agent `env` (no name the runner
 * sets). The id ends at the last `:` before the first `=` (names hold
 * neither), so the value may contain both.
 *
 * @param values the parsed options
 * @param agents the `--agent` ids
 * @returns agent id → environment, only for agents given one
 * @throws {UsageError} on a malformed item, an unknown agent, a repeated name or a refused name
 */
export function agentEnvOption(
  values: Record<string, unknown>,
  agents: ReadonlySet<string>,
): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const item of (values["agent-env"] as string[] | undefined) ?? []) {
    const eq = item.indexOf("=");
    const colon = eq < 0 ? -1 : item.lastIndexOf(":", eq);
    if (colon <= 0 || eq === colon + 1) {
      throw new UsageError(`Option "--agent-env" must look like ID:NAME=VALUE: "${item}"`);
    }
    const id = item.slice(0, colon);
    const name = item.slice(colon + 1, eq);
    if (!agents.has(id)) {
      throw new UsageError(`Option "--agent-env" names "${id}", which is not an --agent`);
    }
    const env = out.get(id) ?? {};
    if (Object.hasOwn(env, name)) {
      throw new UsageError(`Option "--agent-env" sets "${name}" of agent "${id}" twice`);
    }
    env[name] = item.slice(eq + 1);
    out.set(id, env);
  }
  for (const [id, env] of out) {
    const parsed = PlannedAgent.shape.env.unwrap().safeParse(env);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(
        `Option "--agent-env" for agent "${id}": "${issue.path.join(".")}" ${issue.message}`,
      );
    }
  }
  return out;
}

/**
 * The `--agent-command ID=JSON` options: agent id to its command, a JSON
 * array of at least one string (the plan schema's agent `command`).
 *
 * @param values the parsed options
 * @param agents the `--agent` ids
 * @returns agent id → command, only for agents given one
 * @throws {UsageError} on a malformed item, an unknown or repeated agent, or JSON that is not such an array
 */
export function agentCommandOption(
  values: Record<string, unknown>,
  agents: ReadonlySet<string>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [id, text] of pairsOption(values, "agent-command")) {
    if (!agents.has(id)) {
      throw new UsageError(`Option "--agent-command" names "${id}", which is not an --agent`);
    }
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON: refused below like any other value that is not such an array.
    }
    const parsed = PlannedAgent.shape.command.unwrap().safeParse(json);
    if (!parsed.success) {
      throw new UsageError(
        `Option "--agent-command" for agent "${id}" must be a JSON array of at least one string: "${text}"`,
      );
    }
    out.set(id, parsed.data);
  }
  return out;
}

/**
 * The Docker engine's image digests, or why there is no engine. Loaded only
 * when some image has no `--image-digest`: the Docker client takes about
 * 0.2 s to load, and a plan frozen offline needs no engine.
 */
async function engineDigests(): Promise<
  { of: (image: string) => Promise<string | null> } | { reason: string }
> {
  const { dockerAvailable } = await import("../runner/docker/docker_available.ts");
  const engine = await dockerAvailable();
  if (!engine.available) return { reason: engine.reason };
  const { imageDigest } = await import("../runner/docker/image_digest.ts");
  return { of: imageDigest };
}

/**
 * The provider features of `--allow-provider-feature` (repeated, or
 * comma-separated), each checked against `ProviderFeature`, sorted, each once.
 *
 * @param given the option's values
 * @returns the features, sorted
 * @throws {UsageError} naming a value that is not a provider feature
 */
function providerFeaturesOption(given: readonly string[]): ProviderFeature[] {
  const features = new Set<ProviderFeature>();
  for (const name of given.flatMap((value) => value.split(","))) {
    const parsed = ProviderFeature.safeParse(name.trim());
    if (!parsed.success) {
      throw new UsageError(
        `Option "--allow-provider-feature": "${name}" is not a provider feature (one of ${PROVIDER_FEATURE_LIST})`,
      );
    }
    features.add(parsed.data);
  }
  return [...features].sort();
}

/** Runs `freeze`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, OPTIONS);
  const width = outputWidth(values);
  const warn = (text: string) => io.stderr(fitLines(text, width));
  const suiteDir = stringOption(values, "suite");
  const out = stringOption(values, "out");
  if (suiteDir === undefined) throw new UsageError('Missing option: "--suite"');
  if (out === undefined) throw new UsageError('Missing option: "--out"');
  const agents = pairsOption(values, "agent");
  if (agents.size === 0) throw new UsageError('Missing option: "--agent" (at least one agent)');
  const models = pairsOption(values, "model");
  for (const id of models.keys()) {
    if (!agents.has(id)) {
      throw new UsageError(`Option "--model" names "${id}", which is not an --agent`);
    }
  }
  const agentIds = new Set(agents.keys());
  const envs = agentEnvOption(values, agentIds);
  const commands = agentCommandOption(values, agentIds);
  const kinds = upstreamKindOption(values, agentIds);
  const number = (key: keyof typeof NUMBERS) => numberOption(values, NUMBERS[key]);
  const caps = {
    token_cap: number("tokenCap") ?? null,
    step_cap: number("stepCap") ?? null,
    wall_ms_cap: number("wallMs") ?? null,
  };
  const modelLimits = {
    max_output_tokens: number("maxOutputTokens") ?? null,
    context_limit_tokens: number("contextLimitTokens") ?? null,
  };
  const anyLimit = modelLimits.max_output_tokens !== null ||
    modelLimits.context_limit_tokens !== null;
  const upstreamTimeoutMs = number("upstreamTimeoutMs");
  const providerFeatures = providerFeaturesOption(
    (values["allow-provider-feature"] as string[] | undefined) ?? [],
  );
  const invalidPolicy = choiceOption(values, {
    name: "invalid-policy",
    choices: ["halt", "rerun-task"] as const,
    fallback: "halt",
  });
  const maxAttempts = number("maxAttempts") ?? DEFAULT_MAX_ATTEMPTS;
  const headlineMax = number("headlineMax") ?? DEFAULT_CENSORING.headline_max;
  const labelledMax = number("labelledMax") ?? DEFAULT_CENSORING.labelled_max;
  const censoring = { headline_max: headlineMax, labelled_max: labelledMax };
  if (!CensoringPolicy.safeParse(censoring).success) {
    throw new UsageError(
      `Option "--headline-max" (${headlineMax}) must not exceed "--labelled-max" (${labelledMax})`,
    );
  }
  // Absent: the plan has no such policy, and the censoring thresholds apply to that rate.
  const secondaryPolicy = (prefix: "missing" | "invalid" | "judgeFault", flag: string) => {
    const headline = number(`${prefix}HeadlineMax` as const);
    const labelled = number(`${prefix}LabelledMax` as const);
    if (headline === undefined && labelled === undefined) return undefined;
    const policy = { headline_max: headline ?? headlineMax, labelled_max: labelled ?? labelledMax };
    if (!CensoringPolicy.safeParse(policy).success) {
      throw new UsageError(
        `Option "--${flag}-headline-max" (${policy.headline_max}) must not exceed ` +
          `"--${flag}-labelled-max" (${policy.labelled_max})`,
      );
    }
    return policy;
  };
  const missingPolicy = secondaryPolicy("missing", "missing");
  const invalidRatePolicy = secondaryPolicy("invalid", "invalid");
  const judgeFaultPolicy = secondaryPolicy("judgeFault", "judge-fault");
  const rounds = number("rounds") ?? DEFAULT_BOOTSTRAP.rounds;
  const tieBand = number("tieBand") ?? DEFAULT_TIE_BAND;
  // Absent: the plan has no interval_method (the percentile bootstrap), and keeps its old bytes.
  const intervalMethod = values["interval-method"] === undefined
    ? undefined
    : choiceOption(values, {
      name: "interval-method",
      choices: INTERVAL_METHODS,
      fallback: DEFAULT_INTERVAL_METHOD,
    });
  const bootstrapSeed = seedOption(values, "bootstrap-seed") ?? DEFAULT_BOOTSTRAP.seed;
  const orderSeed = seedOption(values, "order-seed") ??
    crypto.getRandomValues(new Uint32Array(1))[0];
  const planId = textOption(values, TEXTS.planId) ??
    out.split("/").at(-1)!.replace(/\.json$/, "");
  const priceTableId = textOption(values, TEXTS.priceTableId) ?? "unpriced";
  const verifierImage = textOption(values, TEXTS.verifierImage) ?? VERIFIER_IMAGE;
  const buildNetwork = values["build-network"] === undefined ? undefined : await (async () => {
    // Loaded only when given: the module loads the Docker client.
    const { BuildNetwork, BUILD_NETWORK_FORM } = await import("../runner/task_environments.ts");
    return textOption(values, {
      name: "build-network",
      schema: BuildNetwork,
      form: BUILD_NETWORK_FORM,
    });
  })();
  const given = givenDigests(values);
  const images = new Set([...agents.values(), verifierImage]);
  const needed = [...images].filter((image) => !given.has(image));
  for (const image of given.keys()) {
    if (!images.has(image)) {
      throw new UsageError(
        `Option "--image-digest" names image "${image}", which no agent nor the verifier uses`,
      );
    }
  }
  const stopping = values.sprt === true
    ? { kind: "sprt" as const, params: resolveSprtParams(values, null).params }
    : { kind: "fixed" as const };
  if (values.sprt !== true) {
    const stray = Object.keys(SPRT_OPTIONS).find((name) => values[name] !== undefined);
    if (stray) throw new UsageError(`Option "--${stray}" needs "--sprt"`);
  }

  const template = stringOption(values, "generate");
  if (template !== undefined) {
    const definition = SUITES[template];
    if (definition === undefined) {
      throw new UsageError(
        `Option "--generate" must be one of ${
          Object.keys(SUITES).map((s) => `"${s}"`).join(", ")
        }: "${template}"`,
      );
    }
    const seedFile = stringOption(values, "seed-file");
    const newSeedFile = stringOption(values, "new-seed-file");
    if ((seedFile === undefined) === (newSeedFile === undefined)) {
      throw new UsageError(
        'Option "--generate" needs exactly one of "--seed-file" and "--new-seed-file"',
      );
    }
    const seed = seedFile !== undefined
      ? await readSeedFile(seedFile)
      : await createSeedFile(newSeedFile!);
    await generateSuite(definition, { seed, dir: suiteDir });
    warn(
      `generated suite "${suiteDir}" from template set "${template}" (seed kept in "${
        seedFile ?? newSeedFile
      }")\n`,
    );
  }
  const suite = await loadSuite(suiteDir);
  const suiteCheck = await suiteCheckRecord(
    suite,
    stringOption(values, "without-suite-check"),
    nameListOption(values, "accept-flaky") ?? [],
  );
  if ("refused" in suiteCheck) {
    io.stderr(`error: ${suiteCheck.refused}\n`);
    return ExitCode.refused;
  }

  const agentEgress = agentEgressOption(values, suite);
  const judge = await judgeRecord(suite, stringOption(values, "judge"));

  const imageDigest = needed.length > 0 ? await engineDigests() : null;
  if (imageDigest !== null && "reason" in imageDigest) {
    io.stderr(
      `error: Cannot resolve image digests: ${imageDigest.reason} ` +
        `(or give each with --image-digest: ${needed.map((i) => `"${i}"`).join(", ")})\n`,
    );
    return ExitCode.refused;
  }
  const digestOf = async (image: string) => given.get(image) ?? await imageDigest!.of(image);
  const resolved = [];
  for (const [agentId, image] of agents) {
    const digest = await digestOf(image);
    if (digest === null) {
      throw new InputError(
        `Cannot freeze plan: image "${image}" of agent "${agentId}" is not present (images are never pulled; run containers/build_images.sh)`,
      );
    }
    resolved.push({
      agent_id: agentId,
      image,
      image_digest: digest,
      model: models.get(agentId) ?? null,
      ...(envs.has(agentId) ? { env: envs.get(agentId) } : {}),
      ...(commands.has(agentId) ? { command: commands.get(agentId) } : {}),
    });
  }
  const ran = await agentCheckOf(values, {
    agents: resolved.map((agent) => ({ ...agent, upstream_kind: kinds.get(agent.agent_id) })),
    providerFeatures,
    out: `${out}.agent-check.json`,
    log: (line) => io.stderr(`${lineText(line)}\n`),
  });
  if ("refused" in ran) {
    io.stderr(`error: ${lineText(ran.refused)}\n`);
    return ExitCode.refused;
  }
  const checked = ran.file === null ? null : await loadAgentCheck(ran.file);
  const checkSays = checked === null ? null : agentsAgainstCheck(resolved, checked.value, {
    tokenCap: smallestTokenCap(caps, suite.manifest.tasks),
    maxOutputTokens: modelLimits.max_output_tokens,
    file: ran.file!,
  });
  if (checkSays !== null && checkSays.refused !== null) {
    io.stderr(`error: ${lineText(checkSays.refused)}\n`);
    return ExitCode.refused;
  }
  const verifierDigest = await digestOf(verifierImage);
  if (verifierDigest === null) {
    throw new InputError(`Cannot freeze plan: verifier image "${verifierImage}" is not present`);
  }
  const needsEngine = suite.manifest.tasks.some((task) => task.environment !== undefined);
  const environmentEngine = needsEngine ? await engineDigests() : null;
  if (environmentEngine !== null && "reason" in environmentEngine) {
    io.stderr(
      `error: Cannot prepare the tasks' own environments: ${environmentEngine.reason} ` +
        "(a task that names an environment needs the local engine to build or find it)\n",
    );
    return ExitCode.refused;
  }
  const prepared = await prepareEnvironments(
    suite,
    resolved.map((agent) => agent.image_digest),
    io,
    buildNetwork,
  );
  const taskEnvironments = prepared.environments;

  const frozenPlan = freezePlan(suite, {
    plan_id: planId,
    created_at: new Date().toISOString(),
    agents: resolved.map((agent) =>
      prepared.bundleDigests === null
        ? agent
        : { ...agent, bundle_digest: prepared.bundleDigests[agent.image_digest] }
    ),
    order_seed: orderSeed,
    caps,
    price_table_id: priceTableId,
    stopping,
    invalid_policy: invalidPolicy,
    max_attempts: maxAttempts,
    censoring,
    ...(missingPolicy === undefined ? {} : { missing_policy: missingPolicy }),
    ...(invalidRatePolicy === undefined ? {} : { invalid_rate_policy: invalidRatePolicy }),
    ...(judgeFaultPolicy === undefined ? {} : { judge_fault_policy: judgeFaultPolicy }),
    bootstrap: { rounds, seed: bootstrapSeed },
    tie_band: tieBand,
    ...(anyLimit ? { model_limits: modelLimits } : {}),
    ...(upstreamTimeoutMs === undefined ? {} : { upstream_timeout_ms: upstreamTimeoutMs }),
    ...(providerFeatures.length === 0 ? {} : { provider_features: providerFeatures }),
    ...(Object.keys(taskEnvironments).length === 0 ? {} : { task_environments: taskEnvironments }),
    ...(Object.keys(prepared.verifierEnvironments).length === 0
      ? {}
      : { verifier_environments: prepared.verifierEnvironments }),
    ...(Object.keys(prepared.serviceEnvironments).length === 0
      ? {}
      : { service_environments: prepared.serviceEnvironments }),
    suite_check: suiteCheck.record,
    agent_egress: agentEgress.record,
    runner_version: await runnerVersion(),
    verifier_image: verifierImage,
    verifier_image_digest: verifierDigest,
  });
  const plan = {
    ...frozenPlan,
    ...(intervalMethod === undefined ? {} : { interval_method: intervalMethod }),
    ...(judge === undefined ? {} : { judge }),
    agent_check: checked === null
      ? { skipped: ran.skipped! }
      : { sha256: checked.sha256, checked_at: checked.value.checked_at },
  };
  const frozen = await writePlan(out, plan);
  if (judge !== undefined && judge.calibration.state !== "passed") {
    warn(
      `warning: the judge is uncalibrated (${judge.calibration.state}): its judged tasks ` +
        "will be run and recorded, but not counted in formal scores (ledgerbench judge calibrate)\n",
    );
  }
  for (const warning of checkSays?.warnings ?? []) warn(`warning: ${lineText(warning)}\n`);
  for (const warning of agentEgress.warnings) warn(`warning: ${warning}\n`);
  if (checked === null) {
    warn(
      "warning: the agents were not checked (--without-agent-check): an agent whose " +
        "requests the relay refuses makes no metered call and scores 0 on every task\n",
    );
  }
  if (suiteCheck.record.state === "not_run") {
    warn(
      `warning: suite "${suite.dir}" was never checked (ledgerbench suite check); ` +
        'the plan records "not_run"\n',
    );
  }
  emit(io, {
    json: values.json === true,
    width,
    payload: { plan: frozen.value, plan_sha256: frozen.sha256, path: out },
    render: () =>
      [
        `plan: ${out} (sha256 ${frozen.sha256})`,
        `suite: ${suite.manifest.suite_id} ${suite.dir} (sha256 ${suite.sha256})`,
        `order seed: ${orderSeed}`,
        `task order: ${plan.tasks.map((task) => task.task_id).join(", ")}`,
        ...plan.agents.flatMap((agent) => [
          `agent ${agent.agent_id}: ${agent.image} ${agent.image_digest}`,
          ...(agent.env === undefined ? [] : [
            `  env: ${Object.keys(agent.env).sort().join(", ")}`,
          ]),
          ...(agent.command === undefined ? [] : [
            `  command: ${JSON.stringify(agent.command)}`,
          ]),
          ...(agent.bundle_digest === undefined ? [] : [`  bundle: ${agent.bundle_digest}`]),
        ]),
        ...plan.tasks.flatMap((task) =>
          task.environment === undefined ? [] : [
            `task ${task.task_id}: environment ${task.environment.image} ${task.environment.image_digest}`,
          ]
        ),
        `verifier: ${verifierImage} ${verifierDigest}`,
        `caps: token ${caps.token_cap ?? "task"}, step ${caps.step_cap ?? "task"}, wall ms ${
          caps.wall_ms_cap ?? "task"
        }`,
        ...(anyLimit
          ? [
            `model limits: output ${modelLimits.max_output_tokens ?? "none"}, context ${
              modelLimits.context_limit_tokens ?? "none"
            }`,
          ]
          : []),
        ...(plan.upstream_timeout_ms === undefined
          ? []
          : [`upstream timeout: ${plan.upstream_timeout_ms} ms`]),
        ...(plan.interval_method === undefined ? [] : [`interval method: ${plan.interval_method}`]),
        `provider features allowed: ${plan.provider_features?.join(", ") ?? "none"}`,
        `agent check: ${
          checked === null
            ? `skipped: ${lineText(ran.skipped!)}`
            : `passed (${
              lineText(checked.path)
            }, sha256 ${checked.sha256}, ${checked.value.checked_at})`
        }`,
        `stopping: ${plan.stopping.kind}; invalid policy: ${plan.invalid_policy}`,
        ...(plan.judge === undefined ? [] : [
          `judge: ${displayId(plan.judge.model)}, calibration ${plan.judge.calibration.state}`,
        ]),
        ...(plan.agent_egress === undefined
          ? []
          : [`agent network: ${agentNetworkWords(plan.agent_egress)}`]),
        `suite check: ${
          plan.suite_check?.state === "overridden"
            ? `overridden (it was ${plan.suite_check.found}): ${lineText(plan.suite_check.reason)}`
            : plan.suite_check?.state === "flaky_accepted"
            ? `failed only by flips, accepted for ${
              plan.suite_check.flaky_tasks.map(displayId).join(", ")
            }`
            : plan.suite_check?.state
        }`,
        `runner: ${plan.environment.runner_version}`,
        "",
      ].join("\n") + nextStep({
        command: ["run"],
        options: [
          ["--plan", out],
          ["--suite", suiteDir],
          ["--ledger", join(dirname(out), "ledger.jsonl")],
          ["--upstream", "URL"],
        ],
      }, width),
  });
  return ExitCode.ok;
}

/** The plan's agent network in words: `hosts a, b; the tasks' own allow-lists`. */
function agentNetworkWords(egress: NonNullable<Plan["agent_egress"]>): string {
  const parts = [
    egress.any_public_host
      ? "any public host"
      : egress.allow_hosts.length === 0
      ? "no host"
      : `hosts ${egress.allow_hosts.join(", ")}`,
    ...(egress.task_allowlists ? ["the tasks' own allow-lists"] : []),
  ];
  return parts.join("; ");
}

/**
 * The smallest token cap an episode of the plan runs under: per task, the
 * plan's cap, else the task's own (`effectiveCaps`); null when none has one.
 *
 * @param caps the plan's caps
 * @param tasks the suite's tasks
 * @returns the smallest token cap, or null
 */
function smallestTokenCap(
  caps: { token_cap: number | null; step_cap: number | null; wall_ms_cap: number | null },
  tasks: Awaited<ReturnType<typeof loadSuite>>["manifest"]["tasks"],
): number | null {
  const found = tasks.map((task) => effectiveCaps(caps, task.limits).token_cap)
    .filter((cap): cap is number => cap !== null);
  return found.length === 0 ? null : Math.min(...found);
}

/**
 * Builds or looks up the suite's task environments with the local engine
 * (task_environments.ts), and the bundle digest of each agent image (the
 * agents run from their bundles in those environments); a suite without
 * any needs no engine, loads no Docker client and has no bundles (null).
 *
 * @param suite the loaded suite
 * @param agentImages the agents' image digests
 * @param io where the builds' lines go
 * @param buildNetwork `--build-network`, if given (task_environments.ts's default otherwise)
 * @returns the frozen environments by task, and the bundle digests by image digest (or null)
 * @throws {InputError} naming the task and the missing image, base image or
 *   failed build, or an agent image that cannot be bundled
 */
async function prepareEnvironments(
  suite: Awaited<ReturnType<typeof loadSuite>>,
  agentImages: readonly string[],
  io: Io,
  buildNetwork: string | undefined,
): Promise<{
  environments: Record<string, FrozenTaskEnvironment>;
  verifierEnvironments: Record<string, FrozenTaskEnvironment>;
  serviceEnvironments: Record<string, FrozenServices>;
  bundleDigests: Record<string, string> | null;
}> {
  if (!suite.manifest.tasks.some((task) => task.environment !== undefined)) {
    return {
      environments: {},
      verifierEnvironments: {},
      serviceEnvironments: {},
      bundleDigests: null,
    };
  }
  const { imageDigest } = await import("../runner/docker/image_digest.ts");
  const environments = await import("../runner/task_environments.ts");
  try {
    const prepared = await environments.prepareTaskEnvironments(
      suite,
      (ref) => imageDigest(ref),
      (line) => io.stderr(`${line}\n`),
      { buildNetwork },
    );
    return {
      environments: prepared,
      verifierEnvironments: await environments.prepareVerifierEnvironments(
        suite,
        (ref) => imageDigest(ref),
        (line) => io.stderr(`${line}\n`),
        { buildNetwork },
      ),
      serviceEnvironments: await environments.prepareServiceEnvironments(
        suite,
        (ref) => imageDigest(ref),
        (line) => io.stderr(`${line}\n`),
        { buildNetwork },
      ),
      bundleDigests: await environments.bundleDigests(agentImages),
    };
  } catch (error) {
    if (error instanceof environments.TaskEnvironmentError || error instanceof SandboxError) {
      throw new InputError(`Cannot freeze plan: ${error.message}`);
    }
    throw error;
  }
}

/**
 * The plan's judge (issue 14): the settings of `--judge FILE` with the
 * calibration `judge calibrate` left beside the suite for exactly them.
 *
 * @param suite the loaded suite
 * @param file the `--judge` file, if given
 * @returns the plan's `judge`, or undefined when the suite has no judged task
 * @throws {UsageError} when a judged suite has no `--judge`, or an unjudged one has one
 * @throws {LedgerError} when the file does not fit the schema
 */
async function judgeRecord(
  suite: Awaited<ReturnType<typeof loadSuite>>,
  file: string | undefined,
): Promise<JudgeConfig | undefined> {
  const [judged] = judgedTaskIds(suite.manifest);
  if (judged !== undefined && file === undefined) {
    throw new UsageError(
      `The suite's task "${judged}" is judged by an LLM judge: give "--judge FILE"`,
    );
  }
  if (file === undefined) return undefined;
  if (judged === undefined) {
    throw new UsageError('Option "--judge" needs a suite with a judged task (a task "judge")');
  }
  const settings = (await loadJudgeSettings(file)).value;
  return await planJudge(suite, settings);
}

/**
 * What the plan records of the suite's last check (suite_check_state.ts):
 * `passed`; `not_run`; `flaky_accepted` when it failed only because the
 * tasks named with `--accept-flaky` flipped between repeated runs (each
 * program gave its expected verdict at least once: `flake_only`) and every
 * other task passed; or, when the operator gave `override`, the override
 * with what was found. Any other failed or stale check is refused.
 *
 * @param suite the loaded suite
 * @param override the `--without-suite-check` reason, if given
 * @param acceptFlaky the `--accept-flaky` task ids
 * @returns the record, or the sentence refusing to freeze
 * @throws {UsageError} for an empty reason, or a task named with
 *   `--accept-flaky` that did not flip in the last check
 */
async function suiteCheckRecord(
  suite: Awaited<ReturnType<typeof loadSuite>>,
  override: string | undefined,
  acceptFlaky: readonly string[],
): Promise<{ record: NonNullable<Plan["suite_check"]> } | { refused: string }> {
  if (override !== undefined && override.trim() === "") {
    throw new UsageError('Option "--without-suite-check" needs a reason');
  }
  const found = await suiteCheckState(suite);
  if (acceptFlaky.length > 0) {
    const flipped = new Set(
      found.state === "failed"
        ? found.summary.tasks.filter((task) => task.repeats?.flake_only).map((t) => t.task_id)
        : [],
    );
    const notFlaky = acceptFlaky.filter((id) => !flipped.has(id));
    if (notFlaky.length > 0) {
      throw new UsageError(
        `Option "--accept-flaky": ${notFlaky.map((id) => `"${id}"`).join(", ")} did not flip ` +
          "in the suite's last check (only a task whose verdicts flipped between the runs of " +
          '"suite check --repeat N", each program right at least once, can be accepted)',
      );
    }
  }
  if (found.state === "failed" && acceptFlaky.length > 0) {
    const accepted = new Set(acceptFlaky);
    const others = found.summary.tasks.filter((task) =>
      !task.passed && !accepted.has(task.task_id)
    );
    if (others.length === 0) {
      return {
        record: {
          state: "flaky_accepted",
          summary_sha256: found.summary_sha256,
          checked_at: found.checked_at,
          flaky_tasks: [...accepted].sort(),
        },
      };
    }
  }
  if (override !== undefined && found.state !== "passed") {
    return { record: { state: "overridden", found: found.state, reason: override } };
  }
  if (found.state === "passed" || found.state === "not_run") {
    return {
      record: found.state === "passed"
        ? { state: "passed", summary_sha256: found.summary_sha256, checked_at: found.checked_at }
        : { state: "not_run" },
    };
  }
  return {
    refused: found.state === "failed"
      ? `Cannot freeze plan: the suite's last check (${found.dir}) failed; fix the tasks and ` +
        'run "ledgerbench suite check" again, accept a task whose verdicts flipped with ' +
        "--accept-flaky TASK, or pass --without-suite-check REASON"
      : `Cannot freeze plan: the suite's last check (${found.dir}) is older than the suite ` +
        '(its hash differs); run "ledgerbench suite check" again, or pass --without-suite-check REASON',
  };
}
