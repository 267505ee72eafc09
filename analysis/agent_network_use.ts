/**
 * Where the agents' requests went: per agent, the requests its rows record
 * through its recording egress proxy (`Episode.agent_egress`), allowed and
 * denied, in all and per host. An agent that reached the internet solved
 * its tasks with what it fetched; a reader comparing agents must see who
 * fetched what (seed 002: the environment is part of what a score means).
 * Pure, one pass, O(rows + hosts).
 *
 * @module
 */
import type { Episode } from "./schema/records.ts";

/** One host's requests. */
export interface HostRequests {
  host: string;
  allowed: number;
  denied: number;
}

/** One agent's requests. */
export interface AgentNetworkUse {
  agent_id: string;
  /** Its rows that record an `agent_egress` (the agent had a network). */
  rows: number;
  allowed: number;
  denied: number;
  /** Per host, sorted by name (a row's hosts past its 64th are in `hosts_omitted` only). */
  hosts: HostRequests[];
  /** Hosts the rows left out (their `hosts_omitted`, summed). */
  hosts_omitted: number;
}

/**
 * Sums the rows' `agent_egress` per agent; agents whose rows record none
 * are left out.
 *
 * @param rows ledger rows (after errata)
 * @returns per agent, sorted by agent id; empty when no row records a network
 * @example
 * ```ts
 * import { agentNetworkUse } from "./agent_network_use.ts";
 * import { deepEqual } from "node:assert/strict";
 * const egress = (host: string, allowed: number, denied: number) => ({
 *   allowed, denied, hosts: [{ host, allowed, denied }], hosts_omitted: 0,
 * });
 * deepEqual(
 *   agentNetworkUse([
 *     { agent_id: "a", agent_egress: egress("pypi.org", 3, 0) },
 *     { agent_id: "a", agent_egress: egress("pypi.org", 1, 1) },
 *     { agent_id: "b" },
 *   ] as never),
 *   [{ agent_id: "a", rows: 2, allowed: 4, denied: 1, hosts_omitted: 0,
 *      hosts: [{ host: "pypi.org", allowed: 4, denied: 1 }] }],
 * );
 * ```
 */
export function agentNetworkUse(
  rows: Iterable<Pick<Episode, "agent_id" | "agent_egress">>,
): AgentNetworkUse[] {
  const agents = new Map<string, AgentNetworkUse & { byHost: Map<string, HostRequests> }>();
  for (const row of rows) {
    const egress = row.agent_egress;
    if (egress === undefined) continue;
    let agent = agents.get(row.agent_id);
    if (agent === undefined) {
      agent = {
        agent_id: row.agent_id,
        rows: 0,
        allowed: 0,
        denied: 0,
        hosts: [],
        hosts_omitted: 0,
        byHost: new Map(),
      };
      agents.set(row.agent_id, agent);
    }
    agent.rows++;
    agent.allowed += egress.allowed;
    agent.denied += egress.denied;
    agent.hosts_omitted += egress.hosts_omitted;
    for (const { host, allowed, denied } of egress.hosts) {
      const entry = agent.byHost.get(host) ?? { host, allowed: 0, denied: 0 };
      entry.allowed += allowed;
      entry.denied += denied;
      agent.byHost.set(host, entry);
    }
  }
  const byName = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;
  return [...agents.values()].sort((a, b) => byName(a.agent_id, b.agent_id)).map((
    { byHost, ...agent },
  ) => ({ ...agent, hosts: [...byHost.values()].sort((a, b) => byName(a.host, b.host)) }));
}
