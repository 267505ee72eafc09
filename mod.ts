/**
 * ledgerbench's library: a ledger opened with its plan, errata, price table,
 * task list and episode logs, and the frames a researcher explores it with in
 * a notebook, each computed by the same functions as the CLI and the report
 * (so a notebook states nothing `ledgerbench report` would not).
 *
 * | entry point | what |
 * | --- | --- |
 * | {@link openLedger} | the ledger and its inputs, the one view (errata applied) and the one assessment (what each agent may claim); `report()` gives the report's summary and figure specs |
 * | {@link agentsFrame} | one row per agent: the leaderboard with rank, claim, score over planned tasks, rate and interval, per-resolved figures |
 * | {@link episodesFrame} | one row per episode: outcome, stop reason, censoring, tokens, steps, time |
 * | {@link solveMatrix} | task × agent: the share of scored attempts that resolved the task, null when none was scored |
 * | {@link callsFrame} | one row per model call the relay recorded: API, status, refusal, fault, tokens, latency |
 * | {@link messagesFrame} | one row per message part of the transcripts (stored calls, or an imported log's messages): role, text, tool calls and results |
 * | `run.report().figures` | the report's figures as vega-lite specs, for {@link showFigure} |
 * | {@link show}, {@link showFigure}, {@link showMarkdown} | display in the Deno Jupyter kernel (HTML, Markdown and text; figures as vega-lite, PNG and SVG) |
 * | {@link markdownCode}, {@link markdownText} | untrusted text (ids, messages) placed in Markdown so it renders as itself |
 * | {@link claimLabel}, {@link denominatorLine}, {@link missingLines}, {@link withheldWords}, {@link withheldPairWords} | the report's sentences: what each agent may claim, and why a number is withheld |
 *
 * Frames are danfojs DataFrames (`query`, `groupby`, `sortValues`, …).
 * Deeper layers (`analysis/mod.ts`, `inputs/mod.ts`, `report/mod.ts`) stay
 * importable for what this surface leaves out.
 *
 * @example
 * ```ts
 * import { agentsFrame, episodesFrame, openLedger, solveMatrix } from "./mod.ts";
 * const run = await openLedger(new URL("./ledgers/demo/ledger.jsonl", import.meta.url).pathname);
 * const board = agentsFrame(run);          // the leaderboard
 * const matrix = solveMatrix(run);         // 7 tasks × 2 agents
 * const episodes = episodesFrame(run);
 * const failures = episodes.query(episodes["outcome"].eq("fail"));
 * if (board.shape[0] !== 2 || matrix.shape[0] !== 7 || failures.shape[0] === 0) throw new Error();
 * ```
 *
 * @module
 */
export {
  type ChosenInput,
  type InputSource,
  type OpenedLedger,
  openLedger,
  type OpenLedgerOptions,
} from "./lib/open_ledger.ts";
export { type AgentRecord, agentsFrame } from "./lib/agents_frame.ts";
export { episodesFrame } from "./lib/episodes_frame.ts";
export { type LedgerRecord } from "./lib/ledger_records.ts";
export { solveMatrix } from "./lib/solve_matrix.ts";
export { type CallRecord, callsFrame } from "./lib/calls_frame.ts";
export { type MessageRecord, messagesFrame } from "./lib/messages_frame.ts";
export { show, showFigure, showMarkdown } from "./lib/display.ts";
export { markdownCode, markdownText } from "./analysis/markdown_text.ts";
export {
  claimLabel,
  denominatorLine,
  missingLines,
  withheldPairWords,
  withheldWords,
} from "./report/standing_words.ts";
