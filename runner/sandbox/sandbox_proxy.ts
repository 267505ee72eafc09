/**
 * An egress proxy reached from inside a sandbox, written once for both of
 * its users: the agent's (`agent_egress_session.ts`) and the Harbor-mode
 * verifier's (`harbor_verifier.ts`). The proxy listens on a unix socket of
 * the runner's (`runner_socket_path.ts`), and the sandbox's loopback `port`
 * is forwarded to it (`SandboxSession.forwardPort`), its tunnels allowed to
 * stay quiet for {@link TUNNEL_DEADLINE_MS} (a download's pauses).
 *
 * @module
 */
import { type EgressProxyOptions, startEgressProxy } from "../egress/egress_proxy.ts";
import type { EgressRequest } from "../../analysis/schema/egress_request.ts";
import { runnerSocketPath } from "../runner_socket_path.ts";
import type { ForwardOptions, SandboxSession } from "./sandbox_session.ts";

/** How long an egress tunnel may send nothing after the far side last answered (a download's pauses). */
export const TUNNEL_DEADLINE_MS = 600_000;

/** A proxy running for a sandbox. */
export interface SandboxProxy {
  /** Every request so far, allowed or denied (final once closed). */
  requests(): EgressRequest[];
  /** Ends the forwarder, then the proxy. */
  close(): Promise<void>;
}

/**
 * Starts an egress proxy and forwards the sandbox's loopback `port` to it.
 *
 * @param session the open sandbox
 * @param port the loopback port the sandbox reaches it on
 * @param proxy the proxy's rules (its socket is the runner's, named by `socketName`)
 * @param socketName the runner socket's name (`runnerSocketPath`)
 * @param admit which connections it serves (`ForwardOptions.admit`); absent: all
 * @returns the running proxy
 * @throws {Error} when the proxy or the forwarder cannot start (nothing is left running)
 */
export async function openSandboxProxy(
  session: SandboxSession,
  port: number,
  proxy: Omit<EgressProxyOptions, "socketPath">,
  socketName: string,
  admit?: ForwardOptions["admit"],
): Promise<SandboxProxy> {
  const started = await startEgressProxy({
    ...proxy,
    socketPath: await runnerSocketPath(socketName),
  });
  try {
    const forward = await session.forwardPort(port, started.socketPath, {
      headerDeadlineMs: TUNNEL_DEADLINE_MS,
      ...(admit === undefined ? {} : { admit }),
    });
    return {
      requests: () => started.requests(),
      close: async () => {
        await forward.close().catch(() => {});
        await started.close().catch(() => {});
      },
    };
  } catch (error) {
    await started.close().catch(() => {});
    throw error;
  }
}
