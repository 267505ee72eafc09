/**
 * Relay overhead micro-benchmark (issue 3, "Benchmarks": "relay overhead per
 * call against calling the scripted provider directly (goal: at most 2 ms
 * added at the median)").
 *
 * Run alone: `deno run -A bench/relay_overhead.ts [calls]` prints the figures
 * as JSON.
 *
 * @module
 */
import { startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import { startRelay } from "../runner/relay/relay.ts";
import { type Forwarder, startForwarder } from "../runner/relay/start_forwarder.ts";

/** Options of {@linkcode measureRelayOverhead}. */
export interface RelayOverheadOptions {
  /** Timed calls per path (default 200). */
  calls?: number;
  /** Untimed calls per path first, to warm connections and JIT (default 20). */
  warmup?: number;
  /** Also time relay + TCP forwarder (default true; costs one deno process launch). */
  forwarder?: boolean;
}

/** Median per-call latencies in milliseconds, rounded to 1 µs. */
export interface RelayOverhead {
  calls: number;
  /** Client → scripted provider over loopback TCP. */
  direct_ms_median: number;
  /** Client → relay (unix socket) → scripted provider. */
  relay_ms_median: number;
  /** Client → forwarder (loopback TCP) → relay (unix socket) → scripted provider; null if skipped. */
  forwarder_ms_median: number | null;
  /** `relay_ms_median - direct_ms_median`: what the relay adds (goal ≤ 2 ms). */
  relay_added_ms: number;
  /** `forwarder_ms_median - direct_ms_median`: what the whole sandbox path adds; null if skipped. */
  forwarder_added_ms: number | null;
}

/**
 * Measures the median latency of one small chat completion three ways, the
 * paths interleaved call by call so that drift hits them alike: directly to
 * the scripted provider, through the relay's unix socket, and through the
 * forwarder (run in the host's network namespace: the namespace does not
 * change loopback cost, and no container is needed) into the relay.
 *
 * Each path keeps its HTTP/1.1 connection alive between calls, as an agent's
 * HTTP client does; the relay's own upstream connection is pooled too. The
 * median of n values is the middle one (mean of the two middle ones for even
 * n). Cost: 3 × (calls + warmup) HTTP round trips on loopback.
 *
 * @param options Calls, warm-up and whether to include the forwarder.
 * @returns Medians and the added latencies, in ms.
 * @example
 * ```ts ignore
 * import { measureRelayOverhead } from "./relay_overhead.ts";
 * const figures = await measureRelayOverhead({ calls: 200 });
 * console.log(`relay adds ${figures.relay_added_ms} ms at the median`);
 * ```
 */
export async function measureRelayOverhead(
  options: RelayOverheadOptions = {},
): Promise<RelayOverhead> {
  const calls = options.calls ?? 200;
  const warmup = options.warmup ?? 20;
  const key = "sk-bench-upstream";
  const provider = await startScriptedProvider({ default: { content: "ok" } }, { apiKey: key });
  const dir = await Deno.makeTempDir({ prefix: "relay_bench_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: provider.baseUrl,
    upstreamKey: key,
  });
  const unixClient = Deno.createHttpClient({
    proxy: { transport: "unix", path: relay.socketPath },
  });
  let forwarder: Forwarder | null = null;
  try {
    if (options.forwarder ?? true) {
      forwarder = await startForwarder({ pid: null, socketPath: relay.socketPath, port: 0 });
    }
    const body = JSON.stringify({
      model: "bench",
      messages: [{ role: "user", content: "Reply with ok." }],
    });
    const call = async (
      url: string,
      init: RequestInit & { client?: Deno.HttpClient },
    ): Promise<number> => {
      const started = performance.now();
      const response = await fetch(url, { method: "POST", body, ...init });
      await response.arrayBuffer();
      const elapsed = performance.now() - started;
      if (response.status !== 200) {
        throw new Error(`Relay benchmark call failed: "${url}" answered ${response.status}`);
      }
      return elapsed;
    };
    const paths: Array<() => Promise<number>> = [
      () =>
        call(`${provider.baseUrl}/chat/completions`, {
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        }),
      () =>
        call("http://relay/v1/chat/completions", {
          client: unixClient,
          headers: { "content-type": "application/json" },
        }),
    ];
    if (forwarder !== null) {
      const port = forwarder.port;
      paths.push(() =>
        call(`http://127.0.0.1:${port}/v1/chat/completions`, {
          headers: { "content-type": "application/json" },
        })
      );
    }
    const samples: number[][] = paths.map(() => []);
    for (let i = 0; i < warmup + calls; i++) {
      for (const [p, path] of paths.entries()) {
        const ms = await path();
        if (i >= warmup) samples[p].push(ms);
      }
    }
    const [direct, viaRelay, viaForwarder] = samples.map(median);
    return {
      calls,
      direct_ms_median: round(direct),
      relay_ms_median: round(viaRelay),
      forwarder_ms_median: viaForwarder === undefined ? null : round(viaForwarder),
      relay_added_ms: round(viaRelay - direct),
      forwarder_added_ms: viaForwarder === undefined ? null : round(viaForwarder - direct),
    };
  } finally {
    await forwarder?.close();
    unixClient.close();
    await relay.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

if (import.meta.main) {
  const calls = Deno.args[0] === undefined ? undefined : Number(Deno.args[0]);
  console.log(JSON.stringify(await measureRelayOverhead({ calls }), null, 2));
}
