/**
 * The episode browser's server (issue 25): a `Deno.serve` handler that
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
import { type EpisodeEvidence, episodePage } from "../viewer/episode_page.ts";
import { comparePage } from "../viewer/compare_page.ts";
import { episodeTablePage, type LedgerView, type ViewRow } from "../viewer/episode_table_page.ts";
import { parseFilter } from "../viewer/episode_filter.ts";
import { CONTENT_SECURITY_POLICY, page, text } from "../viewer/_html.ts";
import { VIEW_CSS, VIEW_JS } from "../viewer/assets.ts";
import { type LogPlace, openRowLog } from "./_episode_evidence.ts";

/** What the handler serves. */
export interface ViewSource {
  ledger: LedgerView;
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
 * The handler: `/` (the table; query `agent`, `task`, `outcome`, `stop`,
 * `invalid`, `page`), `/episode?id=ID`, `/compare?a=ID&b=ID` or
 * `/compare?task=T&left=A&right=B` (each agent's last attempt on the task),
 * `/assets/view.css` and `/assets/view.js`; anything else is 404, a method
 * other than GET or HEAD 405, an unexpected `Host` 421.
 *
 * @param source the ledger's rows, where their logs are, the accepted hosts
 * @returns the request handler
 */
export function viewHandler(source: ViewSource): (request: Request) => Promise<Response> {
  const byId = new Map(source.ledger.rows.map((r) => [r.row.episode_id, r]));
  const byTask = new Map<string, ViewRow[]>();
  for (const r of source.ledger.rows) {
    const list = byTask.get(r.row.task_id) ?? [];
    list.push(r);
    byTask.set(r.row.task_id, list);
  }
  const agents = [...new Set(source.ledger.rows.map((r) => r.row.agent_id))].sort();
  const tasks = [...byTask.keys()].sort();
  const logs = new Map<string, Promise<EpisodeEvidence>>();
  const evidence = (found: ViewRow): Promise<EpisodeEvidence> => {
    let pending = logs.get(found.row.episode_id);
    if (pending === undefined) {
      pending = rowEvidence(found, source.place);
      logs.set(found.row.episode_id, pending);
    }
    return pending;
  };
  const lastOf = (task: string, agent: string) =>
    (byTask.get(task) ?? []).filter((r) => r.row.agent_id === agent).at(-1);

  return async (request: Request): Promise<Response> => {
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
        return html(episodeTablePage(source.ledger, {
          filter: parseFilter(query),
          page: Number(query.get("page") ?? "1") || 1,
        }));
      case "/episode": {
        const found = byId.get(query.get("id") ?? "");
        if (found === undefined) return notFound("No episode has this id in the ledger.");
        return html(episodePage(await evidence(found), byTask.get(found.row.task_id) ?? []));
      }
      case "/compare": {
        let left = query.has("a") ? byId.get(query.get("a")!) : undefined;
        let right = query.has("b") ? byId.get(query.get("b")!) : undefined;
        const task = left?.row.task_id ?? query.get("task") ?? "";
        const leftAgent = left?.row.agent_id ?? query.get("left") ?? "";
        const rightAgent = right?.row.agent_id ?? query.get("right") ?? "";
        left ??= lastOf(task, leftAgent);
        right ??= lastOf(task, rightAgent);
        return html(comparePage({
          task,
          left: leftAgent,
          right: rightAgent,
          leftEpisode: left === undefined ? null : await evidence(left),
          rightEpisode: right === undefined ? null : await evidence(right),
          agents,
          tasks,
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
}
