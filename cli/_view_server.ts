/**
 * The episode browser's server: a `Deno.serve` handler that
 * answers GET requests for the pages `viewer/` builds, reading each
 * episode's log from the artifact store when its page is asked for
 * (`_episode_evidence.ts`, the reader `show` uses). Every response carries
 * the pages' Content-Security-Policy, `nosniff`, `no-referrer` and
 * `no-store`; a request whose `Host` is not the address the server
 * listens on is refused (a page of another site that rebinds its name to
 * this address cannot read the pages).
 *
 * @module
 */
import { type EpisodeEvidence, episodePage, type Neighbour } from "../viewer/episode_page.ts";
import { comparePage } from "../viewer/compare_page.ts";
import { episodeTablePage, type ViewRow } from "../viewer/episode_table_page.ts";
import { parseFilter } from "../viewer/episode_filter.ts";
import { CONTENT_SECURITY_POLICY, page, text } from "../viewer/_html.ts";
import { VIEW_CSS, VIEW_JS } from "../viewer/assets.ts";
import { type LogPlace, openRowLog } from "./_episode_evidence.ts";
import type { ViewLedger } from "./_view_rows.ts";

/** What the handler serves. */
export interface ViewSource {
  ledger: ViewLedger;
  place: LogPlace;
  /** `Host` header values accepted (e.g. `127.0.0.1:8080`, `localhost:8080`). */
  hosts: ReadonlySet<string>;
}

const HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
};

function respond(body: string, status: number, type: string): Response {
  return new Response(body, { status, headers: { ...HEADERS, "content-type": type } });
}

const html = (body: string, status = 200) => respond(body, status, "text/html; charset=utf-8");

function notFound(message: string): Response {
  return html(page({ title: "Not found", body: `<h1>Not found</h1><p>${text(message)}</p>` }), 404);
}

/**
 * A row with its stored log, or with why the log it names could not be
 * read (a page says so; the browser goes on).
 *
 * @param found the row, its line and its corrections
 * @param place the ledger and the artifact store
 * @returns what the pages show of the episode
 */
export async function rowEvidence(found: ViewRow, place: LogPlace): Promise<EpisodeEvidence> {
  try {
    return { ...found, log: await openRowLog(found, place), problem: null };
  } catch (error) {
    return { ...found, log: null, problem: (error as Error).message };
  }
}

/**
 * The handler: `/` (the table; query `agent`, `task` (a search: the task
 * id contains it), `outcome`, `stop`, `invalid`, `page`),
 * `/episode?id=ID`, `/compare?a=ID&b=ID` or
 * `/compare?task=T&left=A&right=B` (each agent's last attempt on the task),
 * `/assets/view.css` and `/assets/view.js`; anything else is 404, a method
 * other than GET or HEAD 405, an unexpected `Host` 421, a row that cannot
 * be read back from the ledger 500 (its message on the page). Each request reads
 * the index, and an episode's page its one row and log: the ledger is
 * never scanned again.
 *
 * @param source the ledger's index and rows, where their logs are, the accepted hosts
 * @returns the request handler
 */
export function viewHandler(source: ViewSource): (request: Request) => Promise<Response> {
  const { ledger } = source;
  const index = ledger.index;
  const agents = index.agents();
  const evidence = async (at: number): Promise<EpisodeEvidence> => {
    const [found] = await ledger.rows(at, at + 1);
    return rowEvidence(found, source.place);
  };
  const neighbours = (at: number): Neighbour[] =>
    Array.from(index.taskRowsOf(at), (i) => ({
      row: { episode_id: index.episodeId(i), agent_id: index.agentOf(i) },
      index: i,
      line: index.lineOf(i),
    }));
  const byId = (id: string | null) => id === null ? -1 : index.find(id);

  const answer = async (request: Request): Promise<Response> => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return respond("Method not allowed\n", 405, "text/plain; charset=utf-8");
    }
    if (!source.hosts.has(request.headers.get("host") ?? "")) {
      return respond("Misdirected request: unexpected Host\n", 421, "text/plain; charset=utf-8");
    }
    const url = new URL(request.url);
    const query = url.searchParams;
    switch (url.pathname) {
      case "/":
        return html(episodeTablePage(ledger, {
          filter: parseFilter(query),
          page: Number(query.get("page") ?? "1") || 1,
        }));
      case "/episode": {
        const at = byId(query.get("id"));
        if (at === -1) return notFound("No episode has this id in the ledger.");
        return html(episodePage(await evidence(at), neighbours(at)));
      }
      case "/compare": {
        let left = byId(query.get("a"));
        let right = byId(query.get("b"));
        const task = left !== -1 ? index.tableRow(left).row.task_id : query.get("task") ?? "";
        const leftAgent = left !== -1 ? index.agentOf(left) : query.get("left") ?? "";
        const rightAgent = right !== -1 ? index.agentOf(right) : query.get("right") ?? "";
        if (left === -1) left = index.lastOf(task, leftAgent);
        if (right === -1) right = index.lastOf(task, rightAgent);
        return html(comparePage({
          task,
          left: leftAgent,
          right: rightAgent,
          leftEpisode: left === -1 ? null : await evidence(left),
          rightEpisode: right === -1 ? null : await evidence(right),
          agents,
        }));
      }
      case "/assets/view.css":
        return respond(VIEW_CSS, 200, "text/css; charset=utf-8");
      case "/assets/view.js":
        return respond(VIEW_JS, 200, "text/javascript; charset=utf-8");
      default:
        return notFound("No such page.");
    }
  };
  // A row that cannot be read back (the ledger changed or went away since the index was built)
  // is one sentence on the page, never a stack trace.
  return (request) =>
    answer(request).catch((error: Error) =>
      html(
        page({
          title: "Cannot read the ledger",
          body: `<h1>Cannot read the ledger</h1><p class="problem">${text(error.message)}</p>`,
        }),
        500,
      )
    );
}
