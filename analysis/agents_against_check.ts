/**
 * What `freeze --agent-check FILE` says about a plan's agents given the
 * result of `ledgerbench agent check` (issue 21): a refusal when an agent
 * of the plan failed the check or is missing from it, and warnings when the
 * plan's token cap is below what an agent's first call is known to request.
 *
 * @module
 */
import { canonicalJsonLine } from "./canonical_json.ts";
import type { AgentCheck, AgentCheckAgent, PlannedAgent } from "./schema/records.ts";
import { displayId, lineText } from "./untrusted_text.ts";

/** The plan's side of the comparison. */
export interface AgentsAgainstCheckOptions {
  /**
   * The smallest token cap an episode of the plan runs under (the plan's
   * cap, else the smallest of the tasks' own); null: no token cap.
   */
  tokenCap: number | null;
  /** The plan's output policy (`model_limits.max_output_tokens`); null: none. */
  maxOutputTokens: number | null;
  /** The check's file, as named in the messages. */
  file: string;
}

/** The refusal (null: none) and the warnings, each one line without the `warning: ` prefix. */
export interface AgentsAgainstCheck {
  refused: string | null;
  warnings: string[];
}

/**
 * Holds the plan's agents to an agent check.
 *
 * Rules, per agent of the plan, matched by agent id and image digest:
 * - no entry: refused ("not in the agent check");
 * - an entry whose verdict is `refused`: refused, naming its reason;
 * - an entry whose model, env or command differ from the plan's: a warning
 *   (the check ran another configuration of the same image);
 * - with a token cap `T`, the first call's prompt bound `p` and the output
 *   cap `w` it asked for (after the plan's output policy `m`: `min(w, m)`,
 *   or `m` when it asked for none): when `T < p + 1`, a warning that the
 *   relay will refuse every call (not one output token is left after the
 *   prompt's bound: `token_budget.ts`); else when `w` is known and
 *   `T < p + w`, a warning that the relay will lower its output cap to at
 *   most `T - p`. The bound is of the check's short prompt, so a task's
 *   longer prompt only makes both more likely.
 *
 * The first refusal found (in plan order) is returned; warnings for every
 * agent. O(agents × checked agents).
 *
 * @param agents the plan's agents (resolved digests)
 * @param check the agent check result
 * @param options the plan's token cap and output policy, the file's name
 * @returns the refusal and the warnings
 * @example
 * ```ts
 * import { agentsAgainstCheck } from "./agents_against_check.ts";
 * const digest = `sha256:${"a".repeat(64)}`;
 * const said = agentsAgainstCheck([{ agent_id: "x", image_digest: digest, model: null }], {
 *   schema_version: 1, checked_at: "2026-01-01T00:00:00Z", runner_version: "v", token_cap: 1e9,
 *   passed: true,
 *   agents: [{
 *     agent_id: "x", image: "i", image_digest: digest, model: null, upstream_kind: "openai",
 *     verdict: "ok", reason: null, model_calls: 1,
 *     first_call: { index: 1, endpoint: "/v1/messages", prompt_bound: 900, output_cap: 32000,
 *       requested_output_cap: 32000, cap_lowered: false },
 *     refused_calls: [], denied_requests: [], episode: null,
 *   }],
 * }, { tokenCap: 20000, maxOutputTokens: null, file: "check.json" });
 * if (said.refused !== null || said.warnings.length !== 1) throw new Error("one warning expected");
 * ```
 */
export function agentsAgainstCheck(
  agents: readonly Pick<PlannedAgent, "agent_id" | "image_digest" | "model" | "env" | "command">[],
  check: AgentCheck,
  options: AgentsAgainstCheckOptions,
): AgentsAgainstCheck {
  let refused: string | null = null;
  const warnings: string[] = [];
  for (const agent of agents) {
    const id = displayId(agent.agent_id);
    const entry = check.agents.find((checked) =>
      checked.agent_id === agent.agent_id && checked.image_digest === agent.image_digest
    );
    if (entry === undefined) {
      refused ??= `Cannot freeze plan: agent "${id}" with image ${agent.image_digest} is not in ` +
        `the agent check "${options.file}" (run "ledgerbench agent check" for it)`;
      continue;
    }
    if (entry.verdict !== "ok") {
      refused ??= `Cannot freeze plan: agent "${id}" failed the agent check "${options.file}": ` +
        `${entry.reason ?? "refused"}; ${whatToFix(entry)}`;
      continue;
    }
    const differs = configurationDifferences(agent, entry);
    if (differs.length > 0) {
      warnings.push(
        `agent "${id}" was checked with another ${differs.join(", ")} than the plan's ` +
          `("${options.file}"): the check may not hold for this configuration`,
      );
    }
    const warning = capWarning(id, entry, options);
    if (warning !== null) warnings.push(warning);
  }
  return { refused, warnings };
}

/**
 * What refused an agent in its check, and the option or recipe line that
 * fixes it, in one clause.
 *
 * Rule, from the first refused model call: `provider_feature`, the relay's
 * words, which name the `freeze --allow-provider-feature` that allows it;
 * `unsupported` of an API another upstream kind serves (`/v1/messages`:
 * `anthropic`; Gemini's `:generateContent`: `gemini`; else `openai`), the
 * `--upstream-kind ID=KIND` to give; `model_not_allowed`, the `--model ID=`
 * to give; any other refusal, the relay's words. With no refused model call,
 * the first request outside the relay's surface (the agent was not pointed
 * at the relay's model APIs: its recipe, docs/agents.md); with neither, the
 * episode's notes.
 *
 * @param entry a refused agent's check result
 * @returns the clause
 * @example
 * ```ts
 * import { whatToFix } from "./agents_against_check.ts";
 * const clause = whatToFix({
 *   agent_id: "claude", image: "i", image_digest: `sha256:${"a".repeat(64)}`, model: null,
 *   upstream_kind: "openai", verdict: "refused", reason: "no metered model call", model_calls: 0,
 *   first_call: null, denied_requests: [], episode: null,
 *   refused_calls: [{ index: 1, endpoint: "/v1/messages", refusal: "unsupported", status: 404,
 *     detail: "Not served by this relay" }],
 * });
 * if (!clause.endsWith("give its upstream kind: --upstream-kind claude=anthropic")) throw new Error(clause);
 * ```
 */
export function whatToFix(entry: AgentCheckAgent): string {
  const id = displayId(entry.agent_id);
  const call = entry.refused_calls[0];
  if (call !== undefined) {
    const what = `call #${call.index} POST ${lineText(call.endpoint)} refused ${call.refusal}`;
    switch (call.refusal) {
      case "unsupported": {
        const kind = call.endpoint.startsWith("/v1/messages")
          ? "anthropic"
          : /:(stream)?[gG]enerateContent$/.test(call.endpoint)
          ? "gemini"
          : "openai";
        return kind === entry.upstream_kind
          ? `${what}: ${lineText(call.detail)}`
          : `${what}: give its upstream kind: --upstream-kind ${id}=${kind}`;
      }
      case "model_not_allowed":
        return `${what}: ${lineText(call.detail)}; name its model: --model ${id}=MODEL`;
      default:
        return `${what}: ${lineText(call.detail)}`;
    }
  }
  const denied = entry.denied_requests[0];
  if (denied !== undefined) {
    return `its first request went outside the relay's model APIs (${lineText(denied.method)} ` +
      `${lineText(denied.target)}: ${denied.status}): point it at the relay's base URL as its ` +
      "recipe does (docs/agents.md)";
  }
  return `no model call was made (episode: ${lineText(entry.episode?.notes ?? "no row")})`;
}

/** The configuration fields (model, env, command) in which the plan's agent and the checked one differ. */
function configurationDifferences(
  agent: Pick<PlannedAgent, "model" | "env" | "command">,
  entry: AgentCheckAgent,
): string[] {
  // Keys sorted, so that an env map given in another order is the same configuration.
  const same = (a: unknown, b: unknown) => canonicalJsonLine(a) === canonicalJsonLine(b);
  return [
    ...(same(agent.model ?? null, entry.model) ? [] : ["model"]),
    ...(same(agent.env ?? null, entry.env ?? null) ? [] : ["env"]),
    ...(same(agent.command ?? null, entry.command ?? null) ? [] : ["command"]),
  ];
}

/** The token-cap warning of one checked agent (see {@linkcode agentsAgainstCheck}), or null. */
function capWarning(
  id: string,
  entry: AgentCheckAgent,
  options: AgentsAgainstCheckOptions,
): string | null {
  const cap = options.tokenCap;
  const call = entry.first_call;
  if (cap === null || call === null || call.prompt_bound === null) return null;
  const bound = call.prompt_bound;
  if (cap < bound + 1) {
    return `the token cap (${cap}) is below agent "${id}"'s first call's prompt bound + 1 ` +
      `(${bound} + 1 in the agent check): the relay will refuse every call, and each ` +
      "episode will be a scored failure without a model call";
  }
  const policy = options.maxOutputTokens;
  const asked = call.requested_output_cap;
  const wanted = policy === null ? asked : asked === null ? policy : Math.min(asked, policy);
  if (wanted === null || cap >= bound + wanted) return null;
  return `the token cap (${cap}) is below what agent "${id}"'s first call requests ` +
    `(prompt bound ${bound} + output cap ${wanted} in the agent check): the relay will ` +
    `lower its output cap to at most ${cap - bound}`;
}
