/**
 * The agent's own egress proxy in its sandbox (`runner/egress/agent_egress.ts`
 * says what it may reach; `sandbox_proxy.ts` runs it): reached
 * from the sandbox's loopback {@link AGENT_EGRESS_PORT} before any of the
 * candidate's code runs (as the relay's forwarder), closed when the
 * candidate exits, its records then final. The model APIs are denied
 * whatever it allows (`MODEL_API_HOSTS`).
 *
 * @module
 */
import type { EgressResolve } from "../egress/egress_resolve.ts";
import { type AgentEgress, MODEL_API_HOSTS } from "../egress/agent_egress.ts";
import { EGRESS_PORT, proxyEnvironment } from "./harbor_verifier.ts";
import { openSandboxProxy, type SandboxProxy } from "./sandbox_proxy.ts";
import type { SandboxSession } from "./sandbox_session.ts";

/** The loopback port the agent reaches its egress proxy on: the verifier's, which comes after it. */
export const AGENT_EGRESS_PORT = EGRESS_PORT;

/**
 * The variables that send the agent's HTTP clients to its proxy (no
 * password: every process of the candidate's sandbox is the candidate's).
 *
 * @returns `http_proxy`, `https_proxy` and their kin
 */
export function agentProxyEnvironment(): Record<string, string> {
  return proxyEnvironment(AGENT_EGRESS_PORT, null);
}

/**
 * Starts the agent's proxy and forwards the sandbox's
 * {@link AGENT_EGRESS_PORT} to it.
 *
 * @param session the candidate's open sandbox
 * @param egress what the agent may reach
 * @param connect where a named host is connected instead (`LEDGERBENCH_EGRESS_RESOLVE`)
 * @returns the running proxy
 * @throws {Error} when the proxy or the forwarder cannot start
 */
export async function openAgentEgress(
  session: SandboxSession,
  egress: AgentEgress,
  connect?: EgressResolve,
): Promise<SandboxProxy> {
  return await openSandboxProxy(session, AGENT_EGRESS_PORT, {
    allowHosts: egress.allowHosts,
    anyPublicHost: egress.anyPublicHost,
    denyHosts: MODEL_API_HOSTS,
    connect,
    phase: "agent",
  }, "agent-egress");
}
