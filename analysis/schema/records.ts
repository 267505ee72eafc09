/**
 * The one schema module of ledgerbench: every durable record (episode row,
 * plan, price table, errata, verifier verdict) is defined here with zod, and
 * the JSON Schemas committed under `ledgers/schema/` are generated from these
 * definitions (see `json_schema.ts`).
 *
 * Sources: seed 001 (the minimal ledger row), seed 000 (invalid evaluation vs
 * valid failure, evidence gate, errata), seed 002 (pre-registered plan, SPRT
 * parameters, invalid attempts), seed 003 (stop reasons, caps, censoring
 * policy).
 *
 * @module
 */
import { z } from "zod";
import { AllowHost } from "./allow_host.ts";
import { built, lazySchema } from "./lazy_schema.ts";
import {
  DEFAULT_BOOTSTRAP,
  DEFAULT_CENSORING,
  DEFAULT_JUDGE_GATES,
  DEFAULT_JUDGE_MAX_ATTEMPTS,
  DEFAULT_SPRT,
  DEFAULT_TIE_BAND,
  INTERVAL_METHODS,
} from "../defaults.ts";

/** Version written into every record this code produces. */
export const SCHEMA_VERSION = 1;

/** Non-empty identifier string. */
export const Id = lazySchema(() => z.string().min(1));
/** Non-negative integer count (tokens, calls, milliseconds). */
export const Count = lazySchema(() => z.number().int().nonnegative());

/**
 * The largest values a plan may set where the type alone would allow a run
 * that never ends or cannot be held in memory (issue 10: the options and the
 * plan accept exactly the same ranges, read from here):
 *
 * - bootstrap rounds: one round keeps one float per agent (8 MB at this
 *   cap) and costs O(scored episodes); 10^12 rounds failed with "Array
 *   buffer allocation failed";
 * - SPRT `n_cap`: the exact operating characteristic costs O(n_cap^2) per
 *   rate and a simulated run up to n_cap steps; 10^9 never finished;
 * - attempts per task under `rerun-task`: each attempt is an episode in
 *   Docker;
 * - a wall cap or upstream timeout in ms: the longest delay `setTimeout`
 *   honours (2^31 - 1 ms, about 24.8 days); a longer one fires at once.
 */
export const PLAN_LIMITS = Object.freeze({
  bootstrap_rounds: 1_000_000,
  n_cap: 10_000,
  max_attempts: 100,
  timer_ms: 2 ** 31 - 1,
});
/** Lower-case hex SHA-256 digest. */
export const Sha256 = lazySchema(() =>
  z.string().regex(/^[0-9a-f]{64}$/, "must be a lower-case hex SHA-256 digest")
);
/** A content digest as Docker writes it (`sha256:<hex>`). */
export const Digest = lazySchema(() =>
  z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must look like "sha256:<64 hex>"')
);

/**
 * Why an episode ended (seed 003, plus `wall_cap` for the runner's wall-clock
 * kill). `completed` means the agent finished on its own.
 */
export const StopReason = lazySchema(() =>
  z.enum([
    "completed",
    "step_cap",
    "token_cap",
    "wall_cap",
    "rate_limited",
    "error",
  ])
);
export type StopReason = z.infer<typeof StopReason>;

/**
 * Why an attempt is invalid: a failure of the harness or of the measurement,
 * never of the agent (seed 000, "评测无效"; seed 002, invalid attempts).
 * `unsupported_api`: the agent made no metered model call and the relay
 * refused requests it cannot meter (a model API the harness does not speak;
 * issue 8). Kept so that ledgers written before issue 21 still read: the
 * runner no longer writes it, because what an agent sends is its own choice
 * (a candidate must not be able to make its attempt invalid by sending only
 * what the relay refuses), so such an attempt is a scored failure and
 * `ledgerbench agent check` catches an agent the harness cannot serve before
 * a batch.
 * `judge_fault`: the LLM judge of a judge-verified task gave no usable
 * judgment within its recorded attempts (a missing, duplicate or unknown
 * dimension, a score out of range, a reply that is not the JSON asked for):
 * the measurement failed, the answer is never scored 0 (seed 000 §06, issue
 * 14).
 */
export const InvalidReason = lazySchema(() =>
  z.enum([
    "verifier_fault",
    "judge_fault",
    "evidence_missing",
    "harness_error",
    "workspace_tampered",
    "provider_fault",
    "unsupported_api",
  ])
);
export type InvalidReason = z.infer<typeof InvalidReason>;

/** `scored`: resolved is true or false. `invalid`: kept, never scored. */
export const EpisodeStatus = lazySchema(() => z.enum(["scored", "invalid"]));
export type EpisodeStatus = z.infer<typeof EpisodeStatus>;

/**
 * The budgets that applied to one episode; null means "no cap". Strict: a
 * misspelt cap must be an error, not a silently absent budget.
 */
export const Caps = lazySchema(() =>
  z.object({
    token_cap: Count.nullable().default(null),
    step_cap: Count.nullable().default(null),
    wall_ms_cap: Count.max(PLAN_LIMITS.timer_ms).nullable().default(null),
  }).strict()
);
export type Caps = z.infer<typeof Caps>;

/**
 * Evidence recorded by the host relay, never by the candidate (seed 000,
 * "证据门禁"): the model identity the server reported, where the token usage
 * came from, a digest of the canonical requests and, when the plan declared
 * `model_limits`, the output policy and context limit the episode was held
 * to.
 *
 * The three limit fields are written only when the plan sets
 * `model_limits` (at least one limit not null); they are absent from rows of
 * plans without limits and from every row written before they existed, and
 * stay absent when such rows are read (absent: no limits declared, nothing
 * checked), so old ledgers load and re-serialize byte for byte.
 *
 * | field | meaning | when absent |
 * |---|---|---|
 * | `max_output_tokens` | the plan's output cap, which the relay put on every forwarded call (null: no output cap declared) | not recorded |
 * | `context_limit_tokens` | the plan's declared context limit (null: none declared) | not recorded |
 * | `max_call_tokens` | largest prompt + completion tokens the server reported for one successful call (null: no such call) | not recorded |
 * | `unmetered_requests` | requests the relay refused without forwarding because it cannot meter them (a path, method or API outside its surface, a model call it cannot parse) | not recorded (rows written before issue 8) |
 * | `read_requests` | harmless reads the relay forwarded without metering them (`GET /v1/models`, token counting) | not recorded |
 * | `budget_requests` | times the agent asked the relay for its budget left (`GET /relay/budget`; every response also tells it in headers) | it never asked |
 * | `prompt_bound_excess` | under a token cap: prompt tokens the server reported beyond the relay's bound of them, summed over calls (the bound's error; the row's tokens may pass its cap by at most this, issue 21) | no token cap, or rows written before issue 21 |
 * | `spend_unknown_calls` | forwarded calls whose usage never arrived though the provider may have billed them (cut off, timed out): their spend is unknown, not 0 | none |
 * | `provider_features` | provider features the plan allowed and the calls used, sorted | none used |
 */
export const Evidence = lazySchema(() =>
  z.object({
    server_model_id: z.string().nullable(),
    usage_source: z.enum(["server", "absent"]),
    request_fingerprint: Sha256.nullable(),
    max_output_tokens: z.number().int().positive().nullable().optional(),
    context_limit_tokens: z.number().int().positive().nullable().optional(),
    max_call_tokens: Count.nullable().optional(),
    unmetered_requests: Count.optional(),
    read_requests: Count.optional(),
    budget_requests: z.number().int().positive().optional(),
    prompt_bound_excess: Count.optional(),
    spend_unknown_calls: z.number().int().positive().optional(),
    provider_features: z.array(z.string().min(1)).optional(),
  })
);
export type Evidence = z.infer<typeof Evidence>;

/**
 * Who reported an imported row's token counts (issue 11): the evaluation
 * harness that ran the agent (Inspect's `model_usage`), the agent itself
 * (Harbor's `agent_result`, which the agent writes), or nobody (the source
 * holds no counts: the row's tokens are null, "not recorded").
 */
export const TokensReportedBy = lazySchema(() => z.enum(["harness", "agent", "not_recorded"]));
export type TokensReportedBy = z.infer<typeof TokensReportedBy>;

/** The result formats `ledgerbench import` reads (issue 11). */
export const ImportFormat = lazySchema(() => z.enum(["inspect", "swebench", "harbor", "table"]));
export type ImportFormat = z.infer<typeof ImportFormat>;

/**
 * Where an imported row came from (issue 11): its evidence kind is
 * `imported`, never relay-witnessed (such a row has `evidence` null), and it
 * names the source file as given, the SHA-256 of its bytes, the position of
 * the attempt inside it (e.g. \`samples/3_epoch_1.json\`, \`line 17\`,
 * \`resolved_ids[4]\`), the importer and its version, who reported the
 * tokens, the model as the source names it, and the cost the source
 * reported (in US dollars; null: none reported). Money in summaries still
 * comes only from a frozen price table (seed 001); the reported cost is
 * kept as evidence.
 */
export const Provenance = lazySchema(() =>
  z.object({
    evidence_kind: z.literal("imported"),
    format: built(ImportFormat),
    importer_version: z.string().min(1),
    source: z.string().min(1),
    source_sha256: built(Sha256),
    position: z.string().min(1),
    tokens_reported_by: built(TokensReportedBy),
    model: z.string().min(1).nullable(),
    reported_cost_usd: z.number().nonnegative().nullable(),
  }).strict()
);
export type Provenance = z.infer<typeof Provenance>;

/** One dimension's score as a judge gave it (seed 000 §06: the model scores each dimension). */
export const DimensionScore = lazySchema(() =>
  z.object({ name: built(Id), score: z.number().int() }).strict()
);
export type DimensionScore = z.infer<typeof DimensionScore>;

/**
 * One call of the judge for one judgment, as the row keeps it: the reply's
 * text (at most {@linkcode JUDGE_REPLY_KEEP_CHARS} characters, with its whole
 * length) and why it was unusable (null: it parsed).
 */
export const JudgeAttempt = lazySchema(() =>
  z.object({
    reply: z.string(),
    reply_chars: built(Count),
    problem: z.string().min(1).nullable(),
  }).strict()
);
export type JudgeAttempt = z.infer<typeof JudgeAttempt>;

/** How much of a judge's reply a row keeps (the episode log has the whole call). */
export const JUDGE_REPLY_KEEP_CHARS = 4096;

/**
 * What the LLM judge of a judge-verified task did in one episode (issue 14,
 * seed 000 §06): the rubric (its id and the SHA-256 of its file), the
 * plan's judge model, whether the plan's judge was calibrated (only then
 * does the episode count in formal scores), every attempt's raw reply, the
 * parsed per-dimension scores, the total code computed from them
 * (`analysis/judge/weighted_total.ts`), the rubric's pass threshold and the
 * verdict, and the judge's own spend and evidence from its relay (never
 * counted in the agent's tokens). `scores`, `total` and `passed` are null
 * when no attempt parsed (the row is then invalid, `judge_fault`) or the
 * judge was never asked (an earlier rule decided the row). Absent: the task
 * has no judge.
 */
export const JudgeRecord = lazySchema(() =>
  z.object({
    rubric_id: built(Id),
    rubric_sha256: built(Sha256),
    model: built(Id),
    calibrated: z.boolean(),
    max_attempts: z.number().int().positive(),
    attempts: z.array(built(JudgeAttempt)),
    scores: z.array(built(DimensionScore)).nullable(),
    total: z.number().min(0).max(100).nullable(),
    pass_threshold: z.number().min(0).max(100),
    passed: z.boolean().nullable(),
    prompt_tokens: built(Count),
    completion_tokens: built(Count),
    model_calls: built(Count),
    evidence: Evidence.nullable(),
  }).strict()
);
export type JudgeRecord = z.infer<typeof JudgeRecord>;

/**
 * Where a task's verifier ran (issue 22, after Harbor's verifier
 * `environment_mode`): `sealed`, ledgerbench's own verifier container after
 * the candidate has exited (seed 000: hidden files copied in only then,
 * nothing the candidate wrote reaches the verdict); `shared`, Harbor's
 * default, the verifier's `test.sh` run in the candidate's own container
 * after the agent, so what the candidate left there (a `conftest.py`, a
 * `.pth` file) runs with the test run and the verdict is not sealed;
 * `separate`, a verifier environment of its own given the candidate's
 * workspace.
 */
export const VerifierMode = lazySchema(() => z.enum(["sealed", "shared", "separate"]));
export type VerifierMode = z.infer<typeof VerifierMode>;

/**
 * A known way a candidate hijacks a shared-mode test run (Harbor checks
 * none of them), as `runner/sandbox/shared_hijacks.ts` finds them: a
 * `conftest.py` pytest loads (`conftest`), a `sitecustomize.py` or
 * `usercustomize.py` (`sitecustomize`) or a `.pth` file in `site-packages`
 * (`pth_file`) the interpreter runs at start, a `[pytest11]` entry point
 * (`pytest_plugin`), the dynamic loader's configuration (`loader_config`),
 * a Python library file changed (`interpreter_changed`), a program on the
 * verifier's `PATH` the candidate replaced or changed (`path_shadow`), the
 * tests changed in the container while they ran (`tests_changed`), a
 * process the candidate left holding a file under `/logs/verifier` open
 * (`verifier_log_writer`).
 */
export const HijackFlag = lazySchema(() =>
  z.enum([
    "conftest",
    "sitecustomize",
    "pth_file",
    "pytest_plugin",
    "loader_config",
    "interpreter_changed",
    "path_shadow",
    "tests_changed",
    "verifier_log_writer",
  ])
);
export type HijackFlag = z.infer<typeof HijackFlag>;

/**
 * How a row's verdict was reached (issue 22, "Rewards" and "The verifier's
 * output kept"): the verifier's mode; the reward file as read, whole (every
 * key and its number; `reward.txt` is `{"reward": <number>}`, as Harbor
 * reads it) and which file it was; what decided (`key "correctness"`,
 * `min of 2 keys`, `mean of 2 keys`, the task's `reward_rule`); in shared
 * mode the known hijacks of the test run found; the verifier's requests
 * through the egress proxy, allowed and denied. `reward`, `reward_file` and
 * `decided_by` are null for a verdict by the JSON line or when no reward was
 * read (`decided_by` also when a reward was read but gave no verdict, e.g.
 * the rule's key absent). Recorded on rows the verifier decided or faulted
 * (never on a harness error); absent on rows written before it.
 */
export const VerificationRecord = lazySchema(() =>
  z.object({
    mode: built(VerifierMode),
    reward: z.record(z.string(), z.number()).nullable(),
    reward_file: z.enum(["reward.txt", "reward.json"]).nullable(),
    decided_by: z.string().nullable(),
    hijacks: z.array(z.object({ flag: built(HijackFlag), path: z.string() }).strict()).default([]),
    egress_allowed: Count.default(0),
    egress_denied: Count.default(0),
    /**
     * Shared mode: the candidate's processes left running beside the tests
     * because they held a listening socket the tests may query (command and
     * sockets, untrusted text); every other process of the candidate's was
     * stopped. Absent: not shared mode, or a row written before it was recorded.
     */
    kept_processes: z.array(
      z.object({ command: z.string(), listening: z.array(z.string()) }).strict(),
    ).optional(),
    /** Shared mode: how many of the candidate's processes were stopped for the test run (absent as above). */
    stopped_processes: Count.optional(),
    /**
     * A multi-step task (Harbor's `[[steps]]`): each step verified, in order,
     * with its reward as read (null: its tests gave none), its verdict (null:
     * the verifier's fault, named in `fault`); a step a `min_reward` gate
     * skipped is absent. `reward` above is then the steps' combination, and
     * the other fields sum or join the steps'. Absent: a task of one step.
     */
    steps: z.array(
      z.object({
        name: z.string(),
        reward: z.record(z.string(), z.number()).nullable(),
        resolved: z.boolean().nullable(),
        fault: z.string().optional(),
      }).strict(),
    ).optional(),
  }).strict()
);
export type VerificationRecord = z.infer<typeof VerificationRecord>;

/** What the episode ran on (seed 002: environment recorded beside every row). */
export const Environment = lazySchema(() =>
  z.object({
    agent_image_digest: Digest.nullable(),
    verifier_image_digest: Digest.nullable(),
    runner_version: z.string().nullable(),
    /** `unsandboxed` only when the operator passed the explicit flag. */
    sandbox: z.enum(["docker", "unsandboxed"]),
    /** SHA-256 of the frozen plan file the episode ran under (null: not recorded). */
    plan_sha256: Sha256.nullable().default(null),
    /**
     * The task's own environment image both containers ran (Harbor's
     * `environment/Dockerfile`); then
     * `agent_image_digest` names the image the agent's bundle came from.
     * Absent: the default images.
     */
    task_image_digest: Digest.optional(),
    /** Digest of the agent's bundle mounted into the task's environment (with `task_image_digest`). */
    agent_bundle_digest: Digest.optional(),
  })
);
export type Environment = z.infer<typeof Environment>;

/**
 * One ledger row: one attempt of one agent at one task.
 *
 * The seed-001 fields are required; everything else has a documented default
 * so that rows in the seed-001 minimal form load unchanged:
 *
 * | field | default when absent |
 * |---|---|
 * | `schema_version` | 1 |
 * | `episode_id` | `"<run_id>/<agent_id>/<task_id>/<attempt>"` |
 * | `attempt` | 1 |
 * | `lane` | `"default"` |
 * | `status` | `"scored"` |
 * | `invalid_reason` | null |
 * | `stop_reason` | `"completed"` |
 * | `caps` | all null (no cap recorded) |
 * | `model_calls` | null (not recorded) |
 * | `evidence`, `environment`, `artifact_digest` | null (not recorded) |
 * | `episode_log_digest` | absent: no episode log was stored |
 * | `started_at`, `finished_at` | null |
 * | `provenance` | absent: written by the runner (a row read by `ledgerbench import` carries one) |
 * | `judge` | absent: the task has no LLM judge (issue 14) |
 * | `verification` | absent: not recorded (a row written before issue 22, a harness error, an imported row) |
 * | `prev_sha256` | absent: the ledger is not hash-chained |
 * | `notes` | `""` |
 *
 * `seed`, `prompt_tokens`, `completion_tokens`, `tool_calls` and `wall_ms`
 * are required but may be null: "not recorded" (issue 11: an imported
 * result that holds no token counts or times). The runner always records
 * them; a null is never read as zero (no TPR, SPR or cost from it).
 *
 * Invariants: `resolved` is null exactly when `status` is `invalid`, and
 * `invalid_reason` is set exactly when `status` is `invalid`.
 */
export const EpisodeInput = lazySchema(() =>
  z.object({
    schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
    run_id: built(Id),
    agent_id: built(Id),
    task_id: built(Id),
    seed: z.union([z.number().int(), z.string()]).nullable(),
    episode_id: Id.optional(),
    attempt: z.number().int().positive().default(1),
    lane: Id.default("default"),
    status: EpisodeStatus.default("scored"),
    resolved: z.boolean().nullable(),
    invalid_reason: InvalidReason.nullable().default(null),
    stop_reason: StopReason.default("completed"),
    prompt_tokens: Count.nullable(),
    completion_tokens: Count.nullable(),
    tool_calls: Count.nullable(),
    model_calls: Count.nullable().default(null),
    wall_ms: Count.nullable(),
    caps: Caps.default({ token_cap: null, step_cap: null, wall_ms_cap: null }),
    price_table_id: built(Id),
    evidence: Evidence.nullable().default(null),
    environment: Environment.nullable().default(null),
    artifact_digest: Digest.nullable().default(null),
    /**
     * `sha256:<hex>` of the episode's stored log (the candidate's output tails
     * and the relay's calls, `runner/episode_log_store.ts`), stored beside the
     * workspace artifact; absent (never defaulted, so older rows load and
     * re-serialise byte for byte) when none was stored.
     */
    episode_log_digest: Digest.optional(),
    started_at: z.iso.datetime().nullable().default(null),
    finished_at: z.iso.datetime().nullable().default(null),
    provenance: Provenance.optional(),
    judge: JudgeRecord.optional(),
    /** How the verdict was reached ({@link VerificationRecord}); absent: not recorded. */
    verification: VerificationRecord.optional(),
    /**
     * The agent's requests through its recording egress proxy (a task with an
     * `agent_network`, under a plan with `agent_egress`), allowed and denied,
     * and per host (sorted; hosts past the 64th counted in `hosts_omitted`).
     * Absent: the agent had no network.
     */
    agent_egress: z.object({
      allowed: built(Count),
      denied: built(Count),
      hosts: z.array(
        z.object({ host: z.string(), allowed: built(Count), denied: built(Count) }).strict(),
      ),
      hosts_omitted: built(Count),
    }).strict().optional(),
    prev_sha256: Sha256.nullable().optional(),
    notes: z.string().default(""),
  }).strict()
);

/**
 * The `episode_id` of a row that names none: `run_id/agent_id/task_id/attempt`
 * (unique within a run, so the ledger's duplicate check holds for rows
 * written without one).
 *
 * @param row the row's run, agent, task and attempt
 * @returns the id
 */
export function defaultEpisodeId(
  row: Pick<z.output<typeof EpisodeInput>, "run_id" | "agent_id" | "task_id" | "attempt">,
): string {
  return `${row.run_id}/${row.agent_id}/${row.task_id}/${row.attempt}`;
}

/** Adds the derived default `episode_id` and checks the status invariants. */
export const Episode = lazySchema(() =>
  EpisodeInput.transform((row) => ({
    ...row,
    episode_id: row.episode_id ?? defaultEpisodeId(row),
  })).superRefine((row, ctx) => {
    if (row.status === "invalid" && row.resolved !== null) {
      ctx.addIssue({
        code: "custom",
        path: ["resolved"],
        message: 'must be null when "status" is "invalid"',
      });
    }
    if (row.status === "scored" && row.resolved === null) {
      ctx.addIssue({
        code: "custom",
        path: ["resolved"],
        message: 'must be true or false when "status" is "scored"',
      });
    }
    if (row.status === "invalid" && row.invalid_reason === null) {
      ctx.addIssue({
        code: "custom",
        path: ["invalid_reason"],
        message: 'must be set when "status" is "invalid"',
      });
    }
    if (row.status === "scored" && row.invalid_reason !== null) {
      ctx.addIssue({
        code: "custom",
        path: ["invalid_reason"],
        message: 'must be null when "status" is "scored"',
      });
    }
  })
);
export type Episode = z.output<typeof Episode>;

/** Seed 002's SPRT parameters; the defaults are the seed's. */
export const SprtParams = lazySchema(() =>
  z.object({
    p_adopt: z.number().gt(0).lt(1).default(DEFAULT_SPRT.p_adopt),
    p_drop: z.number().gt(0).lt(1).default(DEFAULT_SPRT.p_drop),
    alpha: z.number().gt(0).lt(1).default(DEFAULT_SPRT.alpha),
    beta: z.number().gt(0).lt(1).default(DEFAULT_SPRT.beta),
    n_cap: z.number().int().positive().max(PLAN_LIMITS.n_cap).default(DEFAULT_SPRT.n_cap),
  }).strict().refine((p) => p.p_drop < p.p_adopt, {
    message: '"p_drop" must be below "p_adopt"',
    path: ["p_drop"],
  })
);
export type SprtParams = z.infer<typeof SprtParams>;

/** How a batch stops: every planned task, or seed 002's SPRT. */
export const StoppingRule = lazySchema(() =>
  z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("fixed") }).strict(),
    z.object({ kind: z.literal("sprt"), params: built(SprtParams) }).strict(),
  ])
);
export type StoppingRule = z.infer<typeof StoppingRule>;

/**
 * Seed 003's censoring policy: below `headline_max` a headline may be stated,
 * up to `labelled_max` both scores must be stated and labelled, above it only
 * budget adequacy may be discussed.
 */
export const CensoringPolicy = lazySchema(() =>
  z.object({
    headline_max: z.number().min(0).max(1).default(DEFAULT_CENSORING.headline_max),
    labelled_max: z.number().min(0).max(1).default(DEFAULT_CENSORING.labelled_max),
  }).strict().refine((p) => p.headline_max <= p.labelled_max, {
    message: '"headline_max" must not exceed "labelled_max"',
    path: ["headline_max"],
  })
);
export type CensoringPolicy = z.infer<typeof CensoringPolicy>;

/** One planned task in its pre-registered position. */
export const PlannedTask = lazySchema(() =>
  z.object({
    task_id: built(Id),
    lane: Id.default("default"),
    /**
     * The task's own environment (Harbor's `environment/`), frozen: the image both of its
     * containers run (the suite's image reference, or the tag `freeze` built
     * from its Dockerfile) and that image's ID. Absent: the default images;
     * no materialized default, so plans frozen before it keep their hash.
     */
    environment: z.object({
      image: z.string().min(1),
      image_digest: built(Digest),
    }).strict().optional(),
    /**
     * The separate verifier's own environment (Harbor's
     * `environment_mode = "separate"` with a `[verifier.environment]`),
     * frozen as `environment` is. Absent: the verifier runs in the task's
     * environment (shared mode, or separate mode's fresh copy of it) or in
     * the sealed verifier image.
     */
    verifier_environment: z.object({
      image: z.string().min(1),
      image_digest: built(Digest),
    }).strict().optional(),
    /**
     * The images of the task's sidecar services (Harbor's Compose services
     * beside `main`), frozen as `environment` is, in the suite's order.
     * Absent: the task has none.
     */
    services: z.array(
      z.object({
        name: z.string().min(1),
        image: z.string().min(1),
        image_digest: built(Digest),
      }).strict(),
    ).optional(),
  }).strict()
);
export type PlannedTask = z.infer<typeof PlannedTask>;

/**
 * The denominator of results that were not run under a plan (issue 11,
 * "Honest denominators"): the tasks every agent was to attempt, and how
 * many attempts each (Inspect's epochs; 1 elsewhere). `ledgerbench import`
 * writes one beside the ledger from what the sources declare (an Inspect
 * log's dataset sample ids, a SWE-bench report's id lists, a Harbor job's
 * trials, a table's task column) unless `--tasks` names it, and every
 * analysis command takes it as `--tasks FILE`. Task ids are unique
 * (checked by the loader, `inputs/task_list.ts`). `sources` lists the
 * files the list was derived from.
 */
export const TaskList = lazySchema(() =>
  z.object({
    schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
    tasks: z.array(built(PlannedTask)).min(1),
    attempts_per_task: z.number().int().positive().max(PLAN_LIMITS.max_attempts).default(1),
    sources: z.array(
      z.object({
        format: built(ImportFormat),
        source: z.string().min(1),
        source_sha256: built(Sha256),
      }).strict(),
    ).default([]),
  }).strict()
);
export type TaskList = z.infer<typeof TaskList>;

/**
 * The environment variables the runner sets in every candidate container
 * (runner/run_episode.ts): the relay's base URLs, the placeholder keys and
 * the pinned model. A plan's agent `env` may not name them, nor any other
 * name starting with `LEDGERBENCH_` (reserved for the runner).
 */
export const RUNNER_ENV_NAMES = [
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_API_KEY",
  "GOOGLE_GEMINI_BASE_URL",
  "GEMINI_API_KEY",
  "LEDGERBENCH_MODEL",
] as const;
export type RunnerEnvName = typeof RUNNER_ENV_NAMES[number];

/**
 * A plan's agent environment: each name in POSIX form
 * (`[A-Za-z_][A-Za-z0-9_]*`) and not the runner's, each value without NUL.
 */
const AgentEnv = lazySchema(() =>
  z.record(z.string(), z.string()).superRefine((env, ctx) => {
    for (const [name, value] of Object.entries(env)) {
      const problem = !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
        ? "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)"
        : name.startsWith("LEDGERBENCH_") || (RUNNER_ENV_NAMES as readonly string[]).includes(name)
        ? "is set by the runner (RUNNER_ENV_NAMES and LEDGERBENCH_*), not by a plan"
        : value.includes("\0")
        ? "must not contain a NUL character"
        : null;
      if (problem !== null) ctx.addIssue({ code: "custom", path: [name], message: problem });
    }
  })
);

/** One agent under evaluation and the image it must run from. */
export const PlannedAgent = lazySchema(() =>
  z.object({
    agent_id: built(Id),
    image_digest: Digest.nullable().default(null),
    /** The image reference the runner resolves before each episode (e.g. a tag). */
    image: z.string().min(1).nullable().default(null),
    /** The model name the agent requests through the relay (`LEDGERBENCH_MODEL`). */
    model: z.string().min(1).nullable().default(null),
    /**
     * Environment variables added to the agent's container (one image,
     * several configurations), beside the image's `ENV` and the runner's own
     * ({@linkcode RUNNER_ENV_NAMES}, which it may not name). A value holding the
     * upstream key is refused at run time. Absent: none; like `command`, it has
     * no materialized default, so plans frozen before it existed keep their
     * bytes and hash.
     */
    env: AgentEnv.optional(),
    /**
     * The command replacing the image's `CMD` (after its `ENTRYPOINT`, as in
     * `docker run IMAGE COMMAND...`; a name without a slash is looked up in the
     * image's `PATH`). Absent: the image's own. An argument holding the
     * upstream key is refused at run time.
     */
    command: z.array(z.string()).min(1).optional(),
    /**
     * Digest (`digestTree`) of the agent's bundle: its image's files, mounted
     * read-only at `/opt/ledgerbench/agent` when a task brings its own
     * environment; recorded when the suite has such a task and
     * checked before a run. Absent: no task needs it.
     */
    bundle_digest: Digest.optional(),
  }).strict()
);
export type PlannedAgent = z.infer<typeof PlannedAgent>;

/**
 * The model configuration an evaluation declares (seed 000's evidence kinds
 * "输出策略" output policy and "上下文上限" context limit), frozen in the plan.
 * Each limit is a positive integer number of tokens, or null for "not
 * declared" (the default).
 *
 * - `max_output_tokens`: the output policy. The relay makes every forwarded
 *   model call carry an output cap (`max_completion_tokens` or `max_tokens`)
 *   of at most this value, and the evidence gate accepts a successful call
 *   only when the server reported at most the cap it was sent with as
 *   `completion_tokens`.
 * - `context_limit_tokens`: the declared context window. The evidence gate
 *   accepts a successful call only when the server reported at most this
 *   many `prompt_tokens + completion_tokens` (a server that served more is
 *   not the declared configuration). The relay does not change requests for
 *   it.
 */
export const ModelLimits = lazySchema(() =>
  z.object({
    max_output_tokens: z.number().int().positive().nullable().default(null),
    context_limit_tokens: z.number().int().positive().nullable().default(null),
  }).strict()
);
export type ModelLimits = z.infer<typeof ModelLimits>;

/** The limits of a plan without `model_limits`: none declared, nothing checked. */
export const NO_MODEL_LIMITS: Readonly<ModelLimits> = Object.freeze({
  max_output_tokens: null,
  context_limit_tokens: null,
});

/**
 * One dimension of a judge's rubric (seed 000 §06): its name, its integer
 * weight, the integer range of its score and what the judge is told to
 * look for.
 */
export const RubricDimension = lazySchema(() =>
  z.object({
    name: built(Id),
    weight: z.number().int().positive(),
    min: z.number().int().nonnegative(),
    max: z.number().int().positive(),
    guidance: z.string().min(1),
  }).strict().refine((d) => d.min < d.max, {
    message: '"min" must be below "max"',
    path: ["min"],
  })
);
export type RubricDimension = z.infer<typeof RubricDimension>;

/**
 * A judge-verified task's rubric (`tasks/<id>/judge/rubric.json`, hidden
 * from the candidate): dimensions with unique names, and the pass threshold
 * on the 0–100 total code computes from them (seed 000: the threshold
 * belongs to the rubric, the total to code).
 */
export const Rubric = lazySchema(() =>
  z.object({
    schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
    rubric_id: built(Id),
    dimensions: z.array(built(RubricDimension)).min(1),
    pass_threshold: z.number().min(0).max(100),
  }).strict().superRefine((rubric, ctx) => {
    const seen = new Set<string>();
    for (const [i, dimension] of rubric.dimensions.entries()) {
      if (seen.has(dimension.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["dimensions", i, "name"],
          message: `repeats the dimension "${dimension.name}"`,
        });
      }
      seen.add(dimension.name);
    }
  })
);
export type Rubric = z.infer<typeof Rubric>;

/** Seed 000's release gates of a judge ({@linkcode DEFAULT_JUDGE_GATES}). */
export const JudgeGates = lazySchema(() =>
  z.object({
    human_agreement: z.number().min(0).max(1).default(DEFAULT_JUDGE_GATES.human_agreement),
    swap_consistency: z.number().min(0).max(1).default(DEFAULT_JUDGE_GATES.swap_consistency),
  }).strict()
);
export type JudgeGates = z.infer<typeof JudgeGates>;

/**
 * The sampling parameters sent with every judge call (absent: the
 * provider's own), recorded in the plan so that a calibration binds to them.
 * `max_output_tokens` goes as Chat Completions' `max_completion_tokens` or
 * Messages' `max_tokens` (1024 when absent, which Messages requires);
 * `seed` goes to an OpenAI upstream only (the Messages API has none).
 */
export const JudgeParameters = lazySchema(() =>
  z.object({
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().gt(0).max(1).optional(),
    seed: z.number().int().optional(),
    max_output_tokens: z.number().int().positive().optional(),
  }).strict()
);
export type JudgeParameters = z.infer<typeof JudgeParameters>;

/**
 * The judge's calibration as `freeze` found it (`ledgerbench judge
 * calibrate`, issue 14): `passed` (the summary's SHA-256, its time and the
 * figures the gates were held to), `failed` (with the gates' reasons), or
 * `not_run` (no calibration of this judge configuration beside the suite).
 * Only `passed` lets judge-verified tasks count in formal scores (seed 000:
 * "正式批次里 Judge 固定标为不可用").
 */
export const JudgeCalibrationState = lazySchema(() =>
  z.discriminatedUnion("state", [
    z.object({
      state: z.literal("passed"),
      summary_sha256: built(Sha256),
      calibrated_at: z.iso.datetime(),
      human_agreement: z.number().min(0).max(1),
      swap_consistency: z.number().min(0).max(1),
    }).strict(),
    z.object({
      state: z.literal("failed"),
      summary_sha256: built(Sha256),
      calibrated_at: z.iso.datetime(),
      reasons: z.array(z.string().min(1)).min(1),
    }).strict(),
    z.object({ state: z.literal("not_run") }).strict(),
  ])
);
export type JudgeCalibrationState = z.infer<typeof JudgeCalibrationState>;

/**
 * A plan's LLM judge (issue 14): the model its calls are pinned to through
 * the host relay, the sampling parameters, how many calls one judgment may
 * take (each recorded; a fixed number, never a silent retry), the release
 * gates, and the calibration `freeze` found for exactly this configuration.
 */
export const JudgeConfig = lazySchema(() =>
  z.object({
    model: built(Id),
    parameters: JudgeParameters.default({}),
    max_attempts: z.number().int().positive().max(5).default(DEFAULT_JUDGE_MAX_ATTEMPTS),
    gates: JudgeGates.default({ ...DEFAULT_JUDGE_GATES }),
    calibration: JudgeCalibrationState.default({ state: "not_run" }),
  }).strict()
);
export type JudgeConfig = z.infer<typeof JudgeConfig>;

/**
 * A judge configuration as the operator writes it (`freeze --judge FILE`,
 * `judge calibrate --judge FILE`): {@linkcode JudgeConfig} without the
 * calibration, which only `freeze` records.
 */
export const JudgeSettings = lazySchema(() => JudgeConfig.omit({ calibration: true }));
export type JudgeSettings = z.infer<typeof JudgeSettings>;

/**
 * A provider-side capability a plan may allow by name (issue 21,
 * `freeze --allow-provider-feature`): hosted and server tools, state the
 * provider stores, URLs it fetches. Every one is denied by default; which
 * request fields use each is in `runner/relay/provider_features.ts`. A
 * background run (Responses `background: true`) is not among them: it is
 * refused whatever the plan says, since its usage arrives after the call,
 * where the relay cannot meter it.
 */
export const ProviderFeature = lazySchema(() =>
  z.enum([
    "web_search",
    "web_fetch",
    "file_search",
    "code_execution",
    "image_generation",
    "mcp",
    "tool_search",
    "advisor",
    "skills",
    "stored_state",
    "remote_urls",
  ])
);
export type ProviderFeature = z.infer<typeof ProviderFeature>;

/**
 * The relay's upstream timeout per model call when a plan sets no
 * `upstream_timeout_ms`: 300 s, the relay's limit before it was a plan
 * parameter.
 */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 300_000;

/**
 * The frozen plan, written before the first episode (seeds 002 and 003):
 * tasks in their shuffled order, agents and image digests, budgets, stopping
 * rule, invalid policy, censoring thresholds, bootstrap seed, tie band and
 * lane weights (seed 000's lanes).
 */
export const Plan = lazySchema(() =>
  z.object({
    schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
    plan_id: built(Id),
    created_at: z.iso.datetime().nullable().default(null),
    suite_id: Id.default("unnamed"),
    suite_sha256: Sha256.nullable().default(null),
    order_seed: z.union([z.number().int(), z.string()]).nullable().default(null),
    tasks: z.array(built(PlannedTask)).min(1),
    agents: z.array(built(PlannedAgent)).default([]),
    lane_weights: z.record(z.string(), z.number().nonnegative()).default({}),
    caps: Caps.default({ token_cap: null, step_cap: null, wall_ms_cap: null }),
    price_table_id: Id.nullable().default(null),
    stopping: StoppingRule.default({ kind: "fixed" }),
    invalid_policy: z.enum(["halt", "rerun-task"]).default("halt"),
    /**
     * Under `rerun-task`, the most attempts one task may take; the batch halts
     * when a task's last allowed attempt is invalid too.
     */
    max_attempts: z.number().int().positive().max(PLAN_LIMITS.max_attempts).default(3),
    censoring: CensoringPolicy.default({ ...DEFAULT_CENSORING }),
    /**
     * The thresholds the rate of missing tasks (planned tasks without any row)
     * is held to, in seed 003's bands (missing tasks enter the claim
     * policy the way censoring does). Absent: the `censoring` thresholds; no
     * materialized default, so plans frozen before it existed keep their hash.
     */
    missing_policy: CensoringPolicy.optional(),
    /**
     * The thresholds each agent's invalid rate (invalid attempts of any
     * reason over its attempts) is held to, in seed 003's bands (a
     * score over the 66 scored rows of 300 attempts is no headline; seed 002
     * reports the invalid rate apart and calls 30% hard to accept). Absent:
     * the `censoring` thresholds; no materialized default, so plans frozen
     * before it existed keep their hash.
     */
    invalid_rate_policy: CensoringPolicy.optional(),
    /**
     * The thresholds each agent's judge-fault rate (`judge_fault` rows over
     * its judged rows) is held to. Absent: the `censoring`
     * thresholds; no materialized default, likewise.
     */
    judge_fault_policy: CensoringPolicy.optional(),
    bootstrap: z.object({
      rounds: z.number().int().positive().max(PLAN_LIMITS.bootstrap_rounds).default(
        DEFAULT_BOOTSTRAP.rounds,
      ),
      seed: z.union([z.number().int(), z.string()]).default(DEFAULT_BOOTSTRAP.seed),
    }).strict().default({ ...DEFAULT_BOOTSTRAP }),
    tie_band: z.number().min(0).max(1).default(DEFAULT_TIE_BAND),
    /**
     * The 95% interval of a resolved rate every verdict uses and every output
     * names: `percentile-bootstrap` (seed 001, with `bootstrap`'s
     * rounds and seed), `wilson` or `clopper-pearson`. Absent: the percentile
     * bootstrap; no materialized default, so plans frozen before it existed
     * keep their hash.
     */
    interval_method: z.enum(INTERVAL_METHODS).optional(),
    /**
     * Seed 000's output policy and context limit ({@linkcode ModelLimits}).
     * Absent means both null (no limits, nothing checked: exactly the
     * behaviour of plans frozen before this field existed). It has no
     * materialized default so that those plans, whose bytes are their
     * identity, stay in the canonical form `loadPlan` checks.
     */
    model_limits: ModelLimits.optional(),
    /**
     * How long the relay lets the upstream stay silent per model call, in ms
     * (from sending the request, and again after any bytes of the answer
     * arrived: an upstream that keeps answering, e.g. a stream, is never
     * timed out); past it the call is a `provider_fault`
     * (seed 003: a call the upstream never answered is the provider's
     * fault whatever the wall clock says). `freeze` refuses a value that is
     * not below every episode's wall cap, so the timeout fires first. Absent:
     * {@linkcode DEFAULT_UPSTREAM_TIMEOUT_MS}, the behaviour of plans frozen
     * before this field existed; no materialized default, so those plans keep
     * their bytes and hash.
     */
    upstream_timeout_ms: z.number().int().positive().max(PLAN_LIMITS.timer_ms).optional(),
    /**
     * The provider features the relay forwards ({@linkcode ProviderFeature},
     * `freeze --allow-provider-feature`), sorted, each once; every other one
     * is refused. Absent: none (plans frozen before this field keep their hash).
     * Rows of calls that used one name it in `evidence.provider_features`.
     */
    provider_features: z.array(built(ProviderFeature)).min(1).optional(),
    /**
     * The program that generated a synthetic plan and its seed (the shipped
     * example: `tools/generate_synthetic_ledger.ts`); absent in frozen plans.
     */
    generator: z.object({
      script: z.string().min(1),
      seed: z.union([z.number().int(), z.string()]),
    }).strict().optional(),
    /**
     * What the agents of tasks with an `agent_network` may reach, through the
     * runner's recording proxy (the model APIs never: they go through the
     * relay): a `public` task's agent reaches `allow_hosts`, or any host with
     * a public address on ports 80 and 443 under `any_public_host`; an
     * `allowlist` task's agent reaches the task's own hosts when
     * `task_allowlists`. Absent (and in plans frozen before it): no agent has
     * a network.
     */
    agent_egress: z.object({
      allow_hosts: z.array(AllowHost),
      any_public_host: z.boolean(),
      task_allowlists: z.boolean(),
    }).strict().optional(),
    /**
     * The suite's check (`ledgerbench suite check`) as `freeze` found it:
     * `passed` (its summary's SHA-256 and time), `flaky_accepted` (it failed
     * only because the named tasks' verdicts flipped between repeated runs,
     * and the operator froze them by name with `--accept-flaky`), `not_run`
     * (no check beside the suite), or `overridden` by the operator with a
     * reason, naming what the check's state was. Absent in plans frozen
     * before it.
     */
    suite_check: z.discriminatedUnion("state", [
      z.object({
        state: z.literal("passed"),
        summary_sha256: built(Sha256),
        checked_at: z.iso.datetime(),
      }).strict(),
      z.object({
        state: z.literal("flaky_accepted"),
        summary_sha256: built(Sha256),
        checked_at: z.iso.datetime(),
        flaky_tasks: z.array(built(Id)).min(1),
      }).strict(),
      z.object({ state: z.literal("not_run") }).strict(),
      z.object({
        state: z.literal("overridden"),
        found: z.enum(["not_run", "failed", "stale"]),
        reason: z.string().min(1),
      }).strict(),
    ]).optional(),
    /**
     * The agent check the plan's agents were held to (`ledgerbench agent
     * check`; `freeze` runs it itself, or takes `--agent-check
     * FILE`): the SHA-256 of the result file and when the check ran; every
     * agent of the plan passed it with its image digest. `skipped`: frozen with
     * `--without-agent-check REASON`. Absent: plans frozen before `freeze` ran
     * the check (the agents were not checked), which keep their hash.
     */
    agent_check: z.union([
      z.object({ sha256: built(Sha256), checked_at: z.iso.datetime() }).strict(),
      /** Frozen with `--without-agent-check REASON`: the agents were not checked, and why. */
      z.object({ skipped: z.string().min(1) }).strict(),
    ]).optional(),
    /**
     * The LLM judge of the suite's judge-verified tasks (seed 000). Absent:
     * the suite has none (`freeze` refuses a suite with judge tasks and no
     * judge); plans frozen before it keep their hash.
     */
    judge: JudgeConfig.optional(),
    environment: z.object({
      runner_version: z.string().nullable().default(null),
      verifier_image_digest: Digest.nullable().default(null),
      /** The verifier image reference the runner resolves before each episode. */
      verifier_image: z.string().min(1).nullable().default(null),
    }).strict().default({
      runner_version: null,
      verifier_image_digest: null,
      verifier_image: null,
    }),
  }).strict()
);
export type Plan = z.infer<typeof Plan>;

/** Per-million-token rates in one currency. */
export const Rate = lazySchema(() =>
  z.object({
    prompt_per_million: z.number().nonnegative(),
    completion_per_million: z.number().nonnegative(),
  }).strict()
);
export type Rate = z.infer<typeof Rate>;

/**
 * A frozen price table (seed 001: "冻结一份价格表"): money is only ever
 * derived from tokens through one of these, identified by `price_table_id`.
 */
export const PriceTable = lazySchema(() =>
  z.object({
    schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
    price_table_id: built(Id),
    currency: z.string().min(1),
    default_rate: Rate.nullable().default(null),
    agent_rates: z.record(z.string(), built(Rate)).default({}),
  }).strict()
);
export type PriceTable = z.infer<typeof PriceTable>;

/**
 * A correction, appended to a separate errata file; the ledger is never
 * rewritten (seed 000: the 89-point run was kept and marked void).
 *
 * - `invalidate_episode`: the episode becomes invalid with `invalid_reason`.
 * - `rescore_episode`: a re-verification of the stored artifact with zero
 *   model calls produced a new verdict (`resolved` true/false) or found the
 *   verifier faulty again (`resolved` null makes it invalid with
 *   `verifier_fault`).
 * - `void_summary`: a published summary (identified by its SHA-256) is void.
 */
export const Erratum = lazySchema(() =>
  z.discriminatedUnion("kind", [
    z.object({
      schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
      kind: z.literal("invalidate_episode"),
      erratum_id: built(Id),
      created_at: z.iso.datetime(),
      episode_id: built(Id),
      invalid_reason: built(InvalidReason),
      explanation: z.string().min(1),
    }).strict(),
    z.object({
      schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
      kind: z.literal("rescore_episode"),
      erratum_id: built(Id),
      created_at: z.iso.datetime(),
      episode_id: built(Id),
      resolved: z.boolean().nullable(),
      verifier_image_digest: Digest.nullable().default(null),
      artifact_digest: Digest.nullable().default(null),
      explanation: z.string().min(1),
    }).strict(),
    z.object({
      schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
      kind: z.literal("void_summary"),
      erratum_id: built(Id),
      created_at: z.iso.datetime(),
      summary_sha256: built(Sha256),
      explanation: z.string().min(1),
    }).strict(),
  ])
);
export type Erratum = z.infer<typeof Erratum>;

/**
 * The structured verdict a verifier prints as its last line of stdout. A
 * missing or malformed verdict is a verifier fault, never a candidate failure
 * (seed 000, the 89-point incident).
 */
export const Verdict = lazySchema(() =>
  z.object({
    schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
    resolved: z.boolean(),
    checks: z.array(
      z.object({
        name: built(Id),
        passed: z.boolean(),
        detail: z.string().default(""),
      }).strict(),
    ).default([]),
  }).strict()
);
export type Verdict = z.infer<typeof Verdict>;

/** Who won a pairwise judgment: the answer shown first (`A`), second (`B`), or neither. */
export const PairWinner = lazySchema(() => z.enum(["A", "B", "tie"]));
export type PairWinner = z.infer<typeof PairWinner>;

/**
 * One human label of a judge's golden set (issue 14; seed 000 §06's small
 * golden sets): one line of an append-only JSONL file. A label scores one
 * answer to a task (`kind: "score"`, the human's 0–100 total on the task's
 * rubric) or compares two (`kind: "pairwise"`, the human's winner with
 * `answer_a` shown first). A revision appends a line with the same
 * `item_id` and a higher `label_version`; `seen_model_output` says the
 * labeller had seen the judged model's output when labelling (seed 000:
 * labels revised after seeing GLM's output moved F1 from 0.870 to 1.000,
 * so both numbers are reported).
 */
export const GoldenLabel = lazySchema(() =>
  z.discriminatedUnion("kind", [
    z.object({
      schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
      kind: z.literal("score"),
      item_id: built(Id),
      task_id: built(Id),
      label_version: z.number().int().positive(),
      seen_model_output: z.boolean().default(false),
      answer: z.string(),
      human_total: z.number().min(0).max(100),
    }).strict(),
    z.object({
      schema_version: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
      kind: z.literal("pairwise"),
      item_id: built(Id),
      task_id: built(Id),
      label_version: z.number().int().positive(),
      seen_model_output: z.boolean().default(false),
      answer_a: z.string(),
      answer_b: z.string(),
      human_winner: built(PairWinner),
    }).strict(),
  ])
);
export type GoldenLabel = z.infer<typeof GoldenLabel>;

/**
 * The first metered model call of an agent check (`ledgerbench agent
 * check`, issue 21), as the relay recorded it under the check's large token
 * cap: its index and endpoint, the prompt bound the cap reserved, the output
 * cap it was forwarded with, and the output cap the agent asked for
 * (`requested_output_cap`: the forwarded cap when the relay did not lower
 * it; null when the call carried none and the relay set one,
 * `cap_lowered`). Null fields: not recorded (a call forwarded without a
 * token cap).
 */
export const AgentCheckCall = lazySchema(() =>
  z.object({
    index: z.number().int().positive(),
    endpoint: z.string().min(1),
    prompt_bound: Count.nullable(),
    output_cap: Count.nullable(),
    requested_output_cap: Count.nullable(),
    cap_lowered: z.boolean().nullable(),
  }).strict()
);
export type AgentCheckCall = z.infer<typeof AgentCheckCall>;

/** A model call of an agent check the relay refused: its endpoint and refusal, as recorded. */
export const AgentCheckRefusedCall = lazySchema(() =>
  z.object({
    index: z.number().int().positive(),
    endpoint: z.string().min(1),
    /** The relay's refusal code (`RelayRefusal`, e.g. `unsupported`). */
    refusal: built(Id),
    status: z.number().int().min(100).max(599),
    detail: z.string(),
  }).strict()
);
export type AgentCheckRefusedCall = z.infer<typeof AgentCheckRefusedCall>;

/**
 * A request the relay answered locally outside the model APIs (issue 21:
 * every refused request is seen with its method and path): a path, method
 * or target outside its surface, or one over its concurrency limit. The
 * episode log's `denied_requests` and an agent check's hold these.
 */
export const RelayDeniedRequest = lazySchema(() =>
  z.object({
    /** The request's method, e.g. `HEAD`. */
    method: z.string(),
    /** Its target as sent, cut at 256 characters, e.g. `/api/hello`. */
    target: z.string(),
    /** The status the relay answered. */
    status: z.number().int().min(100).max(599),
    /** The error code of the answer, e.g. `not_found`. */
    code: z.string(),
  }).strict()
);
export type RelayDeniedRequest = z.infer<typeof RelayDeniedRequest>;

/**
 * One agent's check: the configuration run (id, image and digest, model,
 * env, command, upstream kind), its verdict (`ok` with at least one metered
 * model call, else `refused` with the reason), the calls and refusals the
 * relay saw, and the check episode's row in short (null: no row was
 * written). Strings other than the verdict's come from the agent or its
 * image: untrusted, escaped when shown.
 */
export const AgentCheckAgent = lazySchema(() =>
  z.object({
    agent_id: built(Id),
    image: z.string().min(1),
    image_digest: built(Digest),
    model: z.string().min(1).nullable(),
    env: PlannedAgent.shape.env,
    command: PlannedAgent.shape.command,
    upstream_kind: z.enum(["openai", "anthropic", "gemini"]),
    verdict: z.enum(["ok", "refused"]),
    /** Why a `refused` agent was refused; null when `ok`. */
    reason: z.string().min(1).nullable(),
    /** Model calls the relay forwarded and metered. */
    model_calls: built(Count),
    first_call: AgentCheckCall.nullable(),
    refused_calls: z.array(built(AgentCheckRefusedCall)),
    denied_requests: z.array(built(RelayDeniedRequest)),
    episode: z.object({
      status: built(EpisodeStatus),
      invalid_reason: InvalidReason.nullable(),
      stop_reason: built(StopReason),
      notes: z.string(),
    }).strict().nullable(),
  }).strict()
    .refine((agent) => (agent.verdict === "ok") === (agent.model_calls > 0), {
      message: 'must have "verdict" "ok" exactly when "model_calls" is above 0',
      path: ["verdict"],
    })
    .refine((agent) => (agent.verdict === "ok") === (agent.reason === null), {
      message: 'must have a "reason" exactly when "verdict" is "refused"',
      path: ["reason"],
    })
);
export type AgentCheckAgent = z.infer<typeof AgentCheckAgent>;

/**
 * The result of `ledgerbench agent check` (`--out FILE`), which `freeze
 * --agent-check FILE` reads: when it ran, the runner version and token cap
 * it ran under, whether every agent passed, and each agent's check.
 */
export const AgentCheck = lazySchema(() =>
  z.object({
    schema_version: z.literal(SCHEMA_VERSION),
    checked_at: z.iso.datetime(),
    runner_version: z.string().min(1),
    token_cap: built(Count),
    passed: z.boolean(),
    agents: z.array(built(AgentCheckAgent)).min(1),
  }).strict().refine((check) => check.passed === check.agents.every((a) => a.verdict === "ok"), {
    message: 'must be true exactly when every agent\'s "verdict" is "ok"',
    path: ["passed"],
  })
);
export type AgentCheck = z.infer<typeof AgentCheck>;
