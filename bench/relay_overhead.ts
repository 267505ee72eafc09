/**
 * Relay overhead micro-benchmark (issue 3, "Benchmarks": "relay overhead per
 * call against calling the scripted provider directly (goal: at most 2 ms
 * added at the median)"; issue 8: the same for the Responses and Messages
 * APIs).
 *
 * Run alone: `deno run -A bench/relay_overhead.ts [calls] [api]` prints the
 * figures as JSON (`api`: `chat`, `responses` or `messages`).
 *
 * @module
 */
import { startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import type { UpstreamKind } from "../runner/relay/api/upstream_kind.ts";
import { startRelay } from "../runner/relay/relay.ts";
import { type Forwarder, startForwarder } from "../runner/relay/start_forwarder.ts";

/** The APIs the benchmark can call. */
export type BenchApi = "chat" | "responses" | "messages";

/** Options of {@linkcode measureRelayOverhead}. */
export interface RelayOverheadOptions {
  /**
   * Which API to call (default `chat`): a small chat completion from the
   * scripted provider, or a small whole Responses / Messages answer from a
   * fixed inline upstream (its handler only returns prepared bytes, so the
   * direct path measures loopback HTTP alone).
   */
  api?: BenchApi;
  /** Timed calls per path (default 200). */
  calls?: number;
  /** Untimed calls per path first, to warm connections and JIT (default 20). */
  warmup?: number;
  /** Also time relay + TCP forwarder (default true; costs one deno process launch). */
  forwarder?: boolean;
}

/** Median per-call latencies in milliseconds, rounded to 1 µs. */
export interface RelayOverhead {
  api: BenchApi;
  calls: number;
  /** Client → upstream (scripted provider, or the fixed inline upstream) over loopback TCP. */
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
 * Measures the median latency of one small model call of `api` three ways,
 * the paths interleaved call by call so that drift hits them alike: directly
 * to the upstream, through the relay's unix socket, and through the
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
  const api = options.api ?? "chat";
  const key = "sk-bench-upstream";
  const upstream = await startBenchUpstream(api, key);
  const dir = await Deno.makeTempDir({ prefix: "relay_bench_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: upstream.baseUrl,
    upstreamKey: key,
    upstreamKind: upstream.kind,
  });
  const unixClient = Deno.createHttpClient({
    proxy: { transport: "unix", path: relay.socketPath },
  });
  let forwarder: Forwarder | null = null;
  try {
    if (options.forwarder ?? true) {
      forwarder = await startForwarder({ pid: null, socketPath: relay.socketPath, port: 0 });
    }
    const body = JSON.stringify(upstream.request);
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
        call(`${upstream.baseUrl}${upstream.path.slice("/v1".length)}`, {
          headers: { ...upstream.keyHeader, ...upstream.headers },
        }),
      () => call(`http://relay${upstream.path}`, { client: unixClient, headers: upstream.headers }),
    ];
    if (forwarder !== null) {
      const port = forwarder.port;
      paths.push(() =>
        call(`http://127.0.0.1:${port}${upstream.path}`, { headers: upstream.headers })
      );
    }
    const samples: number[][] = paths.map(() => []);
    for (let i = 0; i < warmup + calls; i++) {
      for (const [p, path] of paths.entries()) {
        const ms = await path();
        if (i >= warmup) samples[p].push(ms);
      }
    }
    if (relay.records().some((record) => record.usage === null)) {
      throw new Error(`Relay benchmark: a "${api}" call was not metered`);
    }
    const [direct, viaRelay, viaForwarder] = samples.map(median);
    return {
      api,
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
    await upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** An upstream to benchmark against, and the call to make. */
interface BenchUpstream {
  baseUrl: string;
  kind: UpstreamKind;
  /** The model-call path, e.g. `/v1/responses`. */
  path: string;
  request: Record<string, unknown>;
  /** Headers the agent sends (the relay adds the key). */
  headers: Record<string, string>;
  /** The key header of a direct call. */
  keyHeader: Record<string, string>;
  close(): Promise<void>;
}

/** A small whole answer of each fixed-upstream API, in the API reference's shape. */
const FIXED_ANSWERS = {
  responses: {
    id: "resp_1",
    object: "response",
    status: "completed",
    model: "bench",
    output: [{
      type: "message",
      id: "msg_1",
      role: "assistant",
      content: [{ type: "output_text", text: "ok", annotations: [] }],
    }],
    usage: {
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 1,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 13,
    },
  },
  messages: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "bench",
    content: [{ type: "text", text: "ok" }],
    stop_reason: "end_turn",
    usage: { input_tokens: 12, output_tokens: 1 },
  },
};

async function startBenchUpstream(api: BenchApi, key: string): Promise<BenchUpstream> {
  const json = { "content-type": "application/json" };
  const prompt = [{ role: "user", content: "Reply with ok." }];
  if (api === "chat") {
    const provider = await startScriptedProvider({ default: { content: "ok" } }, { apiKey: key });
    return {
      baseUrl: provider.baseUrl,
      kind: "openai",
      path: "/v1/chat/completions",
      request: { model: "bench", messages: prompt },
      headers: json,
      keyHeader: { authorization: `Bearer ${key}` },
      close: () => provider.close(),
    };
  }
  const answer = new TextEncoder().encode(JSON.stringify(FIXED_ANSWERS[api]));
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) },
    async (request) => {
      await request.arrayBuffer();
      return new Response(answer, { headers: json });
    },
  );
  const baseUrl = `http://127.0.0.1:${await promise}/v1`;
  const close = () => server.shutdown();
  return api === "responses"
    ? {
      baseUrl,
      kind: "openai",
      path: "/v1/responses",
      request: { model: "bench", input: "Reply with ok." },
      headers: json,
      keyHeader: { authorization: `Bearer ${key}` },
      close,
    }
    : {
      baseUrl,
      kind: "anthropic",
      path: "/v1/messages",
      request: { model: "bench", max_tokens: 16, messages: prompt },
      headers: { ...json, "anthropic-version": "2023-06-01" },
      keyHeader: { "x-api-key": key },
      close,
    };
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
  const api = Deno.args[1] as BenchApi | undefined;
  console.log(JSON.stringify(await measureRelayOverhead({ calls, api }), null, 2));
}
