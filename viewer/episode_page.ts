/**
 * One episode's page in the browser: its row's figures, the
 * verifier's verdict and checks, the transcript from the stored model-call
 * bodies, the tool calls, the candidate's stdout and stderr, and the
 * workspace diff against the task's start; or, for an imported row, where
 * it came from and the messages its source kept (an Inspect sample's, through
 * the same message rendering). Pure: the log is read by the caller.
 *
 * @module
 */
import type { Episode } from "../analysis/schema/records.ts";
import type { AppliedErratum } from "../analysis/errata.ts";
import { formatGrouped } from "../analysis/format_number.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";
import { parseVerdictLine } from "../analysis/parse_verdict_line.ts";
import { outcomeOf } from "./episode_filter.ts";
import { NOT_RECORDED, tokensCell, wallCell } from "./episode_table_page.ts";
import { toolCalls, transcript, type TranscriptMessage } from "./transcript.ts";
import { episodeMessages } from "./episode_messages.ts";
import { block, idSpan, page, text } from "./_html.ts";
import { distinctShortIds } from "../analysis/untrusted_text.ts";
import { type Links, SERVER_LINKS } from "./links.ts";

/** One episode as the pages show it. */
export interface EpisodeEvidence {
  row: Episode;
  /** The row's number (0-based, file order) and ledger line (1-based). */
  index: number;
  line: number;
  /** Its stored log; null when the row names none or it could not be read (`problem`). */
  log: EpisodeLog | null;
  /** Why the log named by the row could not be read; null otherwise. */
  problem: string | null;
  /** The errata that changed the row (absent or empty: none). */
  corrections?: readonly AppliedErratum[];
}

/** The other episodes on the same task, for the side-by-side links. */
export interface Neighbour {
  row: { episode_id: string; agent_id: string };
  index: number;
  line: number;
}

const num = (value: number | null | undefined) =>
  value === null || value === undefined ? NOT_RECORDED : formatGrouped(value);

/**
 * The sections of one episode (used whole by the episode page and side by
 * side by the comparison): an imported row gets its summary, one sentence
 * naming its source file and position and, when its source kept them, its
 * messages and tool calls (`episodeMessages`), and nothing more; a row
 * without a readable log says why; otherwise every section, each saying
 * when its evidence was not recorded.
 *
 * @param evidence the row, its line and its log
 * @returns the sections' HTML
 */
export function episodeSections(evidence: Omit<EpisodeEvidence, "index">): string {
  const { row } = evidence;
  let html = summary(row, evidence.line) + correctionLines(evidence.corrections ?? []);
  if (row.provenance?.evidence_kind === "imported") {
    const p = row.provenance;
    const from = `<p class="imported">This episode was imported (${text(p.format)}) from ${
      text(`"${p.source}"`)
    } at ${text(p.position)}`;
    if (evidence.log?.imported !== undefined) {
      return html +
        `${from}: the transcript below is the conversation its source kept; no relay calls, output, verdict checks or workspace diff were recorded.</p>` +
        importedTranscriptSection(episodeMessages(evidence.log));
    }
    const problem = evidence.problem === null
      ? ""
      : `<p class="problem">The episode log could not be read: ${text(evidence.problem)}</p>`;
    return html +
      `${from}: it has no stored artifacts, so no transcript, output, verdict checks or workspace diff can be shown.</p>${problem}`;
  }
  html += verdictSection(row, evidence.log);
  if (evidence.problem !== null) {
    return html +
      `<p class="problem">The episode log could not be read: ${text(evidence.problem)}</p>`;
  }
  const log = evidence.log;
  if (log === null) {
    return html +
      `<p class="problem">No episode log is stored for this row (it has no episode_log_digest; its notes say why).</p>`;
  }
  return html + transcriptSection(log) + toolSection(log) + deniedSection(log) +
    outputSection(log) + diffSection(log);
}

/** One line per erratum that changed the row: the outcome as recorded and as corrected. */
function correctionLines(corrections: readonly AppliedErratum[]): string {
  const state = (s: AppliedErratum["before"]) =>
    s.status === "invalid"
      ? `invalid (${text(s.invalid_reason ?? "")})`
      : s.resolved
      ? "resolved"
      : "failed";
  return corrections.map((c) =>
    `<p class="corrected">Corrected by erratum ${
      text(c.erratum_id)
    } (${c.kind}, errata line ${c.line}): recorded ${state(c.before)}, now ${
      state(c.after)
    }. The figures and pages show the corrected row.</p>`
  ).join("");
}

function summary(row: Episode, line: number): string {
  const outcome = outcomeOf(row);
  const fields: [string, string][] = [
    ["Agent", idSpan(row.agent_id)],
    ["Task", idSpan(row.task_id)],
    ["Attempt", String(row.attempt)],
    ["Outcome", `<span class="outcome ${outcome}">${outcome}</span>`],
    ["Stop reason", text(row.stop_reason)],
    ["Invalid reason", row.invalid_reason === null ? "none" : text(row.invalid_reason)],
    [
      "Tokens",
      `${tokensCell(row)}${
        row.prompt_tokens === null || row.completion_tokens === null
          ? ""
          : ` (${num(row.prompt_tokens)} prompt + ${num(row.completion_tokens)} completion)`
      }`,
    ],
    ["Wall time", wallCell(row)],
    ["Model calls", num(row.model_calls)],
    ["Tool calls", num(row.tool_calls)],
    ["Ledger line", String(line)],
  ];
  return `<section class="summary"><h2 class="episode-id">${idSpan(row.episode_id)}</h2>
<dl>${fields.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("")}</dl>
${row.notes === "" ? "" : `<p class="notes">Notes: ${text(row.notes)}</p>`}</section>`;
}

/**
 * The verdict: the row's outcome, how it was reached (`verification`), the
 * judge's total for a judged task, and the checks the verifier reported
 * (its verdict line, read from its output as the runner read it). Nothing
 * else of the verifier's output is shown: it may quote hidden files.
 */
function verdictSection(row: Episode, log: EpisodeLog | null): string {
  let html = `<section class="verdict"><h3>Verifier's verdict</h3>`;
  const v = row.verification;
  if (v !== undefined) {
    html += `<p>Mode ${text(v.mode)}${
      v.decided_by === null ? "" : `, decided by ${text(v.decided_by)}`
    }${
      v.reward === null
        ? ""
        : `; reward ${
          Object.entries(v.reward).map(([key, value]) => `${text(key)} ${value}`).join(", ")
        }`
    }.</p>`;
    if (v.steps !== undefined) {
      html += `<ol class="steps">${
        v.steps.map((step) =>
          `<li>Step ${text(step.name)}: ${
            step.reward === null
              ? "no reward"
              : Object.entries(step.reward).map(([key, value]) => `${text(key)} ${value}`).join(
                ", ",
              )
          }; ${
            step.resolved === null
              ? `verifier fault ${text(step.fault ?? "")}`
              : step.resolved
              ? "passed"
              : "failed"
          }.</li>`
        ).join("")
      }</ol>`;
    }
  }
  if (row.judge !== undefined) {
    html += `<p>Judge ${text(row.judge.model)}: ${
      row.judge.total === null
        ? "no total"
        : `total ${row.judge.total.toFixed(2)} of 100, threshold ${row.judge.pass_threshold}, ${
          row.judge.passed ? "passed" : "failed"
        }`
    }.</p>`;
  }
  if (v !== undefined && v.reward !== null) {
    // Harbor's modes: the reward file decided; the verifier's stdout is test output, not a verdict.
    const outcome = row.status === "invalid"
      ? "invalid"
      : row.resolved
      ? "resolved"
      : "not resolved";
    return html +
      `<p>Verdict from ${text(v.reward_file ?? "the reward file")}: <strong class="outcome ${
        outcomeOf(row) === "resolved" ? "resolved" : "failed"
      }">${outcome}</strong>.</p></section>`;
  }
  const stdout = log?.verifier?.stdout_tail;
  const parsed = stdout === undefined ? null : parseVerdictLine(stdout);
  if (parsed === null && row.judge !== undefined) {
    html += `<p>The judge decided: no program verifier's verdict was recorded.</p>`;
  } else if (parsed === null) {
    html +=
      `<p class="absent">No verdict line was recorded (the verifier did not run, or the log predates it).</p>`;
  } else if (parsed.kind === "fault") {
    html += `<p class="absent">The verifier's output holds no verdict (${text(parsed.fault)}).</p>`;
  } else {
    const checks = parsed.verdict.checks;
    html += `<p>Verdict: <strong class="outcome ${
      parsed.verdict.resolved ? "resolved" : "failed"
    }">${parsed.verdict.resolved ? "resolved" : "not resolved"}</strong>, ${checks.length} check${
      checks.length === 1 ? "" : "s"
    }.</p>`;
    if (checks.length > 0) {
      html +=
        `<table class="checks"><thead><tr><th>Check</th><th>Passed</th><th>Message</th></tr></thead><tbody>${
          checks.map((c) =>
            `<tr><td>${text(c.name)}</td><td class="${c.passed ? "pass" : "fail"}">${
              c.passed ? "yes" : "no"
            }</td><td>${text(c.detail)}</td></tr>`
          ).join("")
        }</tbody></table>`;
    }
  }
  return html + `</section>`;
}

function messageHtml(message: TranscriptMessage, kind: "sent" | "reply"): string {
  const parts = message.parts.map((part) => {
    if (part.kind === "text") return `<pre class="text">${block(part.text)}</pre>`;
    if (part.kind === "tool_call") {
      return `<div class="tool-call"><span class="label">tool call</span> <code>${
        text(part.name)
      }</code>${part.id === null ? "" : ` <span class="muted">${text(part.id)}</span>`}<pre>${
        block(part.arguments)
      }</pre></div>`;
    }
    return `<div class="tool-result"><span class="label">tool result</span>${
      part.id === null ? "" : ` <span class="muted">${text(part.id)}</span>`
    }<pre>${block(part.text)}</pre></div>`;
  }).join("");
  return `<div class="message ${kind} role-${
    text(message.role).replace(/[^a-z]/g, "")
  }"><div class="role">${text(message.role)}</div>${parts}</div>`;
}

function transcriptSection(log: EpisodeLog): string {
  const calls = transcript(log.bodies);
  let html = `<section class="transcript"><h3>Transcript (${log.bodies.length} model call${
    log.bodies.length === 1 ? "" : "s"
  } stored${log.bodies_omitted > 0 ? `, ${log.bodies_omitted} more not stored` : ""})</h3>`;
  if (calls.length === 0) html += `<p class="absent">No model call was made or stored.</p>`;
  const records = new Map(log.calls.map((c) => [c.index, c]));
  for (const call of calls) {
    const record = records.get(call.index);
    const usage = record?.usage;
    html += `<div class="call" id="call-${call.index}"><h4>Call ${call.index} · ${
      text(call.endpoint)
    }${
      record === undefined
        ? ""
        : ` · ${text(record.server_model_id ?? "model not reported")} · status ${record.status}${
          usage == null
            ? ""
            : ` · ${num(usage.prompt_tokens)} prompt + ${
              num(usage.completion_tokens)
            } completion tokens`
        }${record.refusal === null ? "" : ` · refused: ${text(record.refusal)}`}${
          record.fault === null ? "" : ` · fault: ${text(record.fault)}`
        }`
    }</h4>`;
    if (call.already_shown > 0) {
      html += `<p class="muted">${call.already_shown} earlier message${
        call.already_shown === 1 ? "" : "s"
      } of the conversation not repeated.</p>`;
    }
    for (const note of call.notes) html += `<p class="absent">${text(note)}.</p>`;
    html += call.sent.map((m) => messageHtml(m, "sent")).join("");
    if (call.raw_request !== null) html += `<pre class="raw">${block(call.raw_request)}</pre>`;
    if (call.reply !== null) html += messageHtml(call.reply, "reply");
    else if (call.raw_response !== null && call.raw_response !== "") {
      html += `<pre class="raw">${block(call.raw_response)}</pre>`;
    }
    html += `</div>`;
  }
  return html + `</section>`;
}

function toolSection(log: EpisodeLog): string {
  return toolTable(toolCalls(transcript(log.bodies)), "call");
}

/** The tool calls the model asked for, each linked to its call (or message) by `#<anchor>-<n>`. */
function toolTable(
  calls: readonly { call: number; name: string; arguments: string }[],
  anchor: "call" | "message",
): string {
  let html = `<section class="tools"><h3>Tool calls in the model's replies (${calls.length})</h3>`;
  if (calls.length === 0) {
    return html + `<p class="absent">The model asked for no tool call.</p></section>`;
  }
  html += `<table class="tool-calls"><thead><tr><th>${
    anchor === "call" ? "Call" : "Message"
  }</th><th>Tool</th><th>Arguments</th></tr></thead><tbody>${
    calls.map((c) =>
      `<tr><td><a href="#${anchor}-${c.call}">${c.call}</a></td><td><code>${
        text(c.name)
      }</code></td><td><pre>${block(c.arguments)}</pre></td></tr>`
    ).join("")
  }</tbody></table>`;
  return html + `</section>`;
}

/**
 * An imported row's conversation as its source kept it: each message
 * (numbered, `#message-<n>`) through the same rendering as a stored call's,
 * then the tool calls of the assistant's messages.
 */
function importedTranscriptSection(messages: readonly TranscriptMessage[]): string {
  let html = `<section class="transcript"><h3>Transcript (${messages.length} message${
    messages.length === 1 ? "" : "s"
  }, as the source kept them)</h3>`;
  if (messages.length === 0) html += `<p class="absent">The source kept no message.</p>`;
  messages.forEach((message, i) => {
    html += `<div class="call" id="message-${i + 1}">${
      messageHtml(message, message.role === "assistant" ? "reply" : "sent")
    }</div>`;
  });
  const calls = messages.flatMap((message, i) =>
    message.role === "assistant"
      ? message.parts.flatMap((part) =>
        part.kind === "tool_call"
          ? [{ call: i + 1, name: part.name, arguments: part.arguments }]
          : []
      )
      : []
  );
  return html + `</section>` + toolTable(calls, "message");
}

/** The requests the relay answered itself outside the model APIs (method, target, status, code). */
function deniedSection(log: EpisodeLog): string {
  const denied = log.denied_requests ?? [];
  if (denied.length === 0) return "";
  return `<section class="denied"><h3>Requests refused outside the model APIs (${denied.length})</h3>` +
    `<table><thead><tr><th>Method</th><th>Target</th><th>Status</th><th>Code</th></tr></thead><tbody>${
      denied.map((d) =>
        `<tr><td>${text(d.method)}</td><td><code>${
          text(d.target)
        }</code></td><td>${d.status}</td><td>${text(d.code)}</td></tr>`
      ).join("")
    }</tbody></table></section>`;
}

function tail(title: string, value: string | null, cls: string): string {
  const content = value === null
    ? `<p class="absent">Not captured: the harness failed before the candidate's output.</p>`
    : value === ""
    ? `<p class="absent">Empty.</p>`
    : `<pre class="${cls}">${block(value)}</pre>`;
  return `<section class="${cls}"><h3>${title}</h3>${content}</section>`;
}

function outputSection(log: EpisodeLog): string {
  return tail("Candidate's stdout (tail)", log.stdout_tail, "stdout") +
    tail("Candidate's stderr (tail)", log.stderr_tail, "stderr");
}

function diffSection(log: EpisodeLog): string {
  const diff = log.workspace_diff;
  let html = `<section class="diff"><h3>Workspace diff against the task's start</h3>`;
  if (diff === undefined) {
    return html +
      `<p class="absent">Not recorded: the log predates the runner's workspace diff, no workspace was stored, or the task's workspace comes from an image.</p></section>`;
  }
  const total = diff.files.length + diff.files_omitted;
  html += `<p>${total} path${total === 1 ? "" : "s"} changed${
    diff.files_omitted > 0 ? ` (the first ${diff.files.length} listed)` : ""
  }.</p>`;
  if (total === 0) return html + `</section>`;
  html += `<ul class="changed">${
    diff.files.map((f) =>
      `<li><span class="${f.kind}">${f.kind}</span> <code>${text(f.path)}</code></li>`
    )
      .join("")
  }</ul>`;
  const lines = diff.text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  html += `<pre class="patch">${
    lines.map((line) => {
      const cls = line.startsWith("@@")
        ? "hunk"
        : line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff --git")
        ? "head"
        : line.startsWith("+")
        ? "add"
        : line.startsWith("-")
        ? "del"
        : "ctx";
      return `<span class="${cls}">${block(line)}</span>`;
    }).join("\n")
  }</pre>`;
  if (diff.truncated) {
    html +=
      `<p class="absent">The patch was cut at its stored bound; the list above names every changed path.</p>`;
  }
  return html + `</section>`;
}

/**
 * One episode's links to the other agents' episodes on its task, side by
 * side with it, then its sections.
 *
 * @param evidence the row, its line and its log
 * @param neighbours the episodes on its task (those of its own agent are left out)
 * @param links where links go
 * @returns the HTML
 */
export function episodeBody(
  evidence: EpisodeEvidence,
  neighbours: readonly Neighbour[],
  links: Links,
): string {
  const { row } = evidence;
  const linked = neighbours.flatMap((n) => {
    if (n.row.episode_id === row.episode_id || n.row.agent_id === row.agent_id) return [];
    const link = links.compare(evidence, n);
    return link === null ? [] : [{ link, agent: n.row.agent_id }];
  });
  // The agents listed together are shortened together (`distinctShortIds`).
  const shown = distinctShortIds(linked.map((l) => l.agent));
  const others = linked.map(({ link, agent }, k) =>
    `<a href="${link}">${idSpan(agent, shown[k])}</a>`
  );
  const compare = others.length === 0
    ? ""
    : `<p class="compare-links">Side by side on this task with: ${others.join(", ")}</p>`;
  return `${compare}${episodeSections(evidence)}`;
}

/**
 * The episode page: {@link episodeBody} in a page of its own.
 *
 * @param evidence the row, its line and its log
 * @param neighbours the episodes on its task (those of its own agent are left out)
 * @param links where links go (default: the server's paths)
 * @returns the page's HTML
 */
export function episodePage(
  evidence: EpisodeEvidence,
  neighbours: readonly Neighbour[],
  links: Links = SERVER_LINKS,
): string {
  return page({
    root: links.root,
    static: links.static,
    title: `Episode ${evidence.row.episode_id}`,
    body: episodeBody(evidence, neighbours, links),
  });
}
