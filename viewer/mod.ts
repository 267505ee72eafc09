/**
 * The episode browser's pages (`ledgerbench view`): pure functions
 * from ledger rows and stored episode logs to HTML, served by
 * `cli/_view_server.ts`. One module per page or concern:
 *
 * - `episode_table_page.ts`: the filterable, paginated table of episodes;
 * - `episode_index.ts`: what the table shows of every row, and the rows
 *   of each agent, task, outcome and reason, built once: the table's pages
 *   are read from it;
 * - `episode_filter.ts`: the filters (agent, task, outcome, stop reason,
 *   invalid reason);
 * - `episode_page.ts`: one episode (verdict, transcript, tool calls,
 *   output, workspace diff; for an imported row its source and the messages
 *   the source kept);
 * - `compare_page.ts`: two agents on one task, side by side;
 * - `transcript.ts`: the conversation read from the stored model-call
 *   bodies of the four APIs the relay meters;
 * - `episode_messages.ts`: an episode's conversation as one list of
 *   messages, from those calls or from an imported source's kept messages;
 * - `links.ts`: where links go, to the server's paths or to the files of a
 *   static export (`view --out`, written by `cli/_view_static.ts`);
 *   `static_table.ts`: the export's table data, paged by its script;
 * - `_html.ts`: escaping, query links and the page shell with its
 *   Content-Security-Policy; `assets.ts`: the stylesheet and the one script.
 *
 * What is shown: the row's fields; the bodies of the agent's model calls as
 * the relay stored them (the agent's requests and the replies it received,
 * with the upstream key already replaced by `[redacted]` when stored); the
 * relay's call records (model, usage, status, refusal, fault) and the
 * requests it refused outside the model APIs (method, target); the
 * candidate's stdout and stderr tails; the verifier's verdict and the checks
 * it reported (name, passed, message), its mode and reward values; a judged
 * task's total; the workspace diff from the task's `workspace/` to the
 * stored artifact.
 *
 * What is never shown, and why: request headers (`authorization`,
 * `x-api-key`, cookies: the relay never stores them, and no page reads
 * anything but bodies); any key (redacted before storing); the task's
 * hidden verifier files and anything that may quote them: the verifier's
 * raw stdout and stderr (in Harbor's shared mode the tests print there),
 * the verifier's view of the environment, and the LLM judge's prompts and
 * replies (they hold the hidden reference answer and rubric). Only the
 * verdict line's fields and the row's records are read from the verifier.
 * No file of the artifact store is served: pages are built from the log.
 *
 * Every untrusted string (ids, notes, bodies, tails, paths, the diff) is
 * escaped by the report's rule (`lineText`/`terminalText`, then
 * `htmlEscape`); links carry percent-encoded queries to the server's own
 * paths only; every page carries a Content-Security-Policy of
 * `default-src 'none'` with scripts and styles from its own origin only, so
 * an escaping slip still runs nothing. Nothing is fetched from outside.
 *
 * @module
 */
export { episodeTablePage, PAGE_SIZE, tokensCell, wallCell } from "./episode_table_page.ts";
export { matchesFilter, outcomeOf, parseFilter } from "./episode_filter.ts";
export { episodePage, episodeSections } from "./episode_page.ts";
export { comparePage } from "./compare_page.ts";
export { toolCalls, transcript } from "./transcript.ts";
export { episodeMessages } from "./episode_messages.ts";
export { CONTENT_SECURITY_POLICY } from "./_html.ts";
export { SERVER_LINKS, staticLinks } from "./links.ts";
export { EpisodeIndex, EpisodeIndexBuilder } from "./episode_index.ts";
