/**
 * Benchmark: `ledgerbench view` on a generated ledger (default 1,000,000
 * rows, 20 agents): the time to read the ledger into the browser's index,
 * then the time and bytes of the first table page, of a filtered page
 * (agent + outcome + task search) and of one episode's page, each a real
 * HTTP request to the server. The baseline, measured in the same run, is
 * reading the ledger's bytes once without parsing: a page that filtered
 * every row per request would cost about that much or more, a page read
 * from the index a small fraction of it.
 *
 * The ledger is streamed to a temporary directory by the seeded generator
 * of `tools/synthetic_ledger.ts` (seed 7, hash-chained). The server runs in
 * a fresh subprocess (this file as a worker), so the peak resident memory
 * reported (VmHWM) is the server's own.
 *
 * Usage: `tools/deno run -A bench/view_bench.ts [--rows N] [--agents N]`
 * prints the result as JSON. Worker usage (internal):
 * `deno run -A bench/view_bench.ts --worker LEDGER` prints one JSON line.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { writeSyntheticLedger } from "../tools/synthetic_ledger.ts";
import { openInput } from "../inputs/input_file.ts";
import { loadViewLedger } from "../cli/_view_rows.ts";
import { viewHandler } from "../cli/_view_server.ts";
import { type BenchResult, peakRssKib, runWorker } from "./_measure.ts";

/** Options for {@link viewBench}. */
export interface ViewBenchOptions {
  /** Directory for the generated ledger (created and removed by the caller). */
  dir: string;
  /** Ledger rows; default 1,000,000. */
  rows?: number;
  /** Agents; default 20. */
  agents?: number;
}

/** One page request: its wall time and the bytes of its body. */
interface Fetched {
  ms: number;
  bytes: number;
}

/** What the worker measured, in milliseconds, bytes and KiB. */
export interface ViewTimings {
  rows: number;
  /** Reading the ledger's bytes once, no parse (the baseline). */
  read_ms: number;
  /** `loadViewLedger`: the strict read building the index. */
  index_ms: number;
  first: Fetched;
  /** The same first page asked again (what every later visit costs). */
  first_again: Fetched;
  filtered: Fetched & { query: string; matches: number };
  /** A search alone, for a prefix every task id has (every row matches). */
  search_all: Fetched;
  episode: Fetched;
  peak_rss_kib: number | null;
}

const SELF = new URL(import.meta.url).pathname;

/**
 * Generates the ledger, then serves it from a fresh subprocess and times
 * the pages. No assertion on time: the numbers are returned.
 *
 * @param options directory, ledger size, agents
 * @returns the filtered page's time against reading the ledger once, the rest in `notes`
 * @throws {Error} when the worker fails or indexes another number of rows
 */
export async function viewBench(options: ViewBenchOptions): Promise<BenchResult> {
  const rows = options.rows ?? 1_000_000;
  const agents = options.agents ?? 20;
  const ledger = `${options.dir}/view_ledger_${rows}.jsonl`;
  const started = performance.now();
  const written = await writeSyntheticLedger(ledger, { rows, agents, seed: 7, chained: true });
  const generateMs = performance.now() - started;
  const t = await runWorker<ViewTimings>("View worker", SELF, ["--worker", ledger]);
  if (t.rows !== rows) throw new Error(`View worker indexed ${t.rows} rows`);
  const page = (name: string, f: Fetched) =>
    `${name}: ${f.ms.toFixed(1)} ms, ${(f.bytes / 1024).toFixed(1)} KiB`;
  return {
    name: "view",
    workload: `ledgerbench view on ${rows.toLocaleString("en")} rows ` +
      `(${(written.bytes / 1e6).toFixed(0)} MB, ${agents} agents): a filtered table page`,
    ms: t.filtered.ms,
    baseline: { name: "reading the ledger's bytes once, no parse", ms: t.read_ms },
    ratio: t.filtered.ms / t.read_ms,
    target: null,
    peak_rss_mib: t.peak_rss_kib === null ? null : t.peak_rss_kib / 1024,
    notes: [
      `index built in ${(t.index_ms / 1000).toFixed(1)} s (the strict read: schema, chain, ids)`,
      page("first page", t.first),
      page("first page again", t.first_again),
      page(`filtered page ${t.filtered.query} (${t.filtered.matches} match)`, t.filtered),
      page("search every task id contains (every row matches)", t.search_all),
      page("one episode's page (its row re-read from the ledger)", t.episode),
      `ledger generated in ${(generateMs / 1000).toFixed(1)} s by tools/synthetic_ledger.ts ` +
      "(seed 7); the server ran in a fresh process: peak memory is its VmHWM",
    ],
  };
}

async function readOnce(path: string): Promise<number> {
  const start = performance.now();
  let bytes = 0;
  for await (const chunk of await openInput(path)) bytes += chunk.length;
  if (bytes === 0) throw new Error(`${path} is empty`);
  return performance.now() - start;
}

async function worker(ledger: string): Promise<void> {
  const read_ms = await readOnce(ledger);
  const started = performance.now();
  const view = await loadViewLedger(ledger);
  const index_ms = performance.now() - started;
  const hosts = new Set<string>();
  const handler = viewHandler({
    ledger: view,
    place: { ledger, artifacts: `${ledger}.none`, named: false },
    hosts,
  });
  const stop = new AbortController();
  let base = "";
  await new Promise<void>((listening) => {
    Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      signal: stop.signal,
      onListen: ({ port }) => {
        hosts.add(`127.0.0.1:${port}`);
        base = `http://127.0.0.1:${port}`;
        listening();
      },
    }, handler);
  });
  const get = async (path: string): Promise<Fetched & { body: string }> => {
    const start = performance.now();
    const response = await fetch(`${base}${path}`);
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${path}: status ${response.status}`);
    return { ms: performance.now() - start, bytes: new TextEncoder().encode(body).length, body };
  };
  const strip = ({ ms, bytes }: Fetched) => ({ ms, bytes });
  const first = await get("/");
  const first_again = await get("/");
  // The third agent's failures on tasks whose id contains "T00001": T0000100 to T0000199 and T0001000 to T0001999.
  const query = "?agent=agent-03&outcome=failed&task=T00001";
  const filtered = await get(`/${query}`);
  const matches = Number(
    /<span id="match-count">([\d,]+)<\/span>/.exec(filtered.body)?.[1]
      .replaceAll(",", ""),
  );
  const search_all = await get("/?task=T");
  const id = view.index.episodeId(Math.floor(view.index.size / 2));
  const episode = await get(`/episode?id=${encodeURIComponent(id)}`);
  stop.abort();
  const timings: ViewTimings = {
    rows: view.index.size,
    read_ms,
    index_ms,
    first: strip(first),
    first_again: strip(first_again),
    filtered: { ...strip(filtered), query, matches },
    search_all: strip(search_all),
    episode: strip(episode),
    peak_rss_kib: peakRssKib(),
  };
  console.log(JSON.stringify(timings));
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      worker: { type: "string" },
      rows: { type: "string" },
      agents: { type: "string" },
    },
  });
  if (values.worker !== undefined) await worker(values.worker);
  else {
    const dir = await Deno.makeTempDir({ prefix: "view_bench_" });
    try {
      const result = await viewBench({
        dir,
        rows: values.rows === undefined ? undefined : Number(values.rows),
        agents: values.agents === undefined ? undefined : Number(values.agents),
      });
      console.log(JSON.stringify(result, null, 2));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
}
