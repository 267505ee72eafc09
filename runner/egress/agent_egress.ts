/**
 * The agent's network, as Harbor defines it and as nobody records it: a task
 * that asks for the internet (Harbor's `allow_internet`, true by default,
 * or a `network_mode` of `public`, or an `allowlist` with `allowed_hosts`)
 * gives its agent egress through the same recording proxy the verifier
 * uses (`egress_proxy.ts`), to the hosts the frozen plan allows and nowhere
 * else, every request kept in the episode's log and counted on its row.
 * The model APIs are denied whatever the plan allows: the agent reaches a
 * model only through the relay, which alone holds the key (seed 000).
 *
 * @module
 */
import type { Episode, Plan } from "../../analysis/schema/records.ts";
import type { EgressRequest } from "../../analysis/schema/egress_request.ts";
import type { AgentNetwork } from "../../analysis/schema/suite_manifest.ts";

/** The name the host options take for {@link PACKAGE_INDEX_HOSTS} (`expandPackageIndexes`). */
export const PACKAGE_INDEXES = "@package-indexes";

/**
 * The package indexes of the languages and systems Terminal-Bench tasks
 * install from, each the host its client asks (PyPI and its files, npm,
 * Debian's and Ubuntu's archives, Go's module proxy and checksum database,
 * crates.io, Maven Central, RubyGems). Source code hosts (GitHub) and
 * installers (astral.sh) are not indexes: name them.
 */
export const PACKAGE_INDEX_HOSTS: readonly string[] = [
  "pypi.org",
  "files.pythonhosted.org",
  "registry.npmjs.org",
  "deb.debian.org",
  "security.debian.org",
  "archive.ubuntu.com",
  "security.ubuntu.com",
  "ports.ubuntu.com",
  "proxy.golang.org",
  "sum.golang.org",
  "index.crates.io",
  "static.crates.io",
  "repo1.maven.org",
  "rubygems.org",
];

/**
 * The model APIs an agent may never reach directly, whatever the plan
 * allows: the providers' public endpoints (OpenAI, Anthropic, Google's
 * Gemini, Vertex AI and Code Assist, Azure OpenAI, Mistral, DeepSeek,
 * OpenRouter, Together, Groq, xAI, Cohere, Fireworks, Perplexity, Moonshot,
 * Zhipu, Alibaba's DashScope). A direct call would bypass the relay's
 * metering and caps; without the key it would be the agent's own account.
 */
export const MODEL_API_HOSTS: readonly string[] = [
  "api.openai.com",
  "api.anthropic.com",
  "generativelanguage.googleapis.com",
  "aiplatform.googleapis.com",
  "cloudcode-pa.googleapis.com",
  "*.openai.azure.com",
  "api.mistral.ai",
  "api.deepseek.com",
  "openrouter.ai",
  "api.together.xyz",
  "api.groq.com",
  "api.x.ai",
  "api.cohere.com",
  "api.cohere.ai",
  "api.fireworks.ai",
  "api.perplexity.ai",
  "api.moonshot.cn",
  "open.bigmodel.cn",
  "dashscope.aliyuncs.com",
  "dashscope-intl.aliyuncs.com",
];

/**
 * Host option entries (`freeze --agent-allow-host`, `suite import harbor
 * --verifier-allow-host`) with {@link PACKAGE_INDEXES} replaced by
 * {@link PACKAGE_INDEX_HOSTS}, each host once, in the order given.
 *
 * @param entries the option's values
 * @returns the hosts the plan or the suite records
 * @example
 * ```ts
 * import { expandPackageIndexes } from "./agent_egress.ts";
 * import { equal } from "node:assert/strict";
 * equal(expandPackageIndexes(["files.example", "@package-indexes"])[1], "pypi.org");
 * ```
 */
export function expandPackageIndexes(entries: readonly string[]): string[] {
  const hosts = entries.flatMap((entry) =>
    entry === PACKAGE_INDEXES ? PACKAGE_INDEX_HOSTS : [entry]
  );
  return [...new Set(hosts)];
}

/** What one task's agent may reach: the proxy's allow-list and whether any public host is allowed. */
export interface AgentEgress {
  allowHosts: readonly string[];
  anyPublicHost: boolean;
}

/**
 * What one task's agent may reach (see the module doc): nothing (null, no
 * proxy) when the task asks for no network or the plan gives agents none;
 * otherwise the plan's hosts for a `public` task and the task's own for an
 * `allowlist` one (unless the plan turns task allow-lists off, when the
 * proxy still runs and records every request it denies).
 *
 * @param network the task's `agent_network`
 * @param plan the plan's `agent_egress`
 * @returns the proxy's settings, or null when the agent has no network
 */
export function agentEgressOf(
  network: AgentNetwork | undefined,
  plan: Plan["agent_egress"],
): AgentEgress | null {
  if (network === undefined || plan === undefined) return null;
  if (network.mode === "allowlist") {
    return { allowHosts: plan.task_allowlists ? network.allow_hosts : [], anyPublicHost: false };
  }
  return { allowHosts: plan.allow_hosts, anyPublicHost: plan.any_public_host };
}

/** The most hosts a row names in `agent_egress.hosts` (the schema's bound). */
const MAX_ROW_HOSTS = 64;

/**
 * What a row records of the agent's requests (`Episode.agent_egress`): the
 * allowed and denied counts, and per host (sorted by name), the first
 * {@link MAX_ROW_HOSTS} hosts, the rest counted; the requests themselves
 * are in the episode's log.
 *
 * @param requests the proxy's records
 * @returns the row's summary
 * @example
 * ```ts
 * import { agentEgressSummary } from "./agent_egress.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(
 *   agentEgressSummary([
 *     { host: "pypi.org", allowed: true },
 *     { host: "api.openai.com", allowed: false },
 *   ]),
 *   { allowed: 1, denied: 1, hosts_omitted: 0, hosts: [
 *     { host: "api.openai.com", allowed: 0, denied: 1 },
 *     { host: "pypi.org", allowed: 1, denied: 0 },
 *   ] },
 * );
 * ```
 */
export function agentEgressSummary(
  requests: readonly Pick<EgressRequest, "host" | "allowed">[],
): NonNullable<Episode["agent_egress"]> {
  const byHost = new Map<string, { host: string; allowed: number; denied: number }>();
  for (const request of requests) {
    const host = request.host === "" ? "(unreadable)" : request.host;
    const entry = byHost.get(host) ?? { host, allowed: 0, denied: 0 };
    if (request.allowed) entry.allowed++;
    else entry.denied++;
    byHost.set(host, entry);
  }
  const hosts = [...byHost.values()].sort((a, b) => a.host < b.host ? -1 : a.host > b.host ? 1 : 0);
  const allowed = requests.filter((request) => request.allowed).length;
  return {
    allowed,
    denied: requests.length - allowed,
    hosts: hosts.slice(0, MAX_ROW_HOSTS),
    hosts_omitted: Math.max(0, hosts.length - MAX_ROW_HOSTS),
  };
}
