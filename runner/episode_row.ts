/**
 * The classification of one finished episode into a ledger row, applied by
 * the one episode skeleton (`run_episode.ts`, where the rules are
 * documented) whatever the sandbox behind it (`sandbox/episode_sandbox.ts`:
 * Docker or the explicit `--unsandboxed` host), so that every sandbox
 * applies exactly the same rules.
 *
 * @module
 */
import type {
  Caps,
  Environment,
  InvalidReason,
  Plan,
  StopReason,
  Verdict,
  VerificationRecord,
} from "../analysis/schema/records.ts";
import type { PlannedEpisode } from "./batch_state.ts";
import type { FsChange, SessionProcess } from "./sandbox/sandbox_session.ts";
import type { EgressRequest } from "../analysis/schema/egress_request.ts";
import type { EpisodeDraft } from "./ledger_writer.ts";
import { evidenceGate } from "./relay/evidence_gate.ts";
import type { RelayCallRecord } from "../analysis/schema/relay_call_record.ts";
import type { RelayTotals } from "./relay/relay.ts";

/** The identity and frozen context of a row. */
export type RowBase = Pick<
  EpisodeDraft,
  | "run_id"
  | "agent_id"
  | "task_id"
  | "seed"
  | "episode_id"
  | "attempt"
  | "lane"
  | "caps"
  | "price_table_id"
  | "environment"
>;

/** The frozen context of a row: what {@link rowBase} takes besides the episode. */
export interface RowContext {
  /** The plan (seed field and price table). */
  plan: Plan;
  /** The episode's effective caps. */
  caps: Caps;
  /** What it runs on; null when the harness failed before knowing. */
  environment: Environment | null;
}

/**
 * The identity part of a row.
 *
 * @param episode the scheduled episode
 * @param context the `plan`, the episode's effective `caps` and its `environment`
 * @returns the base fields
 */
export function rowBase(episode: PlannedEpisode, context: RowContext): RowBase {
  const { plan, caps, environment } = context;
  return {
    run_id: episode.run_id,
    agent_id: episode.agent_id,
    task_id: episode.task_id,
    seed: plan.order_seed ?? "unseeded",
    episode_id: episode.episode_id,
    attempt: episode.attempt,
    lane: episode.lane,
    caps,
    price_table_id: plan.price_table_id ?? "none",
    environment,
  };
}

/** What the candidate side reports, sandboxed or not. */
export interface CandidateFacts {
  /** `completed`, `wall_cap` or `error`. */
  stopReason: "completed" | "wall_cap" | "error";
  exitCode: number;
  oomKilled: boolean;
  wallMs: number;
  startedAt: string;
  finishedAt: string;
  stdoutTail: string;
  /** The stored workspace digest, or null when it was not stored. */
  artifactDigest: string | null;
  /** Why it was not stored (the candidate's own doing). */
  artifactError: string | null;
}

/**
 * The verifier's own output (issue 22, "The verifier's output kept"): the
 * bounded tails of its stdout and stderr (64 KiB each, as the candidate's),
 * for the episode log and `suite check`'s problems. Diagnostics only: never
 * parsed for a verdict.
 */
export interface VerifierOutput {
  stdout_tail: string;
  stderr_tail: string;
  /** Harbor's shared mode: the container's diff after the agent, for the episode log. */
  changes?: readonly FsChange[];
  /** Harbor's shared mode: the processes alive when verification started. */
  processes?: readonly SessionProcess[];
  /** Harbor's modes: every request through the verifier's egress proxy. */
  egress?: readonly EgressRequest[];
}

/**
 * A verifier's answer, sandboxed or not, or the LLM judge's (issue 14). A
 * fault is a `verifier_fault` unless it names another `reason`: the
 * judge's `judge_fault`, or the evidence gate's decision on the judge's
 * own calls. Both kinds may carry how the verifier ran (`verification`,
 * issue 22: its mode, the reward file as read, what decided; the row
 * records it) and its output tails (`output`: the episode log keeps them).
 */
export type VerifyResult =
  & (
    | { kind: "verdict"; resolved: boolean; failedChecks: string[] }
    | {
      kind: "fault";
      fault: string;
      detail: string;
      reason?: "judge_fault" | "evidence_missing" | "provider_fault";
    }
  )
  & { verification?: VerificationRecord; output?: VerifierOutput };

/**
 * A verifier's verdict or fault as the episode skeleton takes it, whatever
 * the mode (sealed, shared, separate): the verdict's `resolved` and the
 * names of its failed checks, or the fault and its detail, with how the
 * verifier ran and its output.
 *
 * @param outcome the verdict (a `Verdict`) or the fault
 * @param parts the row's verification record and the episode log's output
 * @returns the result `classifyEpisode` takes
 * @example
 * ```ts
 * import { verifyResultOf } from "./episode_row.ts";
 * const check = { name: "t", passed: false, detail: "" };
 * const verdict = { schema_version: 1 as const, resolved: false, checks: [check] };
 * const result = verifyResultOf({ kind: "verdict", verdict }, {});
 * if (result.kind !== "verdict" || result.failedChecks.join() !== "t") throw new Error();
 * ```
 */
export function verifyResultOf(
  outcome: { kind: "verdict"; verdict: Verdict } | { kind: "fault"; fault: string; detail: string },
  parts: Pick<VerifyResult, "verification" | "output">,
): VerifyResult {
  return outcome.kind === "verdict"
    ? {
      kind: "verdict",
      resolved: outcome.verdict.resolved,
      failedChecks: outcome.verdict.checks.filter((c) => !c.passed).map((c) => c.name),
      ...parts,
    }
    : { kind: "fault", fault: outcome.fault, detail: outcome.detail, ...parts };
}

/**
 * The relay's totals that the row records besides its calls (issue 8):
 * `unmeteredRequests`, the requests it refused without forwarding because
 * it cannot meter them (a path, method or API outside its surface), and
 * `readRequests`, the harmless reads it forwarded unmetered (`GET /v1/models`,
 * token counting), and `budgetRequests`, the agent's `GET /relay/budget`.
 * Requests refused for other reasons (caps, the concurrency limit, a body
 * too large) are not unmetered: the harness speaks their API (see
 * `RelayTotals.unsupported_requests`).
 *
 * @param totals the episode relay's totals
 * @returns the three counts {@linkcode classifyEpisode} records
 */
export function relaySurface(totals: RelayTotals): ClassifyInput["surface"] {
  return {
    unmeteredRequests: totals.unsupported_requests,
    readRequests: totals.other_requests,
    budgetRequests: totals.budget_requests,
  };
}

/** Inputs of {@link classifyEpisode}. */
export interface ClassifyInput {
  base: RowBase;
  plan: Plan;
  notes: string[];
  records: readonly RelayCallRecord[];
  relayStop: StopReason;
  /**
   * What the relay answered or passed without metering (its totals): requests
   * it cannot meter, refused and never forwarded, and harmless reads it
   * forwarded (`GET /v1/models`). Recorded in the row's evidence.
   */
  surface: { unmeteredRequests: number; readRequests: number; budgetRequests: number };
  expectedModelIds?: readonly string[];
  /**
   * The candidate was a runner-owned program of `suite check` (issue 12),
   * which makes no model call by design: zero calls is then no failure and
   * the verifier decides.
   */
  runnerProgram?: boolean;
  candidate: CandidateFacts;
  /** Runs the verifier; called only when the episode is to be verified. */
  verify: () => Promise<VerifyResult>;
}

/**
 * Turns one finished episode into its row (rules in `run_episode.ts`): the
 * evidence gate first (with the plan's `model_limits`, if any, and its
 * `upstream_timeout_ms`: a call cut off by the wall cap after waiting that
 * long unanswered is a `provider_fault`, issue 9 item 3), then seed 002's rate-limit rule under `rerun-task`,
 * a prompt alone over the declared context limit (the agent's doing: a
 * scored failure, verifier not run, note `prompt_over_context_limit`), zero
 * calls with requests the relay cannot meter (`unsupported_api`: the
 * harness does not speak the agent's API, issue 8; with metered calls those
 * refusals are only noted, so a stray request cannot turn an attempt
 * invalid), zero calls, a workspace too large to store, the verifier's
 * verdict or fault. A row the verifier decided or faulted carries the
 * result's `verification` (issue 22); a harness error in the verifier, and
 * every row decided before the verifier ran, carries none.
 * Tokens, calls and `tool_calls` (the larger of the forwarded calls and the
 * tool calls the responses asked for) come from the relay's records only,
 * never from the agent's output.
 *
 * @param input the episode's facts
 * @returns the row draft
 */
export async function classifyEpisode(input: ClassifyInput): Promise<EpisodeDraft> {
  const { candidate } = input;
  const gate = evidenceGate(input.records, {
    expectedModelIds: input.expectedModelIds,
    modelLimits: input.plan.model_limits,
    upstreamTimeoutMs: input.plan.upstream_timeout_ms,
  });
  const notes = [...input.notes];
  if (candidate.oomKilled) notes.push("the memory limit killed a process of the candidate");
  if (candidate.exitCode !== 0) notes.push(`candidate exit code ${candidate.exitCode}`);
  const measured = {
    ...input.base,
    stop_reason: input.relayStop !== "completed" ? input.relayStop : candidate.stopReason,
    prompt_tokens: gate.prompt_tokens,
    completion_tokens: gate.completion_tokens,
    tool_calls: Math.max(gate.model_calls, gate.tool_calls),
    model_calls: gate.model_calls,
    wall_ms: Math.round(candidate.wallMs),
    evidence: gate.evidence === null ? null : {
      ...gate.evidence,
      unmetered_requests: input.surface.unmeteredRequests,
      read_requests: input.surface.readRequests,
      ...(input.surface.budgetRequests > 0
        ? { budget_requests: input.surface.budgetRequests }
        : {}),
    },
    artifact_digest: candidate.artifactDigest,
    started_at: candidate.startedAt,
    finished_at: candidate.finishedAt,
  };
  const invalid = (reason: InvalidReason, why: string): EpisodeDraft => ({
    ...measured,
    status: "invalid",
    resolved: null,
    invalid_reason: reason,
    notes: [...notes, why].join("; "),
  });
  const scored = (resolved: boolean, why: string | null): EpisodeDraft => ({
    ...measured,
    status: "scored",
    resolved,
    invalid_reason: null,
    notes: (why === null ? notes : [...notes, why]).join("; "),
  });
  if (gate.status === "invalid") {
    return invalid(gate.invalid_reason!, gate.problems.map((p) => p.message).join(" / "));
  }
  if (input.relayStop === "rate_limited" && input.plan.invalid_policy === "rerun-task") {
    return invalid(
      "provider_fault",
      'the upstream answered 429; under invalid policy "rerun-task" a rate limit is an invalid attempt (seed 002)',
    );
  }
  if (gate.agent_over_limit.length > 0) {
    return scored(
      false,
      `prompt_over_context_limit: ${
        gate.agent_over_limit.map((p) => p.message).join(" / ")
      }: the agent sent a prompt the declared configuration would refuse, a scored failure`,
    );
  }
  const unmetered = input.surface.unmeteredRequests;
  const refusedCalls = input.records.filter((record) => !record.forwarded);
  const outsideSurface = unmetered -
    refusedCalls.filter((record) => record.refusal === "unsupported").length;
  const refused = refusedCalls.length + outsideSurface;
  if (gate.zero_calls && input.runnerProgram !== true && refused > 0) {
    return scored(
      false,
      `zero metered model calls: the relay refused all ${refused} request(s) the agent ` +
        `made (${refusalSummary(refusedCalls, outsideSurface)}), a scored failure: what ` +
        "an agent sends is its choice (issue 21); `ledgerbench agent check` finds an agent the " +
        "relay cannot serve before a batch",
    );
  }
  if (unmetered > 0) {
    notes.push(`${unmetered} request(s) the relay cannot meter were refused, never forwarded`);
  }
  if (gate.zero_calls && input.runnerProgram !== true) {
    return scored(false, "zero model calls: a scored failure (seed 000)");
  }
  if (candidate.artifactDigest === null) {
    return scored(false, `workspace not stored: ${candidate.artifactError ?? "unknown reason"}`);
  }
  let result: VerifyResult;
  try {
    result = await input.verify();
  } catch (error) {
    return invalid("harness_error", `harness error in the verifier: ${describeError(error)}`);
  }
  // How the verifier ran goes on the row, whether it decided or faulted (issue 22).
  const verification = result.verification;
  const recorded = (row: EpisodeDraft): EpisodeDraft =>
    verification === undefined ? row : { ...row, verification };
  if (result.kind === "fault") {
    return recorded(
      result.reason === undefined
        ? invalid("verifier_fault", `verifier fault ${result.fault}: ${result.detail}`)
        : invalid(result.reason, `${result.reason}: ${result.detail}`),
    );
  }
  return recorded(scored(
    result.resolved,
    result.failedChecks.length === 0 ? null : `failed checks: ${result.failedChecks.join(", ")}`,
  ));
}

/** What {@link harnessFailureRow} records of an episode the harness could not carry out. */
export interface HarnessFailure {
  /** Notes so far. */
  notes: string[];
  /** The relay's records, or null when no relay ran. */
  records: readonly RelayCallRecord[] | null;
  /** What failed. */
  error: unknown;
  /** Time spent, in milliseconds. */
  wallMs: number;
  /** ISO start. */
  startedAt: string;
  /**
   * The plan's `model_limits`, so that the row's evidence records them as any
   * other row of the plan does; absent: none.
   */
  modelLimits?: Plan["model_limits"];
}

/**
 * The row of an episode the harness could not carry out (engine, relay or
 * forwarder failure): invalid, `harness_error`, stop reason `error`, with
 * whatever the relay had recorded by then.
 *
 * @param base identity fields
 * @param failure the `notes` so far, the relay's `records` (null when no relay ran), the
 *   `error`, the time spent (`wallMs`), the ISO start (`startedAt`) and the plan's
 *   `modelLimits`
 * @returns the row draft
 */
export function harnessFailureRow(base: RowBase, failure: HarnessFailure): EpisodeDraft {
  const { notes, records, error, wallMs, startedAt } = failure;
  const gate = evidenceGate(records ?? [], { modelLimits: failure.modelLimits });
  return {
    ...base,
    status: "invalid",
    resolved: null,
    invalid_reason: "harness_error",
    stop_reason: "error",
    prompt_tokens: gate.prompt_tokens,
    completion_tokens: gate.completion_tokens,
    tool_calls: Math.max(gate.model_calls, gate.tool_calls),
    model_calls: records === null ? null : gate.model_calls,
    wall_ms: Math.round(wallMs),
    evidence: records === null ? null : gate.evidence,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
    notes: [...notes, `harness error: ${describeError(error)}`].join("; "),
  };
}

/** The message of an error, or its string form. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What the relay refused, counted by reason, for a row's note: e.g.
 * `2 token_cap, 1 outside the relay's surface`.
 *
 * @param refused the relay's records of refused model calls
 * @param outsideSurface requests refused outside the model APIs
 * @returns the counts, most frequent first, ties by name
 */
function refusalSummary(refused: readonly RelayCallRecord[], outsideSurface: number): string {
  const counts = new Map<string, number>();
  for (const record of refused) {
    const reason = record.refusal ?? "refused";
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  if (outsideSurface > 0) counts.set("outside the relay's surface", outsideSurface);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, n]) => `${n} ${reason}`).join(", ");
}
