/**
 * How the rows were verified (issue 22): how many record a verification and
 * in which mode. A row verified in Harbor's `shared` mode had its verifier
 * run in the candidate's own container, where what the candidate left (a
 * `conftest.py`, a `.pth` file, a replaced `pytest`) runs with the tests: its
 * verdict is not sealed, and every command that summarizes such rows says so.
 *
 * @module
 */
import type { Episode, VerifierMode } from "./schema/records.ts";

/** The rows counted by the mode their verification records. */
export interface VerificationModes {
  /** Every row counted. */
  rows: number;
  /** Rows with a `verification` record (the others predate it, or the verifier never ran). */
  recorded: number;
  /** Rows per recorded mode, every mode present (zero included), in schema order. */
  by_mode: Record<VerifierMode, number>;
}

/**
 * Counts the rows by their `verification.mode` (absent: not recorded). One
 * pass, O(rows).
 *
 * @param rows ledger rows
 * @returns the counts
 * @example
 * ```ts
 * import { verificationModes } from "./verification_modes.ts";
 * const rows = [{ verification: { mode: "shared" } }, { verification: { mode: "sealed" } }, {}];
 * const counts = verificationModes(rows as never);
 * if (counts.recorded !== 2 || counts.by_mode.shared !== 1) throw new Error();
 * ```
 */
export function verificationModes(
  rows: Iterable<Pick<Episode, "verification">> & { readonly length: number },
): VerificationModes {
  const byMode: Record<VerifierMode, number> = { sealed: 0, shared: 0, separate: 0 };
  let recorded = 0;
  for (const row of rows) {
    if (row.verification === undefined) continue;
    recorded++;
    byMode[row.verification.mode]++;
  }
  return { rows: rows.length, recorded, by_mode: byMode };
}

/**
 * The sentence for rows verified in the shared mode, or null when there is
 * none: `12 of 40 rows were verified in Harbor's shared mode: the verifier
 * ran in the candidate's own container, so these verdicts are not sealed`.
 *
 * Rule: issue 22 (seed 000: nothing the candidate wrote may reach the
 * verdict; the shared mode cannot promise it, so the count is always stated).
 *
 * @param counts {@link verificationModes} of the rows summarized
 * @returns one sentence without a final period, or null
 * @example
 * ```ts
 * import { sharedModeNote } from "./verification_modes.ts";
 * const note = sharedModeNote({ rows: 40, recorded: 40, by_mode: { sealed: 28, shared: 12, separate: 0 } });
 * if (!note?.startsWith("12 of 40 rows were verified in Harbor's shared mode")) throw new Error();
 * ```
 */
export function sharedModeNote(counts: VerificationModes): string | null {
  const shared = counts.by_mode.shared;
  if (shared === 0) return null;
  const one = shared === 1;
  return `${shared} of ${counts.rows} ${counts.rows === 1 ? "row" : "rows"} ${
    one ? "was" : "were"
  } verified in Harbor's shared mode: the verifier ran in the candidate's own container, so ${
    one ? "this verdict is" : "these verdicts are"
  } not sealed`;
}
