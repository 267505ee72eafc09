/**
 * `ledgerbench show`: what happened in one episode (issue 8): its ledger row,
 * how its verdict was reached (the row's `verification`, issue 22: the
 * verifier's mode, the reward file's keys and values, what decided, the
 * shared mode's hijack flags), each model call the relay recorded, the
 * candidate's output tails and the verifier's, read from the episode log the
 * row's `episode_log_digest` names and checked against it
 * (`runner/episode_log_store.ts`).
 *
 * @module
 */
import type { EgressRequest } from "../analysis/schema/egress_request.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import type { Episode, JudgeRecord, VerificationRecord } from "../analysis/schema/records.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";
import { artifactsDir, type LedgerLine, openRowLog, scanLedgerRows } from "./_episode_evidence.ts";
import type { RelayCallRecord } from "../analysis/schema/relay_call_record.ts";
import { parseCommandArgs, stringOption } from "./_args.ts";
import { ExitCode, InputError, type Io, UsageError } from "./_command.ts";
import { integer, plural } from "../report/format.ts";
import { episodeMessages } from "../viewer/episode_messages.ts";
import {
  fitLines,
  fitTable,
  outputWidth,
  TableContext,
  WIDTH_OPTION,
  widthHelpAt,
} from "./_table_layout.ts";
import { lineText, terminalJson, terminalText } from "../analysis/untrusted_text.ts";

/** Help text, an example first. */
export const help = `Print what happened in one episode: its ledger row, how its verdict was
reached (the verifier's mode, the reward file's keys and values, what decided,
hijack flags of a shared-mode test run), each model call the relay recorded
(model, usage, latency, status, refusal or fault, the size of its request and
response bodies; --json prints the bodies), the candidate's stdout and stderr
tails, the agent's requests through its egress proxy (a task that gives it a
network), and the verifier's tails. They come from the episode log the runner stores
beside the workspace artifact; the log is read by the row's
episode_log_digest and its bytes are checked against it.

Show a failed episode of a run:
  deno task ledgerbench show r1/solver/b3-report/1 --ledger runs/r1/ledger.jsonl

The same with the artifact store elsewhere, as canonical JSON:
  deno task ledgerbench show r1/solver/b3-report/1 --ledger runs/r1/ledger.jsonl \\
    --artifacts /srv/ledgerbench/artifacts --json

USAGE:
  deno task ledgerbench show EPISODE_ID --ledger FILE [OPTIONS]

OPTIONS:
  --ledger FILE        The ledger holding the episode's row (read strictly)
  --artifacts DIR      Artifact store holding the log (default: artifacts/
                       beside the ledger, where run stores it)
${widthHelpAt(23)}
  --json               Print the row and the log as canonical JSON
  -h, --help           This help

A row without episode_log_digest (written before logs were stored, or whose
log could not be stored: see its notes) is printed with "no stored log". An
imported row's log holds the conversation its source kept (an Inspect
sample's messages, a Harbor trajectory): its messages are counted (view
shows them, --json prints the record).
Strings from the ledger and the log are untrusted: control characters (ESC
and CR included), C1 controls and bidirectional overrides are printed as
\\xHH or \\uHHHH escapes.

EXIT STATUS:
  0 printed; 1 usage error; 2 bad input (the ledger unreadable, no row with
  EPISODE_ID, the log missing from the store or altered)
`;

const OPTIONS = {
  ledger: { type: "string" },
  artifacts: { type: "string" },
  ...WIDTH_OPTION,
} as const;

/** Runs `show`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["EPISODE_ID"] });
  const episodeId = positionals[0];
  const width = outputWidth(values);
  const ledger = stringOption(values, "ledger");
  if (ledger === undefined) throw new UsageError('Missing option: "--ledger"');
  const artifacts = artifactsDir(ledger, stringOption(values, "artifacts"));

  const found = await findRow(ledger, episodeId);
  const log = await openRowLog(found, {
    ledger,
    artifacts,
    named: values.artifacts !== undefined,
  });
  if (values.json === true) {
    io.stdout(terminalJson(canonicalJson({
      ledger: { path: ledger, sha256: found.sha256 },
      line: found.line,
      artifacts,
      episode: found.row,
      episode_log: log,
    })));
    return ExitCode.ok;
  }
  io.stdout(terminalText(render(found, ledger, artifacts, log, width)));
  return ExitCode.ok;
}

interface FoundRow extends LedgerLine {
  sha256: string;
}

/** The row of `episodeId` in the ledger, read strictly (a bad ledger is exit 2). */
async function findRow(ledger: string, episodeId: string): Promise<FoundRow> {
  const matches: LedgerLine[] = [];
  const sha256 = await scanLedgerRows(ledger, (row, line) => {
    if (row.episode_id === episodeId) matches.push({ row, line });
  });
  if (matches.length === 0) {
    throw new InputError(`${ledger}: no row has episode_id "${episodeId}"`);
  }
  return { ...matches[0], sha256 };
}

/** The text report; every untrusted string is escaped by the caller. */
function render(
  found: FoundRow,
  ledger: string,
  artifacts: string,
  log: EpisodeLog | null,
  width: number,
) {
  return fitLines(renderText(found, ledger, artifacts, log, width), width);
}

/** The text of {@link render} before the lines are folded to the width. */
function renderText(
  found: FoundRow,
  ledger: string,
  artifacts: string,
  log: EpisodeLog | null,
  width: number,
) {
  const context = new TableContext(width);
  const tail = (text: string | null) => tailLines(text, width);
  const { row } = found;
  let text = `ledger: ${ledger} (sha256 ${found.sha256}), line ${found.line}\n`;
  text += `episode: ${lineText(row.episode_id)}\n`;
  text += `outcome: ${outcome(row)}, stop reason ${row.stop_reason}\n`;
  if (row.judge !== undefined) text += `judge: ${judgeLine(row.judge)}\n`;
  if (row.verification !== undefined) text += verificationLines(row.verification);
  if (row.notes !== "") text += `notes: ${row.notes}\n`;
  text += `\nrow:\n${indent(canonicalJson(row), "  ")}`;
  if (log === null) {
    text += `\nepisode log: no stored log (the row has no episode_log_digest)\n`;
    return text;
  }
  text += `\nepisode log: ${row.episode_log_digest} in ${artifacts} (content checked)\n`;
  if (log.imported !== undefined) {
    // an imported row's log holds only the conversation its source kept: no calls, no tails
    const messages = episodeMessages(log);
    const calls = messages.flatMap((m) => m.parts).filter((p) => p.kind === "tool_call").length;
    return text +
      `\ntranscript kept from the source (${log.imported.format}): ${
        plural(messages.length, "message")
      }, ${plural(calls, "tool call")} (view shows them; --json prints the record)\n`;
  }
  text += `\ncalls: ${log.calls.length}` +
    (log.calls_omitted === 0 ? "" : `, ${log.calls_omitted} more not stored`) + "\n";
  if (log.calls.length > 0) text += callTable(context, log.calls);
  for (const call of log.calls) {
    const budget = budgetNote(call);
    if (budget !== null) text += `  #${call.index} ${budget}\n`;
    if (call.detail !== "") text += `  #${call.index} ${lineText(call.detail)}\n`;
  }
  const denied = log.denied_requests ?? [];
  if (denied.length > 0) {
    text += `\nrequests refused outside the model APIs: ${denied.length}\n`;
    for (const request of denied) {
      text += `  ${lineText(request.method)} ${lineText(request.target)}: ${request.status} ` +
        `${lineText(request.code)}\n`;
    }
  }
  if (log.bodies.length > 0) {
    text += `\nbodies (--json prints what was kept of each):\n`;
    for (const body of log.bodies) {
      text += `  #${body.index} ${body.endpoint}: request ${size(body.request)}, ` +
        `response ${size(body.response)}\n`;
    }
  }
  if (log.bodies_omitted > 0) text += `  ${log.bodies_omitted} more not stored\n`;
  if (log.judge !== undefined) {
    text += `\njudge calls (its own relay): ${log.judge.calls.length}\n`;
    if (log.judge.calls.length > 0) text += callTable(context, log.judge.calls);
    for (const body of log.judge.bodies) {
      text += `  #${body.index} ${body.endpoint}: request ${size(body.request)}, ` +
        `response ${size(body.response)}\n`;
    }
  }
  text += `\nstdout tail:\n${tail(log.stdout_tail)}`;
  text += `\nstderr tail:\n${tail(log.stderr_tail)}`;
  if (log.agent_egress !== undefined) {
    text += egressLines("agent", log.agent_egress, log.agent_egress_omitted);
  }
  if (log.verifier !== undefined) {
    text += `\nverifier stdout tail (${log.verifier.mode} mode):\n${
      tail(log.verifier.stdout_tail)
    }`;
    text += `\nverifier stderr tail:\n${tail(log.verifier.stderr_tail)}`;
    text += verifierEvidenceLines(log.verifier);
  }
  return text;
}

/**
 * A phase's requests through its recording egress proxy, one line each
 * (method, host and port, path, allowed or denied, status), escaped: every
 * field is the client's or the origin's.
 */
function egressLines(
  phase: "agent" | "verifier",
  requests: readonly EgressRequest[],
  omittedCount: number | undefined,
): string {
  let text = `\n${phase} egress requests: ${requests.length}${
    (omittedCount ?? 0) > 0 ? `, ${omittedCount} more not stored` : ""
  }\n`;
  for (const request of requests) {
    text += `  ${lineText(request.method)} ${lineText(request.host)}:${request.port}` +
      `${request.path === null ? "" : ` ${lineText(request.path)}`}: ` +
      `${request.allowed ? "allowed" : "denied"}, status ${request.status ?? "none"}\n`;
  }
  return text;
}

/**
 * What a Harbor-mode verifier saw (issue 22), from the episode log: each
 * egress request (method, host and port, path, allowed or not, status), the
 * container's diff after the agent (kind and path, the first 20) and the
 * processes alive when verification started. All untrusted: escaped, one per line.
 */
function verifierEvidenceLines(verifier: NonNullable<EpisodeLog["verifier"]>): string {
  let text = "";
  const omitted = (n: number | undefined) => (n ?? 0) > 0 ? `, ${n} more not stored` : "";
  if (verifier.egress !== undefined) {
    text += egressLines("verifier", verifier.egress, verifier.egress_omitted);
  }
  if (verifier.changes !== undefined) {
    const total = verifier.changes.length + (verifier.changes_omitted ?? 0);
    text += `\ncontainer changes after the agent: ${total}\n`;
    for (const change of verifier.changes.slice(0, 20)) {
      text += `  ${change.kind} ${lineText(change.path)}\n`;
    }
    if (total > 20) text += `  ... (--json prints every stored one)\n`;
  }
  if (verifier.processes !== undefined) {
    text += `\nprocesses when verification started: ${verifier.processes.length}${
      omitted(verifier.processes_omitted)
    }\n`;
    for (const process of verifier.processes) {
      text += `  ${process.pid} ${lineText(process.user)} ${lineText(process.command)}\n`;
    }
  }
  return text;
}

/**
 * One step of a multi-step task as verified, in one line: its name, its
 * reward's keys and values, and its verdict or fault (the name and keys
 * untrusted, escaped).
 */
function stepLine(step: NonNullable<VerificationRecord["steps"]>[number]): string {
  const reward = step.reward === null
    ? "no reward"
    : Object.entries(step.reward).map(([key, value]) => `${lineText(key)} ${value}`).join(", ");
  const verdict = step.resolved === null
    ? `verifier fault ${lineText(step.fault ?? "")}`
    : step.resolved
    ? "passed"
    : "failed";
  return `step ${lineText(step.name)}: ${reward}; ${verdict}`;
}

/**
 * How the verdict was reached (the row's `verification` record): a line
 * for the mode, one for each step of a multi-step task, and one for each
 * of: the reward file's keys and values (in the file's order) and what
 * decided; the hijacks found; the verifier's egress. The hijacks and egress
 * lines appear outside the sealed mode, or when there is something to say.
 * Keys and paths are untrusted: each on one line, escaped.
 */
function verificationLines(record: VerificationRecord): string {
  const mode = record.mode === "shared"
    ? "shared (the verifier ran in the candidate's own container: the verdict is not sealed)"
    : record.mode;
  let text = `verification: ${mode}\n`;
  const reward = record.reward;
  text += reward === null
    ? "  reward: none read (a JSON-line verdict, or no reward file was read)\n"
    : `  reward (${record.reward_file ?? "file unknown"}): ${
      Object.keys(reward).length === 0
        ? "no keys"
        : Object.entries(reward).map(([key, value]) => `${lineText(key)} ${value}`).join(", ")
    }\n`;
  if (record.decided_by !== null) text += `  decided by: ${lineText(record.decided_by)}\n`;
  for (const step of record.steps ?? []) text += `  ${stepLine(step)}\n`;
  if (record.mode !== "sealed" || record.hijacks.length > 0) {
    text += `  hijacks found: ${
      record.hijacks.length === 0
        ? "none"
        : record.hijacks.map((h) => `${h.flag} ${lineText(h.path)}`).join(", ")
    }\n`;
  }
  if (record.mode !== "sealed" || record.egress_allowed + record.egress_denied > 0) {
    text += `  egress through the proxy: ${record.egress_allowed} allowed, ` +
      `${record.egress_denied} denied\n`;
  }
  if (record.stopped_processes !== undefined) {
    text += `  the candidate's processes stopped for the tests: ${record.stopped_processes}\n`;
  }
  for (const kept of record.kept_processes ?? []) {
    text += `  kept running (it listened on ${kept.listening.map(lineText).join(", ")}): ${
      lineText(kept.command)
    }\n`;
  }
  return text;
}

/**
 * Where a call's prompt bound came from, in words (`prompt_token_bound.ts`).
 */
const BOUND_SOURCE_WORDS: Record<NonNullable<RelayCallRecord["prompt_bound_source"]>, string> = {
  count: "the provider's count",
  tokenizer: "the model's tokenizer",
  bytes: "a token a byte",
};

/**
 * What the token cap did to a call, in one line: its prompt bound (and where
 * it came from), the
 * output cap it was forwarded with and whether the cap lowered it; the
 * provider features it used. Null for a call without any of them.
 */
function budgetNote(call: RelayCallRecord): string | null {
  const parts: string[] = [];
  if (call.prompt_bound !== undefined) {
    const source = call.prompt_bound_source === undefined
      ? ""
      : ` (${BOUND_SOURCE_WORDS[call.prompt_bound_source]})`;
    parts.push(
      `prompt bound ${call.prompt_bound}${source}, output cap ${call.output_cap ?? "none"}` +
        (call.cap_lowered === true ? " (lowered by the token cap)" : ""),
    );
  }
  if (call.provider_features !== undefined) {
    parts.push(`provider features: ${call.provider_features.map(lineText).join(", ")}`);
  }
  if (call.spend_unknown === true) parts.push("spend unknown: its usage never arrived");
  return parts.length === 0 ? null : parts.join("; ");
}

/** A body's size, and how much of it was kept when not all. */
function size(body: { text: string; bytes: number; truncated: boolean }): string {
  const kept = new TextEncoder().encode(body.text).length;
  return `${body.bytes} bytes` + (body.truncated ? ` (first ${kept} kept)` : "");
}

/** The judge's verdict in one line (issue 14): its total, the threshold, its attempts. */
function judgeLine(judge: JudgeRecord): string {
  const verdict = judge.total === null
    ? "no total"
    : `total ${judge.total.toFixed(2)} of 100, threshold ${judge.pass_threshold}: ${
      judge.passed ? "passed" : "failed"
    }`;
  return `${judge.model} on rubric ${judge.rubric_id}, ${verdict}; ` +
    `${judge.attempts.length} of at most ${judge.max_attempts} attempt(s); ` +
    (judge.calibrated ? "calibrated" : "uncalibrated: not counted in formal scores");
}

function outcome(row: Episode): string {
  if (row.status === "invalid") return `invalid (${row.invalid_reason})`;
  return row.resolved ? "resolved" : "not resolved";
}

function callTable(context: TableContext, calls: readonly RelayCallRecord[]): string {
  return fitTable(
    context,
    [
      { header: "#", align: "right", key: true },
      { header: "endpoint", priority: 1 },
      { header: "status", align: "right", priority: 0 },
      { header: "model", id: true, keyed: true, priority: 2 },
      { header: "prompt", align: "right", priority: 0 },
      { header: "completion", align: "right", priority: 0 },
      { header: "tools", align: "right", priority: 1 },
      { header: "latency ms", align: "right", priority: 2 },
      { header: "outcome", priority: 0 },
    ],
    calls.map((call) => [
      String(call.index),
      call.endpoint,
      String(call.status),
      call.server_model_id ?? "-",
      integer(call.usage?.prompt_tokens),
      integer(call.usage?.completion_tokens),
      String(call.tool_calls),
      String(Math.round(call.latency_ms)),
      call.refusal !== null
        ? `refused: ${call.refusal}`
        : call.fault !== null
        ? `fault: ${call.fault}`
        : call.forwarded
        ? "forwarded"
        : "not forwarded",
    ]),
  );
}

/** A tail as quoted lines, each folded to fit `width` after its `  | ` mark, or what stands in for it. */
function tailLines(text: string | null, width: number): string {
  if (text === null) return "  (not captured: the harness failed before the candidate's output)\n";
  if (text === "") return "  (empty)\n";
  const lines = (text.endsWith("\n") ? text : `${text}\n`).split("\n").slice(0, -1);
  return lines.map((line) => indent(line === "" ? "\n" : fitLines(`${line}\n`, width - 4), "  | "))
    .join("");
}

function indent(text: string, prefix: string): string {
  return text.split("\n").slice(0, -1).map((line) => `${prefix}${line}\n`).join("");
}
