/**
 * Rows whose spend evidence cannot be right (issue 8: a Codex CLI on the
 * Responses API, which the relay did not meter, "resolved" tasks with zero
 * model calls and zero tokens, and an errata re-score then made it win on
 * tokens per resolved with TPR 0).
 *
 * @module
 */
import { episodeTokens } from "./classify_episode.ts";
import type { Episode } from "./schema/records.ts";

/** One flag on one row. */
export interface SpendFlag {
  /**
   * `resolved_without_spend`: a resolved row with zero model calls or zero
   * tokens: no agent solves a task without spending on a model, so the spend
   * was not metered. `unmetered_requests`: the relay refused requests it
   * cannot meter (recorded in `evidence.unmetered_requests`).
   * `spend_unknown` (issue 21): calls whose usage never arrived though the
   * provider may have billed them (`evidence.spend_unknown_calls`): the
   * row's tokens are a lower bound. `provider_features`: calls used provider
   * features the plan allowed (`evidence.provider_features`), whose work is
   * outside the token count. `prompt_bound_exceeded`: servers reported more
   * prompt tokens than the relay's bounds of them
   * (`evidence.prompt_bound_excess`), by which the row may pass its cap.
   */
  code:
    | "resolved_without_spend"
    | "unmetered_requests"
    | "spend_unknown"
    | "provider_features"
    | "prompt_bound_exceeded";
  /** The row's field at fault, dotted. */
  field: string;
  message: string;
}

/**
 * The spend-evidence flags of one row: `resolved_without_spend` when a
 * scored row is resolved with `model_calls` 0 or no prompt and completion
 * tokens (`model_calls` null, i.e. not recorded, is judged by its tokens
 * alone), `unmetered_requests` when `evidence.unmetered_requests` is above 0,
 * `spend_unknown` when `evidence.spend_unknown_calls` is, `provider_features`
 * when `evidence.provider_features` names any, `prompt_bound_exceeded` when
 * `evidence.prompt_bound_excess` is above 0. Invalid rows are never
 * resolved, so the first cannot apply to them.
 * O(1).
 *
 * @param row a ledger row (after errata, when the caller applies them)
 * @returns the flags, in the order above; empty when the row is plausible
 * @example
 * ```ts
 * import { Episode } from "./schema/records.ts";
 * import { spendEvidenceFlags } from "./spend_evidence.ts";
 * const row = Episode.parse({
 *   run_id: "r", agent_id: "codex", task_id: "t", seed: 1, resolved: true,
 *   prompt_tokens: 0, completion_tokens: 0, tool_calls: 0, wall_ms: 10,
 *   price_table_id: "p", notes: "", model_calls: 0,
 * });
 * if (spendEvidenceFlags(row)[0]?.code !== "resolved_without_spend") throw new Error();
 * ```
 */
export function spendEvidenceFlags(row: Episode): SpendFlag[] {
  const flags: SpendFlag[] = [];
  const tokens = episodeTokens(row);
  if (row.status === "scored" && row.resolved && (row.model_calls === 0 || tokens === 0)) {
    flags.push({
      code: "resolved_without_spend",
      field: row.model_calls === 0 ? "model_calls" : "prompt_tokens",
      message:
        `resolved with ${row.model_calls ?? "unrecorded"} model calls and ${
          tokens ?? "unrecorded"
        } ` +
        "tokens: a solved task the relay saw no spend on",
    });
  }
  const unmetered = row.evidence?.unmetered_requests ?? 0;
  if (unmetered > 0) {
    flags.push({
      code: "unmetered_requests",
      field: "evidence.unmetered_requests",
      message: `the relay refused ${unmetered} request(s) it cannot meter`,
    });
  }
  const unknown = row.evidence?.spend_unknown_calls ?? 0;
  if (unknown > 0) {
    flags.push({
      code: "spend_unknown",
      field: "evidence.spend_unknown_calls",
      message: `${unknown} call(s) whose usage never arrived: the row's tokens are a lower bound`,
    });
  }
  const features = row.evidence?.provider_features ?? [];
  if (features.length > 0) {
    flags.push({
      code: "provider_features",
      field: "evidence.provider_features",
      message: `calls used provider features the plan allowed (${
        features.map((feature) => JSON.stringify(feature)).join(", ")
      }), whose work is outside the token count`,
    });
  }
  const excess = row.evidence?.prompt_bound_excess ?? 0;
  if (excess > 0) {
    flags.push({
      code: "prompt_bound_exceeded",
      field: "evidence.prompt_bound_excess",
      message: `servers reported ${excess} prompt tokens beyond the relay's bounds of them`,
    });
  }
  return flags;
}
