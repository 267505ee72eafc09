/**
 * Errata: an append-only JSONL file of corrections applied on top of a
 * ledger, which itself is never rewritten (seed 000: the 89-point run was
 * re-verified with zero model calls, the original summary kept and marked
 * void in errata).
 *
 * @module
 */
import type { z } from "zod";
import { canonicalJsonLine } from "./canonical_json.ts";
import { LedgerError, type LedgerProblem } from "./ledger_error.ts";
import { type Episode, type EpisodeStatus, Erratum, type InvalidReason } from "./schema/records.ts";
import { type EpisodeRows, replacedRows } from "./episode_table.ts";

/** Options for {@link applyErrata} (and the errata reader, inputs/errata.ts). */
export interface ErrataOptions {
  /** Collect every problem instead of throwing at the first. */
  lenient?: boolean;
}

/** One erratum and the line it was read from. */
export interface ErratumEntry {
  /** 1-based line in the errata file. */
  line: number;
  erratum: Erratum;
}

/** An errata file read in full. */
export interface ErrataFile {
  file: string;
  /** SHA-256 (hex) of the file's bytes, for outputs to record. */
  sha256: string;
  /** Lines in the file. */
  lines: number;
  /** Valid errata in file order. */
  entries: ErratumEntry[];
  /** Every problem found (empty unless `lenient`). */
  problems: LedgerProblem[];
}

/**
 * The one line an erratum is stored as: the schema-parsed record (defaults
 * filled in) as canonical JSON on a single line ({@link canonicalJsonLine}:
 * keys sorted, no whitespace, no trailing newline), the form the ledger's rows
 * take too. Used by the errata writer and the example generator, so the same
 * erratum always has the same bytes.
 *
 * @param erratum a record to store (fields with a default may be omitted)
 * @returns single-line JSON with sorted keys
 * @throws {z.ZodError} when the record does not fit the {@link Erratum} schema
 * @example
 * ```ts
 * import { erratumLine } from "./errata.ts";
 * const line = erratumLine({
 *   kind: "void_summary", erratum_id: "e1", created_at: "2026-09-04T00:00:00Z",
 *   summary_sha256: "0".repeat(64), explanation: "verifier fault",
 * });
 * if (!line.startsWith('{"created_at":"2026-09-04T00:00:00Z","erratum_id":"e1"')) throw new Error(line);
 * ```
 */
export function erratumLine(erratum: z.input<typeof Erratum>): string {
  return canonicalJsonLine(Erratum.parse(erratum));
}

/**
 * What an erratum corrects: `episode <episode_id>` for the episode kinds
 * (an invalidation and a rescore of one episode share it), `summary
 * <summary_sha256>` for a voided summary.
 */
function correctionTarget(erratum: Erratum): string {
  return erratum.kind === "void_summary"
    ? `summary ${erratum.summary_sha256}`
    : `episode ${erratum.episode_id}`;
}

/**
 * The correction an erratum makes, as a comparable text: every field but
 * its `erratum_id`, `created_at` and `explanation` (who wrote it, when and
 * in which words does not change what it does), as canonical JSON.
 */
function correctionOf(erratum: Erratum): string {
  const { erratum_id: _id, created_at: _at, explanation: _why, ...change } = erratum;
  return canonicalJsonLine(change);
}

/**
 * Finds the erratum `entry` repeats, and records `entry` as the latest on
 * its target. The errata reader (inputs/errata.ts) and the errata writer
 * (runner/errata_file.ts) both refuse a repeat through it.
 *
 * Rule: an erratum repeats the one before it on the same target (the same
 * episode, or the same summary) when both make the same correction: the
 * same kind and the same fields, whatever their `erratum_id`, `created_at`
 * and `explanation` (an invalidation: its `invalid_reason`; a rescore: its
 * `resolved`, `verifier_image_digest` and `artifact_digest`; a voided
 * summary: nothing more). Applied in file order, the repeat would change
 * nothing (seed 000: a correction is recorded once, and the errata stay a
 * list of corrections, not of attempts to make them). An erratum that
 * restores an earlier state after a different one on the same target
 * (invalidate, rescore, invalidate again) is no repeat. O(1) per erratum
 * (O(erratum size) for its text).
 *
 * @param latest the latest erratum on each target so far (updated)
 * @param entry the next erratum and its line
 * @returns the entry it repeats, or null
 * @example
 * ```ts
 * import { repeatedCorrection } from "./errata.ts";
 * const erratum = {
 *   schema_version: 1, kind: "void_summary", erratum_id: "e1", created_at: "2026-09-04T00:00:00Z",
 *   summary_sha256: "0".repeat(64), explanation: "verifier fault",
 * } as const;
 * const latest = new Map();
 * if (repeatedCorrection(latest, { line: 1, erratum }) !== null) throw new Error();
 * const again = { line: 2, erratum: { ...erratum, erratum_id: "e2" } };
 * if (repeatedCorrection(latest, again)?.line !== 1) throw new Error();
 * ```
 */
export function repeatedCorrection(
  latest: Map<string, { entry: ErratumEntry; correction: string }>,
  entry: ErratumEntry,
): ErratumEntry | null {
  const target = correctionTarget(entry.erratum);
  const correction = correctionOf(entry.erratum);
  const previous = latest.get(target);
  if (previous !== undefined && previous.correction === correction) return previous.entry;
  latest.set(target, { entry, correction });
  return null;
}

/**
 * How a repeated erratum is worded, by the reader and the writer alike:
 * what it repeats, on which line.
 *
 * @param erratum the repeat
 * @param first the erratum it repeats
 * @returns the message, naming the first one's line and id
 */
export function repeatedCorrectionMessage(erratum: Erratum, first: ErratumEntry): string {
  const target = erratum.kind === "void_summary"
    ? `summary ${erratum.summary_sha256}`
    : `episode "${erratum.episode_id}"`;
  return `erratum "${erratum.erratum_id}" repeats the correction on line ${first.line} ` +
    `(erratum "${first.erratum.erratum_id}"): the same ${erratum.kind} of ${target} again, ` +
    "which would change nothing";
}

/** The verdict-bearing fields of a row, before or after an erratum. */
export interface EpisodeVerdictState {
  status: EpisodeStatus;
  resolved: boolean | null;
  invalid_reason: InvalidReason | null;
}

/** What one episode erratum changed. */
export interface AppliedErratum {
  erratum_id: string;
  kind: "invalidate_episode" | "rescore_episode";
  /** Line of the erratum in the errata file. */
  line: number;
  episode_id: string;
  before: EpisodeVerdictState;
  after: EpisodeVerdictState;
}

/** The ledger rows as corrected, and an account of every correction. */
export interface ErrataApplication {
  /** The errata file applied and its SHA-256 (outputs record both). */
  errata_file: string;
  errata_sha256: string;
  /** Rows in ledger order; corrected rows are new objects, the others the input's rows. */
  rows: EpisodeRows;
  /** One entry per episode erratum, in errata file order. */
  applied: AppliedErratum[];
  /** SHA-256 of every voided summary, in errata order, without repeats. */
  voided_summaries: string[];
  /** Errata that could not apply (empty unless `lenient`). */
  problems: LedgerProblem[];
}

function stateOf(row: EpisodeVerdictState): EpisodeVerdictState {
  return { status: row.status, resolved: row.resolved, invalid_reason: row.invalid_reason };
}

/**
 * Applies errata on top of ledger rows without touching the ledger or the
 * input rows (seed 000: "已经公开的旧结果不改写，发现错误就另存勘误").
 *
 * Rules, applied in errata file order (several errata may touch one episode;
 * each sees the state the previous ones left):
 *
 * - `invalidate_episode`: status `invalid`, resolved null, `invalid_reason`
 *   from the erratum.
 * - `rescore_episode` with `resolved` true/false: a re-verification of the
 *   stored artifact with zero model calls; status `scored`, the new verdict,
 *   `invalid_reason` null. With `resolved` null the verifier failed again:
 *   status `invalid`, `invalid_reason` `"verifier_fault"`. A rescore only
 *   repairs a verdict, so it cannot apply to a row invalid for any reason
 *   other than `verifier_fault` (missing evidence or a tampered workspace are
 *   not cured by re-verifying): code `erratum_conflict`.
 * - `void_summary`: its `summary_sha256` joins `voided_summaries`.
 *
 * An erratum naming an `episode_id` absent from `rows` is an error with code
 * `unknown_episode` naming the errata file, line and field `episode_id`.
 * Cost: O(rows + errata).
 *
 * @param rows the ledger rows (not modified)
 * @param errata an errata file (`loadErrata` in inputs/errata.ts reads one)
 * @param options `lenient` lists errata that cannot apply instead of throwing
 * @returns corrected rows, what changed, and the voided summaries
 * @throws {LedgerError} code `unknown_episode` or `erratum_conflict` unless `lenient`
 */
export function applyErrata(
  rows: EpisodeRows,
  errata: ErrataFile,
  options: ErrataOptions = {},
): ErrataApplication {
  // The positions of the rows the errata name, in one pass: O(errata) memory, not O(rows).
  const index = new Map<string, number>();
  const named = new Set<string>();
  for (const { erratum } of errata.entries) {
    if (erratum.kind !== "void_summary") named.add(erratum.episode_id);
  }
  const corrected = new Map<number, Episode>();
  let at = 0;
  for (const row of named.size === 0 ? [] : rows) {
    if (named.has(row.episode_id)) {
      index.set(row.episode_id, at);
      corrected.set(at, row);
    }
    at++;
  }
  const applied: AppliedErratum[] = [];
  const voided = new Set<string>();
  const problems: LedgerProblem[] = [];
  const report = (problem: LedgerProblem) => {
    if (!options.lenient) throw new LedgerError([problem]);
    problems.push(problem);
  };
  for (const { line, erratum } of errata.entries) {
    if (erratum.kind === "void_summary") {
      voided.add(erratum.summary_sha256);
      continue;
    }
    const at = index.get(erratum.episode_id);
    if (at === undefined) {
      report({
        code: "unknown_episode",
        file: errata.file,
        line,
        field: "episode_id",
        message:
          `erratum "${erratum.erratum_id}" names episode "${erratum.episode_id}", which is not in the ledger`,
      });
      continue;
    }
    const row = corrected.get(at)!;
    const before = stateOf(row);
    let after: EpisodeVerdictState;
    if (erratum.kind === "invalidate_episode") {
      after = { status: "invalid", resolved: null, invalid_reason: erratum.invalid_reason };
    } else {
      if (row.status === "invalid" && row.invalid_reason !== "verifier_fault") {
        report({
          code: "erratum_conflict",
          file: errata.file,
          line,
          field: "episode_id",
          message: `erratum "${erratum.erratum_id}" rescores episode "${erratum.episode_id}", ` +
            `which is invalid for "${row.invalid_reason}"; only a "verifier_fault" can be rescored`,
        });
        continue;
      }
      after = erratum.resolved === null
        ? { status: "invalid", resolved: null, invalid_reason: "verifier_fault" }
        : { status: "scored", resolved: erratum.resolved, invalid_reason: null };
    }
    corrected.set(at, { ...row, ...after });
    applied.push({
      erratum_id: erratum.erratum_id,
      kind: erratum.kind,
      line,
      episode_id: erratum.episode_id,
      before,
      after,
    });
  }
  return {
    errata_file: errata.file,
    errata_sha256: errata.sha256,
    rows: replacedRows(rows, corrected),
    applied,
    voided_summaries: [...voided],
    problems,
  };
}
