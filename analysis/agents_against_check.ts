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
import { displayId } from "./untrusted_text.ts";

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
        `${entry.reason ?? "refused"}`;
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
