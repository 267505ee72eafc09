/**
 * `ledgerbench view`: the episode browser, a local page on
 * loopback that browses a ledger's episodes: a filterable table, each
 * episode's transcript, tool calls, output, verdict and workspace diff, and
 * two agents side by side on one task. The pages are built by `viewer/`
 * (pure) and served by `_view_server.ts`; what they show and never show is
 * in `viewer/mod.ts`.
 *
 * @module
 */
import {
  displayLength,
  fitLines,
  outputWidth,
  WIDTH_OPTION,
  widthHelpAt,
} from "./_table_layout.ts";
import {
  type NumberOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  stringOption,
} from "./_args.ts";
import { ExitCode, InputError, type Io, UsageError } from "./_command.ts";
import { lineText } from "../analysis/untrusted_text.ts";
import { artifactsDir, isDirectory, openRowLog } from "./_episode_evidence.ts";
import { viewHandler } from "./_view_server.ts";
import { MAX_STATIC_PAIRS, MAX_STATIC_ROWS, writeStaticView } from "./_view_static.ts";
import { EPISODES_PER_FILE } from "../viewer/links.ts";
import { formatGrouped } from "../analysis/format_number.ts";
import { loadViewLedger } from "./_view_rows.ts";

/** `--port`: 0 asks the system for a free one. */
const PORT: NumberOption = { name: "port", range: { min: 0, max: 65535, integer: true } };

/** The most rows `--out` writes, as the help says it. */
const STATIC_ROWS = formatGrouped(MAX_STATIC_ROWS);

/** Help text, an example first. */
export const help = `Browse a ledger's episodes in a local web page: a table filtered by agent,
task (its id contains a text), outcome, stop reason and invalid reason
(tokens, wall time, model calls), a hundred rows a page from an index built
once; each episode's transcript from the stored model-call bodies, its tool
calls, stdout and stderr, the verifier's verdict and checks and the workspace
diff against the task's start; two agents side by side on one task. Nothing
is fetched from outside; no request header, key or hidden verifier file is
ever shown (the verdict and the checks the verifier reported are).

Browse the demo run (prints the URL to open):
  deno task ledgerbench view ledgers/demo/ledger.jsonl

As static files, to open without a server:
  deno task ledgerbench view ledgers/demo/ledger.jsonl --out /tmp/demo-view

On a fixed port, with the artifact store elsewhere:
  deno task ledgerbench view runs/r1/ledger.jsonl --port 8123 \\
    --artifacts /srv/ledgerbench/artifacts

USAGE:
  deno task ledgerbench view LEDGER [OPTIONS]

OPTIONS:
  --artifacts DIR      Artifact store holding the episode logs (default:
                       artifacts/ beside the ledger, where run stores it)
  --errata FILE        Corrections to apply on top of the ledger (as every
                       command applies them): corrected rows are marked and
                       their pages name the erratum
  --port N             Port to listen on, ${rangeText(PORT.range)} (default 0: a free port)
  --host ADDR          Address to listen on (default 127.0.0.1); only a
                       loopback address (127.0.0.0/8, ::1, localhost)
                       unless --allow-remote is given
  --out DIR            Write the same pages as static files into DIR instead
                       of serving them, for a ledger of up to ${STATIC_ROWS} rows:
                       index.html (the table, filtered and paged by its
                       script from data/), episode/ (${EPISODES_PER_FILE} episodes a file),
                       side by side in compare/ (up to ${MAX_STATIC_PAIRS} pairs)
  --allow-remote       Allow a --host that is not loopback: anyone who can
                       reach it reads every transcript
${widthHelpAt(23)}
  -h, --help           This help

The server runs until interrupted (Ctrl-C). Imported rows get one sentence
naming their source file and position, and the messages and tool calls
their source kept (an Inspect log's, kept by import). Strings from the
ledger and the logs are untrusted: escaped as in the report, and every page
carries a Content-Security-Policy that runs no inline script.

A missing artifact store (the default, artifacts/ beside the ledger) or a
missing or altered episode log is a warning on stderr, and the pages of the
episodes concerned say so: the rows can still be browsed.

EXIT STATUS:
  0 stopped by a signal, or the pages written (--out); 1 usage error;
  2 bad input (the ledger or the errata unreadable or a line malformed:
  error: <file>:<line>: field "<f>": <message>; an erratum that cannot
  apply; --artifacts DIR not a directory; --out with a ledger of more
  than ${STATIC_ROWS} rows)
`;

const OPTIONS = {
  artifacts: { type: "string" },
  errata: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  "allow-remote": { type: "boolean" },
  out: { type: "string" },
  ...WIDTH_OPTION,
} as const;

/**
 * Whether `host` is a loopback address: `localhost`, 127.0.0.0/8 or `::1`
 * (RFC 1122 section 3.2.1.3, RFC 4291 section 2.5.3).
 *
 * @param host the address as given
 * @returns true for a loopback address
 * @example
 * ```ts
 * import { isLoopback } from "./view.ts";
 * if (!isLoopback("127.0.0.2") || !isLoopback("::1") || isLoopback("0.0.0.0")) throw new Error();
 * ```
 */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Runs `view`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["LEDGER"] });
  const width = outputWidth(values);
  const ledger = positionals[0];
  const port = numberOption(values, PORT) ?? 0;
  const host = stringOption(values, "host") ?? "127.0.0.1";
  if (!isLoopback(host) && values["allow-remote"] !== true) {
    throw new UsageError(
      `Option "--host": "${host}" is not a loopback address: add --allow-remote to serve it`,
    );
  }
  const artifacts = artifactsDir(ledger, stringOption(values, "artifacts"));
  const view = await loadViewLedger(ledger, stringOption(values, "errata"));
  const place = { ledger, artifacts, named: values.artifacts !== undefined };
  if (place.named && !(await isDirectory(artifacts))) {
    throw new InputError(`Option "--artifacts": "${artifacts}" is not a directory`);
  }
  // A missing default store or an altered log is said once here, and on each page it touches:
  // the rows can still be browsed.
  let first = 0;
  while (first < view.index.size && !view.index.logged(first)) first++;
  if (first < view.index.size) {
    const [row] = await view.rows(first, first + 1);
    await openRowLog(row, place).catch((error: Error) =>
      io.stderr(
        fitLines(
          `warning: ${lineText(error.message)}; episode pages without their log say so\n`,
          width,
        ),
      )
    );
  }

  const out = stringOption(values, "out");
  if (out !== undefined) {
    if (values.port !== undefined || values.host !== undefined) {
      throw new UsageError('Option "--out" writes files: "--port" and "--host" are for serving');
    }
    const wrote = await writeStaticView(out, view, place);
    io.stdout(fitLines(
      `ledgerbench view: wrote ${wrote.episodes} episodes and ${wrote.pairs} side-by-side ` +
        `pages in ${wrote.files} files to ${out}/ (open ${out}/index.html)` +
        (wrote.pairs_left_out
          ? `; more than ${MAX_STATIC_PAIRS} pairs: none written (the server shows any pair)`
          : "") +
        "\n",
      width,
    ));
    return ExitCode.ok;
  }

  const hostname = host === "localhost" ? "127.0.0.1" : host.replace(/^\[|\]$/g, "");
  const hosts = new Set<string>();
  const stop = new AbortController();
  let resolveListening: (port: number) => void;
  const listening = new Promise<number>((resolve) => resolveListening = resolve);
  const server = Deno.serve({
    hostname,
    port,
    signal: stop.signal,
    onListen: (address) => resolveListening(address.port),
  }, (request) => handler(request));
  const bound = await listening;
  const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
  for (const name of [shown, ...(isLoopback(host) ? ["localhost", "127.0.0.1", "[::1]"] : [])]) {
    hosts.add(`${name}:${bound}`);
  }
  const handler = viewHandler({ ledger: view, place, hosts });
  const onSignal = () => stop.abort();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  // Too wide for one line: the address first and whole (a script reads the first line for it;
  // alone on it when even "ledgerbench view: " beside it does not fit), then the rest folded.
  const url = `http://${shown}:${bound}/`;
  const episodes = `${view.index.size} episodes of ${ledger}`;
  const whole = `ledgerbench view: ${episodes} at ${url} (Ctrl-C stops)`;
  const head = displayLength(`ledgerbench view: ${url}`) <= width
    ? `ledgerbench view: ${url}\n`
    : `${url}\n`;
  io.stdout(
    displayLength(whole) <= width
      ? `${whole}\n`
      : head + fitLines(`  (Ctrl-C stops) ${episodes}\n`, width),
  );
  try {
    await server.finished;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
  return ExitCode.ok;
}
