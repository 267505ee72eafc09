/**
 * The agent's own egress proxy in its sandbox (`runner/egress/agent_egress.ts`
 * says what it may reach): started on a socket of the runner's, reached
 * from the sandbox's loopback {@link AGENT_EGRESS_PORT} before any of the
 * candidate's code runs (as the relay's forwarder), closed when the
 * candidate exits, its records then final. The model APIs are denied
 * whatever it allows (`MODEL_API_HOSTS`).
 *
 * @module
 */
import { startEgressProxy } from "../egress/egress_proxy.ts";
import type { EgressRequest } from "../egress/egress_request.ts";
import type { EgressResolve } from "../egress/egress_resolve.ts";
import { type AgentEgress, MODEL_API_HOSTS } from "../egress/agent_egress.ts";
import { runnerSocketPath } from "../runner_socket_path.ts";
import { EGRESS_PORT, proxyEnvironment, TUNNEL_DEADLINE_MS } from "./harbor_verifier.ts";
import type { SandboxSession } from "./sandbox_session.ts";

/** The loopback port the agent reaches its egress proxy on: the verifier's, which comes after it. */
export const AGENT_EGRESS_PORT = EGRESS_PORT;

/** A running agent proxy. */
export interface AgentEgressSession {
  /** Every request so far, allowed or denied (final once closed). */
  requests(): EgressRequest[];
  /** Ends the forwarder, then the proxy. */
  close(): Promise<void>;
}

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
): Promise<AgentEgressSession> {
  const proxy = await startEgressProxy({
    socketPath: await runnerSocketPath("agent-egress"),
    allowHosts: egress.allowHosts,
    anyPublicHost: egress.anyPublicHost,
    denyHosts: MODEL_API_HOSTS,
    connect,
    phase: "agent",
  });
  try {
    const forward = await session.forwardPort(AGENT_EGRESS_PORT, proxy.socketPath, {
      headerDeadlineMs: TUNNEL_DEADLINE_MS,
    });
    return {
      requests: () => proxy.requests(),
      close: async () => {
        await forward.close().catch(() => {});
        await proxy.close().catch(() => {});
      },
    };
  } catch (error) {
    await proxy.close().catch(() => {});
    throw error;
  }
}
