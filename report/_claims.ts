/**
 * The claims of a report: one sentence per statement, each with the rule of
 * the seed documents that allows it or withholds it (seed 001's comparison
 * rule, seed 003's validation and censoring policy, seeds 000 and 002 on
 * invalid attempts and errata, seed 002's SPRT). Pure functions of computed
 * results; they never recompute a number.
 *
 * Private to `report/`.
 *
 * @module
 */
import type { AgentStanding, ClaimAssessment } from "../analysis/agent_standing.ts";
import {
  type CensoringClaim,
  censoringClaim as claimOfRate,
  type CensoringRow,
} from "../analysis/censoring.ts";
import type { AgentCoverage } from "../analysis/task_coverage.ts";
import type { AgentJudgeFaults } from "../analysis/judge/judge_faults.ts";
import {
  CLAIM_SHORT_WORDS,
  claimLabel,
  invalidReasonsText,
  notRecordedFor,
  type Withheld,
} from "./standing_words.ts";
import type { Comparison } from "../analysis/compare_agents.ts";
import type { AppliedErratum, ErrataFile } from "../analysis/errata.ts";
import type {
  CensoringPolicy,
  Episode,
  Plan,
  SprtParams,
  StopReason,
} from "../analysis/schema/records.ts";
import { spendEvidenceFlags, type SpendFlag } from "../analysis/spend_evidence.ts";
import { priceTableMix } from "../analysis/price_table_mix.ts";
import { sharedModeNote, type VerificationModes } from "../analysis/verification_modes.ts";
import type { SprtBoundaries } from "../analysis/sprt/sprt_boundaries.ts";
import type { AgentSummary } from "../analysis/summarize_agents.ts";
import {
  FINDING_SEVERITY,
  type FindingCode,
  type ValidationReport,
} from "../analysis/validate_ledger.ts";
import { formatPercentExact } from "../analysis/format_number.ts";
import { integer, percent, percentInterval, plural, quotedList } from "./format.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import { SCORE_WORDS } from "../analysis/score_words.ts";
import type { AgentInterval, ReportClaim, SprtAgentResult } from "./report_model.ts";
import type { InvalidRow } from "../analysis/invalid_attempts.ts";
import type { FlaggedSummary } from "../analysis/flagged_rows.ts";

const CLAIM_WORDS: Record<CensoringClaim, string> = {
  headline: "a headline score may be stated",
  both_labelled: "both scores must be stated, labelled",
  budget_adequacy_only: "only budget adequacy may be discussed, no capability headline",
};

function censoredBreakdown(row: CensoringRow): string {
  const parts = (Object.entries(row.stop_reasons) as [StopReason, number][])
    .filter(([reason, n]) => reason !== "completed" && n > 0)
    .map(([reason, n]) => `${reason} ${n}`);
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/**
 * Seed 003's censoring policy in words, e.g. `headline under 2%, both scores
 * labelled up to 10%, above that budget adequacy only`.
 *
 * @param policy the thresholds
 * @returns the phrase, without a final period
 */
export function policyText(policy: CensoringPolicy): string {
  return `headline under ${formatPercentExact(policy.headline_max)}, both scores labelled up to ` +
    `${formatPercentExact(policy.labelled_max)}, above that budget adequacy only`;
}

/**
 * An agent's resolved rate with each judge fault counted as a failure
 * (issue 21, `AgentJudgeFaults.resolved_rate_faults_as_failures`), in
 * words, e.g. `with them counted as failures its resolved rate is 90.0%
 * (45 of 50, a lower bound)`; the claims and the report's judge section say it alike.
 *
 * @param faults the agent's judge faults
 * @returns the phrase, without a final period
 */
export function faultsAsFailuresText(faults: AgentJudgeFaults): string {
  return `with them counted as failures its resolved rate is ${
    percent(faults.resolved_rate_faults_as_failures)
  } (${integer(faults.resolved)} of ${
    integer(faults.scored + faults.judge_faults)
  }, a lower bound)`;
}

/** What each spend-evidence flag says of its rows. */
const SPEND_FLAG_TEXT: Record<SpendFlag["code"], string> = {
  resolved_without_spend: "resolved with zero model calls or zero tokens (spend not metered)",
  unmetered_requests: "with requests the relay refused because it cannot meter them",
  spend_unknown: "with calls whose usage never arrived (their tokens are a lower bound)",
  provider_features: "whose calls used provider features outside the token count",
  prompt_bound_exceeded: "whose prompts passed the relay's bound of them (the cap's error)",
};

/**
 * The spend-evidence claim (issue 8): rows whose spend cannot be right,
 * whatever the plan says (`spendEvidenceFlags`), counted by flag with the
 * first three episode ids of each; null when no row is flagged.
 *
 * @param rows the rows the report summarizes (after errata)
 * @returns the claim with id `spend-evidence`, or null
 */
export function spendEvidenceClaim(rows: Iterable<Episode>): ReportClaim | null {
  // Per flag, in order of first occurrence: its row count and the first three episode ids,
  // all the sentence names (one pass, O(rows)).
  const flagged = new Map<string, { rows: number; first: string[] }>();
  for (const row of rows) {
    for (const flag of spendEvidenceFlags(row)) {
      let entry = flagged.get(flag.code);
      if (entry === undefined) {
        entry = { rows: 0, first: [] };
        flagged.set(flag.code, entry);
      }
      entry.rows++;
      if (entry.first.length < 3) entry.first.push(row.episode_id);
    }
  }
  if (flagged.size === 0) return null;
  const parts = [...flagged].map(([code, { rows, first }]) =>
    `${plural(rows, "row")} ${SPEND_FLAG_TEXT[code as SpendFlag["code"]]} (${
      first.map((id) => `"${id}"`).join(", ")
    }${rows > 3 ? ", ..." : ""})`
  );
  return {
    id: "spend-evidence",
    topic: "validation",
    rule: "spend evidence, the relay's records",
    stated: true,
    text: `Flagged: ${parts.join("; ")}`,
  };
}

/**
 * The price-table claim (seed 001: money only through one frozen table):
 * rows that name more than one price table (`priceTableMix`), stated with
 * or without `--price-table`; null when they name at most one.
 *
 * @param rows the rows the report summarizes (after errata)
 * @returns the claim with id `price-tables`, or null
 */
export function priceTableClaim(rows: Iterable<Episode>): ReportClaim | null {
  const mix = priceTableMix(rows);
  if (mix === null) return null;
  return {
    id: "price-tables",
    topic: "validation",
    rule: "seed-001 one frozen price table",
    stated: true,
    text: `Flagged: ${mix}`,
  };
}

/**
 * The verifier-mode claim: how many of the rows were verified in Harbor's
 * shared mode, where the verifier ran in the candidate's own container and
 * the verdict is not sealed (`sharedModeNote`), and how many resolved rows
 * carry a hijack flag (`flaggedSummary`: the candidate changed what its
 * test run trusts; the claim policy holds them); null when neither.
 *
 * @param counts the rows' verification modes (`verificationModes`, after errata)
 * @param flagged the assessment's flagged summary (its whole-run row)
 * @returns the claim with id `verification-mode`, or null
 */
export function verificationModeClaim(
  counts: VerificationModes,
  flagged: FlaggedSummary,
): ReportClaim | null {
  const notes = [sharedModeNote(counts)];
  const resolved = flagged.overall.flagged_resolved;
  if (resolved > 0) {
    notes.push(
      `${plural(resolved, "resolved row")} ${resolved === 1 ? "carries" : "carry"} a hijack flag ` +
        "(the candidate changed what its test run trusts), held to the claim policy",
    );
  }
  const text = notes.filter((note) => note !== null).join("; ");
  if (text === "") return null;
  return {
    id: "verification-mode",
    topic: "validation",
    rule: "verifier mode, seed 000",
    stated: true,
    text,
  };
}

/**
 * The validation claim (seed 003): no plan given, the ledger as recorded
 * matches its plan, or it does not (with the error findings by code).
 *
 * @param report the validation of the ledger as recorded; null without a plan
 * @param plan the plan; null without one
 * @returns the claim with id `validation`
 */
export function validationClaim(report: ValidationReport | null, plan: Plan | null): ReportClaim {
  if (report === null || plan === null) {
    return {
      id: "validation",
      topic: "validation",
      rule: "seed-003 validation",
      stated: true,
      text: "No plan given: the ledger is not validated against a frozen plan (row count, caps " +
        "and lanes unchecked), and the bootstrap, tie band and censoring thresholds are the " +
        "defaults, not pre-registered values",
    };
  }
  const counts = Object.entries(report.finding_counts) as [FindingCode, number][];
  const severity = (code: FindingCode) => FINDING_SEVERITY[code];
  const errors = counts.filter(([code]) => severity(code) !== "info");
  const infos = counts.filter(([code]) => severity(code) === "info");
  const infoText = infos.length === 0
    ? ""
    : `; listed for information: ${infos.map(([code, n]) => `${code} ${n}`).join(", ")}`;
  if (report.ok) {
    return {
      id: "validation",
      topic: "validation",
      rule: "seed-003 validation",
      stated: true,
      text:
        `The ledger as recorded matches plan "${plan.plan_id}": ${
          integer(report.scored)
        } scored rows ` +
        `(${report.stopping === "sprt" ? "at most " : ""}${
          integer(report.planned_scored)
        } planned), ${plural(report.invalid, "invalid attempt")}, no error finding${infoText}`,
    };
  }
  const total = errors.reduce((sum, [, n]) => sum + n, 0);
  return {
    id: "validation",
    topic: "validation",
    rule: "seed-003 validation",
    stated: true,
    text:
      `The ledger as recorded does not match plan "${plan.plan_id}": ${
        plural(total, "error finding")
      } (${
        errors.map(([code, n]) => `${code} ${n}`).join(", ")
      }); no capability claim is stated until they are resolved (seed 003: validate before ` +
      `anyone reads a mean)`,
  };
}

function findingKey(f: { code: string; line: number | null; message: string }): string {
  return `${f.code}|${f.line}|${f.message}`;
}

/**
 * What the errata changed against the plan: the error findings of the
 * corrected rows that the ledger as recorded did not have.
 *
 * @param before validation of the ledger as recorded
 * @param after validation of the rows after the errata
 * @returns the claim with id `validation:errata`
 */
export function errataValidationClaim(
  before: ValidationReport,
  after: ValidationReport,
): ReportClaim {
  const known = new Set(before.findings.map(findingKey));
  const fresh = after.findings.filter((f) => f.severity === "error" && !known.has(findingKey(f)));
  const base = { id: "validation:errata", topic: "validation" as const, stated: true };
  if (fresh.length === 0) {
    return {
      ...base,
      rule: "seed-003 validation after seed-000 errata",
      text: "After the errata the rows still match the plan: no new error finding",
    };
  }
  const shown = fresh.slice(0, 5).map((f) => f.message);
  const more = fresh.length > shown.length ? `; and ${fresh.length - shown.length} more` : "";
  return {
    ...base,
    rule: "seed-003 validation after seed-000 errata",
    text:
      `After the errata, ${plural(fresh.length, "new finding")} against the plan: ${
        shown.join("; ")
      }${more}; every score below is over the corrected rows, so an agent with such a task is ` +
      "scored over fewer tasks than planned",
  };
}

function verdictText(
  v: { status: string; resolved: boolean | null; invalid_reason: string | null },
) {
  if (v.status === "invalid") return `invalid (${v.invalid_reason})`;
  return v.resolved ? "resolved" : "not resolved";
}

/**
 * One claim per applied episode erratum (before → after, with its
 * explanation) and per voided summary (seed 000), or one saying the file holds
 * no correction.
 *
 * @param errata the errata file
 * @param applied what `applyErrata` changed
 * @returns the claims, ids `errata:<erratum_id>`
 */
export function errataClaims(errata: ErrataFile, applied: AppliedErratum[]): ReportClaim[] {
  const explanation = new Map(errata.entries.map((e) => [e.erratum.erratum_id, e.erratum]));
  const claims: ReportClaim[] = applied.map((a) => ({
    id: `errata:${a.erratum_id}`,
    topic: "errata",
    rule: "seed-000 errata",
    stated: true,
    text: `Erratum "${a.erratum_id}" (line ${a.line}) ${
      a.kind === "rescore_episode" ? "rescores" : "invalidates"
    } episode "${displayId(a.episode_id)}": ${verdictText(a.before)} → ${verdictText(a.after)}: ${
      explanation.get(a.erratum_id)?.explanation ?? ""
    }`,
  }));
  for (const { line, erratum } of errata.entries) {
    if (erratum.kind !== "void_summary") continue;
    claims.push({
      id: `errata:${erratum.erratum_id}`,
      topic: "errata",
      rule: "seed-000 errata",
      stated: true,
      text: `Erratum "${erratum.erratum_id}" (line ${line}) voids the summary with SHA-256 ` +
        `${erratum.summary_sha256}, which is kept, not rewritten: ${erratum.explanation}`,
    });
  }
  if (claims.length === 0) {
    claims.push({
      id: "errata:none",
      topic: "errata",
      rule: "seed-000 errata",
      stated: true,
      text: `The errata file "${errata.file}" holds no correction`,
    });
  }
  return claims;
}

/** The results an agent's claim is written from. */
export interface AgentClaimContext {
  /** The agent's rate interval. */
  interval: AgentInterval;
  /** The agent's censoring row. */
  row: CensoringRow;
  /** The agent's claim (`AgentStanding.claim`: censoring and missing tasks together); it decides the wording. */
  claim: CensoringClaim | null;
  /** Why the numbers may not be stated, or null. */
  withheld: Withheld | null;
  /** The agent's judge faults (issue 21); absent or null when it has no judged row. */
  judgeFaults?: AgentJudgeFaults | null;
  /** The agent's invalid attempts (issue 23); absent or null: not held. */
  invalid?: InvalidRow | null;
  /**
   * The agent's coverage of the plan's or task list's tasks (issue 11);
   * absent or null without a denominator. With one, a labelled claim's
   * lower bound is the score over planned tasks, the number the
   * missing-tasks section and `summarize` give (issue 25 item 3: the claim
   * said "score over all tasks 25.0% (a lower bound; 166 of 663)" where the
   * missing-tasks section gave 22.7% of 730).
   */
  coverage?: AgentCoverage | null;
}

/**
 * An agent's capability claim under seed 003's policy: a headline resolved
 * rate with its interval (under `headline_max`), or both scores labelled
 * (the lower bound over planned tasks, or over scored episodes without a
 * denominator, and over completed tasks only; {@link SCORE_WORDS}), or a withheld claim
 * naming the rule. When the agent's judge-fault rate is in the labelled
 * band (issue 21), the resolved rate with its judge faults counted as
 * failures is stated beside them, as a lower bound; likewise, when its
 * invalid rate is in the labelled band (issue 23), the resolved rate with
 * every invalid attempt counted as a failure.
 *
 * @param agent the agent's summary
 * @param context its interval, censoring row and withholding reason
 * @returns the claim with id `agent:<agent_id>`
 */
export function agentClaim(agent: AgentSummary, context: AgentClaimContext): ReportClaim {
  const { interval, row, claim, withheld } = context;
  const faults = context.judgeFaults ?? null;
  const invalid = context.invalid ?? null;
  const judgeDriven = faults !== null && faults.claim === claim && row.claim !== claim;
  const invalidDriven = invalid !== null && invalid.claim === claim && row.claim !== claim;
  const invalidBound = invalid === null || invalid.claim !== "both_labelled"
    ? ""
    : `; its invalid rate ${percent(invalid.held_rate)} (${integer(invalid.held)} of ${
      plural(invalid.attempts, "attempt")
    }: ${
      invalidReasonsText(invalid.reasons, { judgeFaults: false })
    }) needs labels too: resolved rate with each ` +
      `invalid attempt counted as a failure ${
        percent(invalid.resolved_rate_invalid_as_failures)
      } (${integer(invalid.resolved)} of ${integer(invalid.attempts)}, a lower bound)`;
  const faultBound = faults === null || faults.claim !== "both_labelled"
    ? ""
    : `; its judge-fault rate ${percent(faults.judge_fault_rate)} (${
      integer(faults.judge_faults)
    } of ${plural(faults.judged, "judged row")}) needs labels too: ${faultsAsFailuresText(faults)}`;
  const id = `agent:${agent.agent_id}`;
  const rule = `seed-003 policy "${claim ?? "none"}"`;
  if (withheld !== null) {
    return {
      id,
      topic: "agent",
      rule: withheld.rule,
      stated: false,
      text: `"${displayId(agent.agent_id)}": resolved rate not stated: ${withheld.reason}`,
    };
  }
  const boot = interval.bootstrap!;
  const ci = interval.wilson === null
    ? `95% bootstrap interval ${percentInterval(boot)}`
    : `bootstrap interval collapsed at ${percent(boot.lower)}; Wilson 95% ${
      percentInterval(interval.wilson)
    }`;
  if (claim === "headline") {
    return {
      id,
      topic: "agent",
      rule,
      stated: true,
      text: `"${displayId(agent.agent_id)}": ${SCORE_WORDS.scored} ${
        percent(agent.resolved_rate)
      } (${integer(agent.resolved)} of ${
        plural(agent.scored, "scored episode")
      }, ${ci}); censoring ${percent(row.censoring_rate)}${
        invalid === null || invalid.held === 0
          ? ""
          : `, invalid ${percent(invalid.held_rate)} (${integer(invalid.held)} of ${
            plural(invalid.attempts, "attempt")
          })`
      }, so this is a headline`,
    };
  }
  const coverage = context.coverage ?? null;
  if (coverage !== null) {
    return {
      id,
      topic: "agent",
      rule,
      stated: true,
      text:
        `"${displayId(agent.agent_id)}": ${SCORE_WORDS.planned} ${
          percent(coverage.score_planned)
        } (a lower bound; ${integer(coverage.resolved)} of ${
          plural(coverage.planned, "planned task")
        }, a missing or invalid one counted as not resolved), ${SCORE_WORDS.scored} ${
          percent(agent.resolved_rate)
        } (${integer(agent.resolved)} of ${integer(agent.scored)}, ${ci}) and ` +
        `${SCORE_WORDS.completed} ${percent(row.score_completed_only)} (${
          integer(row.passed_completed)
        } of ${integer(row.completed)}); censoring ${percent(row.censoring_rate)}${
          row.claim === claim || judgeDriven || invalidDriven
            ? ""
            : ` and ${integer(coverage.missing)} of ${
              integer(coverage.planned)
            } planned tasks without a row (${percent(coverage.missing_rate)})`
        }, so both scores are stated, labelled${faultBound}${invalidBound}`,
    };
  }
  return {
    id,
    topic: "agent",
    rule,
    stated: true,
    text: `"${displayId(agent.agent_id)}": ${SCORE_WORDS.scored} ${
      percent(row.score_all_tasks)
    } (a lower bound, a censored episode counted as not resolved; ${integer(row.passed)} of ${
      plural(row.scored, "scored episode")
    }, ${ci}) and ${SCORE_WORDS.completed} ${percent(row.score_completed_only)} (${
      integer(row.passed_completed)
    } of ${integer(row.completed)}); censoring ${percent(row.censoring_rate)}${
      row.claim === claim || judgeDriven || invalidDriven
        ? ""
        : " and the share of planned tasks without a row (see coverage)"
    }, so both are stated, labelled${faultBound}${invalidBound}`,
  };
}

/**
 * An agent's coverage of the plan's or the task list's tasks (issue 11): planned
 * tasks, rows, missing tasks, and the score over every planned task (missing
 * and invalid count as not resolved: a lower bound, seed 003) beside the score
 * over scored rows, with the claim the missing rate allows.
 *
 * @param row the agent's coverage
 * @param assessment the assessment (its censoring rows and missing policy)
 * @returns the claim with id `coverage:<agent_id>`
 */
export function coverageClaim(row: AgentCoverage, assessment: ClaimAssessment): ReportClaim {
  const scored = assessment.censoring.agents.find((r) => r.agent_id === row.agent_id);
  // Issue 25 item 3: never "allows headline" alone beside an agent the report withholds.
  const standing = assessment.standings.find((s) => s.agent_id === row.agent_id);
  const overall = standing === undefined ||
      (standing.withheld === null && standing.claim === row.claim)
    ? ""
    : `; its claim over every rate: ${claimLabel(standing)}`;
  const missing = row.missing === 0
    ? "no task missing"
    : `${integer(row.missing)} missing (${percent(row.missing_rate)}${
      row.missing_tasks.length > 0 ? `: ${quotedList(row.missing_tasks)}` : ""
    }${row.missing > row.missing_tasks.length ? ", ..." : ""})`;
  const unplanned = row.unplanned_rows === 0
    ? ""
    : `; ${plural(row.unplanned_rows, "row")} for tasks outside the denominator`;
  return {
    id: `coverage:${row.agent_id}`,
    topic: "coverage",
    rule: `missing tasks, seed-003 policy "${row.claim}"`,
    stated: true,
    text: `"${displayId(row.agent_id)}": ${integer(row.planned)} planned, ${
      integer(row.rows)
    } rows, ${missing}${unplanned}; ${SCORE_WORDS.planned} ${
      percent(row.score_planned)
    } (a lower bound: ${integer(row.resolved)} of ${integer(row.planned)}), ${SCORE_WORDS.scored} ${
      percent(scored?.score_all_tasks)
    }; the missing rate ${overall === "" ? "" : "alone "}allows "${
      CLAIM_SHORT_WORDS[row.claim]
    }" (${policyText(assessment.missing_policy)})${overall}`,
  };
}

/**
 * The censoring claim of one agent, or of the whole run (`agent_id` `"*"`):
 * the rate, the censored episodes by stop reason, and the claim the policy
 * allows for that rate (seed 003's table); when the agent's standing (or
 * the pooled standing, which never exceeds the weakest agent's) says less,
 * that is said too, so the censoring section never grants what the summary
 * withholds (issue 23).
 *
 * @param row the censoring row
 * @param policy the thresholds and where they come from (`source`, e.g. "from the plan")
 * @param standing the agent's standing, or the pooled one for `"*"`
 * @returns the claim with id `censoring:<agent_id>`
 */
export function censoringClaim(
  row: CensoringRow,
  policy: CensoringPolicy & { source: string },
  standing: Pick<AgentStanding, "claim" | "withheld">,
): ReportClaim {
  const own = row.censoring_rate === null ? null : claimOfRate(row.censoring_rate, policy);
  const overall = standing.withheld === null && standing.claim === own
    ? ""
    : `; ${
      row.agent_id === "*"
        ? "pooled figures, never more than the weakest agent's"
        : "its claim over every rate"
    }: ${claimLabel(standing)}`;
  const source = policy.source;
  const who = row.agent_id === "*" ? "Whole run" : `"${displayId(row.agent_id)}"`;
  if (row.claim === null || row.censoring_rate === null) {
    return {
      id: `censoring:${row.agent_id}`,
      topic: "censoring",
      rule: "seed-003 policy",
      stated: true,
      text: `${who}: nothing scored, no censoring rate`,
    };
  }
  if (row.agent_id === "*") {
    return {
      id: "censoring:*",
      topic: "censoring",
      rule: `seed-003 policy "${own}"`,
      stated: true,
      text:
        `Whole run: censoring rate ${percent(row.censoring_rate)}: ${integer(row.censored)} of ${
          integer(row.scored)
        } scored episodes stopped before completing${censoredBreakdown(row)}; that is the ` +
        `policy's "${CLAIM_SHORT_WORDS[own!]}" band (${policyText(policy)}; ${source}), ` +
        `and each agent's claims follow its own rate${overall}`,
    };
  }
  return {
    id: `censoring:${row.agent_id}`,
    topic: "censoring",
    rule: `seed-003 policy "${row.claim}"`,
    stated: true,
    text: `${who}: censoring rate ${percent(row.censoring_rate)}: ${integer(row.censored)} of ${
      integer(row.scored)
    } scored episodes stopped before completing${censoredBreakdown(row)}; ${
      standing.withheld === null
        ? CLAIM_WORDS[row.claim]
        : `the censoring rate alone allows "${CLAIM_SHORT_WORDS[row.claim]}"`
    }${overall}`,
  };
}

/**
 * An agent's invalid attempts by reason (seeds 000 and 002: counted, never
 * scored) and the claim their rate allows (issue 23, `invalidSummary`).
 *
 * @param row the agent's invalid tally
 * @param policy the thresholds the rate was held to
 * @param standing the agent's standing: when it says less than the invalid
 *   rate allows, that is said too (as the censoring and coverage claims do)
 * @returns the claim with id `invalid:<agent_id>`
 */
export function invalidClaim(
  row: InvalidRow,
  policy: CensoringPolicy,
  standing?: Pick<AgentStanding, "claim" | "withheld">,
): ReportClaim {
  // Issue 25 item 3: never "allows headline" alone beside an agent whose claim is less.
  const overall = standing === undefined ||
      (standing.withheld === null && standing.claim === row.claim)
    ? ""
    : `; its claim over every rate: ${claimLabel(standing)}`;
  const band = row.claim === null
    ? ""
    : `; the invalid rate ${overall === "" ? "" : "alone "}allows "${
      CLAIM_SHORT_WORDS[row.claim]
    }" (${policyText(policy)})${overall}`;
  const text = row.invalid === 0
    ? `"${displayId(row.agent_id)}": no invalid attempt (0 of ${integer(row.attempts)})${band}`
    : `"${displayId(row.agent_id)}": ${integer(row.invalid)} of ${
      integer(row.attempts)
    } attempts invalid (${percent(row.invalid_rate)}: ${
      invalidReasonsText(row.reasons)
    }); invalid attempts are neither passes nor failures and are left ` +
      `out of every score${band}`;
  return {
    id: `invalid:${row.agent_id}`,
    topic: "invalid",
    rule: row.claim === null
      ? "seeds 000 and 002: invalid is not scored"
      : `invalid attempts, seed-003 policy "${row.claim}"`,
    stated: true,
    text,
  };
}

function relative(d: number | null): string {
  return d === null ? "infinitely" : percent(d);
}

function pairSentence(c: Comparison): string {
  const pair = `${displayId(c.a.agent_id)} vs ${displayId(c.b.agent_id)}`;
  const band = formatPercentExact(c.band);
  const winner = displayId(c.winner ?? "");
  switch (c.rule) {
    case "no_resolved":
      return `${pair}: ${quotedList(c.failed)} resolved nothing: no tokens per resolved, so ` +
        "no ranking; the failure is reported";
    case "rate_interval":
      return `${pair}: the 95% intervals ${percentInterval(c.a.interval)} and ${
        percentInterval(c.b.interval)
      } are separated: "${winner}" has the higher resolved rate`;
    case "tpr":
      return `${pair}: the 95% intervals overlap, so there is no rate winner; tokens per ` +
        `resolved ${integer(c.a.tpr)} vs ${integer(c.b.tpr)} differ by ${
          relative(c.tpr_relative_difference)
        }, more than the ${band} band: "${winner}" wins on tokens per resolved`;
    case "spr":
      return `${pair}: the 95% intervals overlap, so there is no rate winner; ${
        c.tie_breaks_not_recorded.includes("tpr")
          ? `tokens per resolved ${notRecordedFor(c, "tpr")}, so that tie-break cannot be used`
          : `tokens per resolved are within ${band} (${relative(c.tpr_relative_difference)})`
      }; seconds per resolved ${c.a.spr!.toFixed(1)} vs ${c.b.spr!.toFixed(1)} differ by ${
        relative(c.spr_relative_difference)
      }: "${winner}" wins on seconds per resolved`;
    case "tie":
      if (c.tie_breaks_not_recorded.length > 0) {
        const parts = (["tpr", "spr"] as const).map((field) =>
          c.tie_breaks_not_recorded.includes(field)
            ? `${TIE_BREAK_WORDS[field]} ${notRecordedFor(c, field)}`
            : `${TIE_BREAK_WORDS[field]} within ${band} (${
              relative(c[`${field}_relative_difference`])
            })`
        );
        return `${pair}: the 95% intervals overlap, so there is no rate winner; ${
          parts.join("; ")
        }: no tie-break decides, no winner`;
      }
      return `${pair}: the 95% intervals overlap, so there is no rate winner; tokens per ` +
        `resolved (${relative(c.tpr_relative_difference)}) and seconds per resolved (${
          relative(c.spr_relative_difference)
        }) are both within ${band}: a tie`;
  }
}

const TIE_BREAK_WORDS = { tpr: "tokens per resolved", spr: "seconds per resolved" } as const;

/** What a pair's claim needs besides the comparison. */
export interface ComparisonClaimContext {
  /** Why each agent's numbers may not be stated, or null. */
  withheld: ReadonlyMap<string, Withheld | null>;
  /** Agents in the "both scores, labelled" band (their rates are lower bounds). */
  labelled: ReadonlySet<string>;
}

/**
 * A pair's verdict under seed 001's rule, in words naming the step that
 * fired; null when either agent's numbers may not be stated (the withheld
 * pairs are stated grouped by cause, `withheldPairGroups`, issue 11).
 *
 * @param c the comparison
 * @param context withholding reasons and labelled agents
 * @returns the claim with id `pair:<a>:<b>`, or null
 */
export function comparisonClaim(
  c: Comparison,
  context: ComparisonClaimContext,
): ReportClaim | null {
  const { withheld, labelled } = context;
  const agents = [c.a.agent_id, c.b.agent_id];
  if (agents.some((agent) => (withheld.get(agent) ?? null) !== null)) return null;
  const lower = agents.some((agent) => labelled.has(agent))
    ? ` (rates: the ${SCORE_WORDS.scored}; a labelled agent's scores are in its claim)`
    : "";
  return {
    id: `pair:${c.a.agent_id}:${c.b.agent_id}`,
    topic: "comparison",
    rule: `seed-001 rule "${c.rule}"`,
    stated: true,
    text: pairSentence(c) + lower,
  };
}

/** What an SPRT claim needs besides the agent's replay. */
export interface SprtClaimContext {
  boundaries: SprtBoundaries;
  params: SprtParams;
  /** Why the agent's numbers may not be stated, or null. */
  withheld: Withheld | null;
}

/**
 * An agent's SPRT decision (seed 002): adopt or drop at a boundary, the cap's
 * point-estimate fallback, or no decision yet; withheld like the agent's rate.
 *
 * @param agent the agent's replay
 * @param context boundaries, parameters and withholding reason
 * @returns the claim with id `sprt:<agent_id>`
 */
export function sprtClaim(agent: SprtAgentResult, context: SprtClaimContext): ReportClaim {
  const { boundaries, params, withheld } = context;
  const id = `sprt:${agent.agent_id}`;
  const rule = `seed-002 SPRT "${agent.verdict}"`;
  if (withheld !== null) {
    return {
      id,
      topic: "sprt",
      rule: withheld.rule,
      stated: false,
      text: `"${displayId(agent.agent_id)}": SPRT decision not stated: ${withheld.reason}`,
    };
  }
  const at = `after ${plural(agent.n, "valid result")} (${plural(agent.attempts, "attempt")}, ${
    integer(agent.invalid_count)
  } invalid${agent.invalid_rate === null ? "" : `, ${percent(agent.invalid_rate)}`})`;
  const llr = agent.llr.toFixed(3);
  let text: string;
  switch (agent.verdict) {
    case "adopt":
      text = `adopt ${at}: LLR ${llr} reached the adopt boundary ${boundaries.upper.toFixed(3)}`;
      break;
    case "drop":
      text = `drop ${at}: LLR ${llr} reached the drop boundary ${boundaries.lower.toFixed(3)}`;
      break;
    case "cap-adopt":
    case "cap-drop":
      text = `${agent.verdict} ${at}: the cap of ${params.n_cap} valid results was reached ` +
        `undecided and the point estimate ${agent.passes}/${agent.n} ${
          agent.verdict === "cap-adopt" ? "≥" : "<"
        } p_adopt ${params.p_adopt} decided`;
      break;
    case "continue":
      text = `no decision: the ledger ends ${at} before either boundary or the cap of ` +
        `${params.n_cap}`;
      break;
  }
  return { id, topic: "sprt", rule, stated: true, text: `"${displayId(agent.agent_id)}": ${text}` };
}
