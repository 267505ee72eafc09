/**
 * Where a suite's checks live and what the newest one says (issue 12):
 * `<suite>.check/<time>/check.json`, written by `suite check`
 * (suite_check.ts) and read by `freeze`, which refuses a suite whose newest
 * check failed or is older than the suite's hash unless overridden. Only
 * the file system is touched here (no engine), so `freeze` stays light.
 *
 * @module
 */
import { sha256Hex } from "../analysis/sha256_hex.ts";
import type { Suite } from "../analysis/schema/suite_manifest.ts";
import { newestResults } from "./newest_results.ts";
import type { RepeatedCheck } from "../analysis/verifier_flips.ts";

/** The summary file of one check, inside its directory. */
export const CHECK_SUMMARY = "check.json";

/** One program's episode at one task, as the check saw it. */
export interface CheckEpisode {
  status: "scored" | "invalid" | "missing";
  resolved: boolean | null;
  invalid_reason: string | null;
  notes: string | null;
}

/** One task's check. */
export interface TaskCheck {
  task_id: string;
  oracle: CheckEpisode;
  no_change: CheckEpisode;
  passed: boolean;
  /** Why it failed, one sentence each (empty when passed). */
  problems: string[];
  /** With `suite check --repeat N` (N > 1): every run's verdicts and the flip rate. */
  repeats?: RepeatedCheck;
}

/** The summary written as `check.json`. */
export interface SuiteCheckSummary {
  schema_version: 1;
  suite_id: string;
  suite_sha256: string;
  checked_at: string;
  passed: boolean;
  /** Per task; its plan and ledger are in `tasks/<task_id>/` beside this file. */
  tasks: TaskCheck[];
}

/**
 * The directory every check of `suiteDir` goes to: beside the suite, never in it.
 *
 * @param suiteDir the suite directory (absolute, as `loadSuite` gives it)
 * @returns `<suiteDir>.check`
 */
export function checksDir(suiteDir: string): string {
  return `${suiteDir.replace(/\/+$/, "")}.check`;
}

/** The state of a suite's last check, as `freeze` records it. */
export type SuiteCheckState =
  | { state: "passed"; summary_sha256: string; checked_at: string }
  | { state: "not_run" }
  | { state: "stale"; checked_at: string; dir: string }
  | {
    state: "failed";
    checked_at: string;
    dir: string;
    summary: SuiteCheckSummary;
    summary_sha256: string;
  };

/**
 * The state of the suite's newest check (by the time in its directory's
 * name): `passed` when it passed on the suite as it hashes now, `stale` when
 * the suite changed since (its hash differs), `failed` otherwise (with the
 * summary, so that `freeze --accept-flaky` can read which tasks flipped),
 * `not_run` when there is none.
 *
 * @param suite the loaded suite
 * @returns the state
 * @throws {Error} when the newest summary cannot be read as JSON
 */
export async function suiteCheckState(suite: Suite): Promise<SuiteCheckState> {
  for await (const { dir, text } of newestResults(checksDir(suite.dir), CHECK_SUMMARY)) {
    const summary = JSON.parse(text) as SuiteCheckSummary;
    if (summary.suite_sha256 !== suite.sha256) {
      return { state: "stale", checked_at: summary.checked_at, dir };
    }
    if (!summary.passed) {
      return {
        state: "failed",
        checked_at: summary.checked_at,
        dir,
        summary,
        summary_sha256: sha256Hex(text),
      };
    }
    return { state: "passed", summary_sha256: sha256Hex(text), checked_at: summary.checked_at };
  }
  return { state: "not_run" };
}
