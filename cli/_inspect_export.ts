/**
 * Ledger rows as Inspect AI eval logs (`ledgerbench export inspect`): the
 * pure half, rows in, one log's ZIP entries (name and JSON value) per agent
 * out; `runner/write_inspect_logs.ts` writes them.
 *
 * Read from Inspect AI's source at commit 499e615 (0.3.260, 22 August 2026;
 * MIT): `src/inspect_ai/log/_log.py` (EvalLog, EvalSpec, EvalDataset,
 * EvalConfig, EvalPlan, EvalResults, EvalScore, EvalStats, EvalSample,
 * EvalSampleSummary, EvalSampleLimit, EvalSampleReductions),
 * `log/_recorders/eval.py` (the entries a finished `.eval` log holds:
 * `_journal/start.json` (LogStart: version, eval, plan), the samples as
 * `samples/{id}_epoch_{epoch}.json`, `summaries.json`, `reductions.json`,
 * `header.json` (the EvalLog without samples), in that order),
 * `_util/constants.py` (LOG_SCHEMA_VERSION 2), `model/_model_output.py`
 * (ModelUsage), `model/_chat_message.py` (ChatMessage), `tool/_tool_call.py`
 * (ToolCall), `_util/error.py` (EvalError) and `scorer/_metric.py` (Score;
 * CORRECT "C", INCORRECT "I"). No code was copied.
 *
 * | ledger | Inspect | rule |
 * |---|---|---|
 * | `agent_id` | one log, `eval.model` | `import inspect` reads `eval.model` back as the agent |
 * | `task_id` | `sample.id` | the ledger's id, a string |
 * | `attempt` | `sample.epoch` | a (task, attempt) the agent has twice (rows of several runs) takes the next free epoch, in ledger order; `metadata.ledgerbench.attempt` keeps the ledger's |
 * | the plan's, the task list's or else the ledger's tasks | `eval.dataset.sample_ids`, `samples` | the denominator: a task without a sample is missing on import |
 * | `attempts_per_task` (plan, task list) | `eval.config.epochs` | else the most epochs a task has |
 * | scored, `resolved` | `scores.ledgerbench.value` | `"C"` / `"I"` (Inspect's CORRECT, INCORRECT) |
 * | the agent's resolved rate (`summarizeAgents`) | `results.scores[0].metrics.accuracy` | Inspect's `accuracy()` of C 1, I 0 over the scored samples; absent when none is scored |
 * | invalid | `sample.error` (no score) | message `invalid (<reason>)` and the notes; Inspect leaves such samples unscored |
 * | `prompt_tokens`, `completion_tokens` | `model_usage.<model>` `input_tokens`, `output_tokens`, `total_tokens` | only when both are recorded: a null stays absent, never 0; the model is the provenance's, else the agent id |
 * | `provenance.reported_cost_usd` | `model_usage.<model>.total_cost` | when recorded |
 * | `wall_ms` | `total_time` (seconds) | when recorded |
 * | `started_at`, `finished_at` | `started_at`, `completed_at` | when recorded |
 * | a stop at a cap whose value the row records | `limit` (`token`, `message`, `time`) | |
 * | an imported row's kept conversation | `input`, `target`, `messages`, `output`, `events`, `attachments`, `events_data` | given back as the source held them |
 * | a runner row's stored model calls, an imported Harbor trial's trajectory | `messages` | the calls' messages, the trajectory's steps, in order (`episodeMessages`); `input` the first user message; `target` empty (the verifier's files are never written) |
 * | the row itself | `metadata.ledgerbench` | episode id, run, attempt, ledger line, status, reasons, notes, provenance, the errata that changed it |
 *
 * @module
 */
import type { Episode } from "../analysis/schema/records.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { summarizeAgents } from "../analysis/summarize_agents.ts";
import type { TranscriptMessage } from "../viewer/transcript.ts";
import { uniqueFileName } from "./_export_names.ts";
import { type ExportContext, type ExportRow as Row, rowMetadata } from "./_export_row.ts";
import { toolArguments } from "./_tool_arguments.ts";

/** Inspect's log format version written (`LOG_SCHEMA_VERSION` in `_util/constants.py` at 499e615). */
export const INSPECT_LOG_VERSION = 2;

/** The Inspect release whose log format is written (`eval.packages.inspect_ai`). */
export const INSPECT_FORMAT_RELEASE = "0.3.260";

/** The scorer every sample's verdict is recorded under. */
export const LEDGER_SCORER = "ledgerbench";

/** What a row's conversation is for Inspect: an imported sample's kept members, messages, or none. */
export type RowConversation =
  | { kind: "kept"; members: Record<string, unknown> }
  | { kind: "messages"; messages: TranscriptMessage[] }
  | null;

/** One row to export to Inspect. */
type ExportRow = Row<RowConversation>;

/** One log: its agent, its file name and its ZIP entries in order. */
export interface InspectLogFile {
  agent_id: string;
  /**
   * `<agent>.eval`: the agent id with every character outside `[A-Za-z0-9._-]`, and a leading
   * dot, as `_`; `-2`, `-3`... after a name another agent already took.
   */
  name: string;
  samples: number;
  entries: [string, unknown][];
}

type Obj = Record<string, unknown>;

/**
 * One Inspect `.eval` log per agent, in the order agents first appear in
 * the rows, by the rules of the module table. Deterministic: the same rows
 * and context give the same entries, whose objects hold their members in
 * the order Inspect's models declare them; times and ids are taken from the
 * rows and the ledger's SHA-256, never from the clock. O(rows + the size of
 * their conversations).
 *
 * @param rows the rows to export, errata applied, in ledger order
 * @param context the ledger, the errata and the denominator
 * @returns the logs
 * @example
 * ```ts
 * import { inspectLogs } from "./_inspect_export.ts";
 * import { Episode } from "../analysis/schema/records.ts";
 * const row = Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t1", seed: 1, resolved: true, prompt_tokens: 10,
 *   completion_tokens: 5, tool_calls: 0, wall_ms: 1500, price_table_id: "p",
 * });
 * const [log] = inspectLogs([{ row, line: 1, corrections: [], conversation: null }], {
 *   ledger: { path: "l.jsonl", sha256: "0".repeat(64) },
 *   errata: null,
 *   denominator: { source: "ledger", file: null, tasks: ["t1"], attempts_per_task: null },
 * });
 * const sample = log.entries.find(([name]) => name === "samples/t1_epoch_1.json")![1] as {
 *   scores: { ledgerbench: { value: string } };
 * };
 * if (log.name !== "a.eval" || sample.scores.ledgerbench.value !== "C") throw new Error();
 * ```
 */
export function inspectLogs(
  rows: readonly ExportRow[],
  context: ExportContext,
): InspectLogFile[] {
  const byAgent = new Map<string, ExportRow[]>();
  for (const entry of rows) {
    const list = byAgent.get(entry.row.agent_id) ?? [];
    list.push(entry);
    byAgent.set(entry.row.agent_id, list);
  }
  const names = new Set<string>();
  return [...byAgent.entries()].map(([agent, list]) =>
    agentLog(agent, `${uniqueFileName(agent, names)}.eval`, list, context)
  );
}

/** The log of one agent's rows. */
function agentLog(
  agent: string,
  name: string,
  rows: readonly ExportRow[],
  context: ExportContext,
): InspectLogFile {
  const epochs = epochNumbers(rows);
  const samples = rows.map((entry, i) => sample(entry, epochs[i], context));
  const maxEpoch = Math.max(1, ...epochs);
  const spec = evalSpec(agent, rows, context, maxEpoch);
  const plan = { name: "plan", steps: [], config: {} };
  const [standing] = summarizeAgents(rows.map((entry) => entry.row));
  const scored = standing.scored;
  const header = {
    version: INSPECT_LOG_VERSION,
    status: "success",
    eval: spec,
    plan,
    results: {
      total_samples: samples.length,
      completed_samples: scored,
      scores: [{
        name: LEDGER_SCORER,
        scorer: LEDGER_SCORER,
        scored_samples: scored,
        unscored_samples: samples.length - scored,
        params: {},
        // Inspect's accuracy() over the C/I values: the agent's resolved rate
        metrics: standing.resolved_rate === null
          ? {}
          : { accuracy: { name: "accuracy", value: standing.resolved_rate, params: {} } },
      }],
    },
    stats: stats(rows),
    invalidated: false,
  };
  const entries: [string, unknown][] = [
    ["_journal/start.json", { version: INSPECT_LOG_VERSION, eval: spec, plan }],
    ...samples.map((s): [string, unknown] => [`samples/${s.id}_epoch_${s.epoch}.json`, s]),
    ["summaries.json", samples.map(summary)],
    ["reductions.json", reductions(samples)],
    ["header.json", header],
  ];
  return { agent_id: agent, name, samples: samples.length, entries };
}

/**
 * Each row's epoch: its attempt, unless the agent already has that attempt
 * of the task (rows of several runs), then the next number above the
 * task's highest, in ledger order.
 */
function epochNumbers(rows: readonly ExportRow[]): number[] {
  const taken = new Map<string, Set<number>>();
  return rows.map(({ row }) => {
    const set = taken.get(row.task_id) ?? new Set<number>();
    taken.set(row.task_id, set);
    const epoch = set.has(row.attempt) ? Math.max(...set) + 1 : row.attempt;
    set.add(epoch);
    return epoch;
  });
}

/** A stable 22-character id of text (as long as Inspect's shortuuid ids): its SHA-256's first hex digits. */
function stableId(text: string): string {
  return sha256Hex(text).slice(0, 22);
}

/** The earliest of the rows' start times, else the Unix epoch (never the clock). */
function created(rows: readonly ExportRow[]): string {
  const times = rows.flatMap(({ row }) => row.started_at === null ? [] : [row.started_at]).sort();
  return times[0] ?? "1970-01-01T00:00:00.000Z";
}

function evalSpec(
  agent: string,
  rows: readonly ExportRow[],
  context: ExportContext,
  maxEpoch: number,
): Obj {
  const runs = [...new Set(rows.map(({ row }) => row.run_id))];
  const key = `${context.ledger.sha256}\u0000${agent}`;
  return {
    eval_id: stableId(`eval ${key}`),
    run_id: runs.length === 1 ? runs[0] : stableId(`run ${key}`),
    created: created(rows),
    task: LEDGER_SCORER,
    task_id: stableId(`task ${key}`),
    task_version: 0,
    task_attribs: {},
    task_args: {},
    task_args_passed: {},
    dataset: {
      name: context.ledger.path.replace(/^.*\//, ""),
      location: context.ledger.path,
      samples: context.denominator.tasks.length,
      sample_ids: [...context.denominator.tasks],
      shuffled: false,
    },
    model: agent,
    model_generate_config: {},
    model_args: {},
    config: { epochs: context.denominator.attempts_per_task ?? maxEpoch },
    packages: { inspect_ai: INSPECT_FORMAT_RELEASE },
    metadata: {
      ledgerbench: {
        exported_by: "ledgerbench export inspect",
        ledger: context.ledger.path,
        ledger_sha256: context.ledger.sha256,
        errata: context.errata,
        denominator: {
          source: context.denominator.source,
          file: context.denominator.file,
          tasks: context.denominator.tasks.length,
          attempts_per_task: context.denominator.attempts_per_task,
        },
        runs,
      },
    },
  };
}

/** The model a row's tokens are recorded under: the provenance's, else the agent id. */
function modelOf(row: Episode): string {
  return row.provenance?.model ?? row.agent_id;
}

/** The row's `ModelUsage`, or null when its tokens are not both recorded. */
function usage(row: Episode): Obj | null {
  if (row.prompt_tokens === null || row.completion_tokens === null) return null;
  const cost = row.provenance?.reported_cost_usd ?? null;
  return {
    input_tokens: row.prompt_tokens,
    output_tokens: row.completion_tokens,
    total_tokens: row.prompt_tokens + row.completion_tokens,
    ...(cost === null ? {} : { total_cost: cost }),
  };
}

/** Summed usage per model over the rows that record tokens. */
function stats(rows: readonly ExportRow[]): Obj {
  const byModel: Record<string, Obj> = {};
  for (const { row } of rows) {
    const own = usage(row);
    if (own === null) continue;
    const model = modelOf(row);
    const sum = byModel[model] ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    for (const field of ["input_tokens", "output_tokens", "total_tokens", "total_cost"]) {
      if (own[field] !== undefined) {
        sum[field] = ((sum[field] as number) ?? 0) + (own[field] as number);
      }
    }
    byModel[model] = sum;
  }
  const started = rows.flatMap(({ row }) => row.started_at ?? []).sort();
  const finished = rows.flatMap(({ row }) => row.finished_at ?? []).sort();
  return {
    started_at: started[0] ?? "",
    completed_at: finished.at(-1) ?? "",
    model_usage: byModel,
  };
}

/** The Inspect limit type of a stop at a cap, and the cap's field. */
const CAP_LIMITS = {
  token_cap: { type: "token", cap: "token_cap" },
  step_cap: { type: "message", cap: "step_cap" },
  wall_cap: { type: "time", cap: "wall_ms_cap" },
} as const;

/** The sample's `limit`: a stop at a cap whose value the row records (time in seconds). */
function limit(row: Episode): Obj | null {
  const known = (CAP_LIMITS as Record<string, { type: string; cap: keyof Episode["caps"] }>)[
    row.stop_reason
  ];
  const value = known === undefined ? null : row.caps[known.cap];
  if (known === undefined || value === null) return null;
  return { type: known.type, limit: known.cap === "wall_ms_cap" ? value / 1000 : value };
}

type Sample = Obj & { id: string; epoch: number };

function sample(entry: ExportRow, epoch: number, context: ExportContext): Sample {
  const { row } = entry;
  const conversation = entry.conversation;
  const kept = conversation?.kind === "kept" ? conversation.members : {};
  const messages = conversation?.kind === "messages"
    ? conversation.messages.flatMap(chatMessages)
    : Array.isArray(kept.messages)
    ? kept.messages
    : [];
  const firstUser = messages.find((m) => (m as Obj).role === "user") as Obj | undefined;
  const own = usage(row);
  const stop = limit(row);
  return {
    id: row.task_id,
    epoch,
    input: kept.input ?? (typeof firstUser?.content === "string" ? firstUser.content : ""),
    target: kept.target ?? "",
    messages,
    ...(kept.output === undefined ? {} : { output: kept.output }),
    ...(row.status === "scored"
      ? { scores: { [LEDGER_SCORER]: { value: row.resolved ? "C" : "I" } } }
      : {}),
    metadata: { ledgerbench: rowMetadata(entry, context) },
    store: {},
    // absent, not []: the importer reads an empty list as "no model or tool call", absent as not recorded
    ...(kept.events === undefined ? {} : { events: kept.events }),
    model_usage: own === null ? {} : { [modelOf(row)]: own },
    ...(row.started_at === null ? {} : { started_at: row.started_at }),
    ...(row.finished_at === null ? {} : { completed_at: row.finished_at }),
    ...(row.wall_ms === null ? {} : { total_time: row.wall_ms / 1000 }),
    ...(row.status === "invalid"
      ? {
        error: {
          message: `invalid (${row.invalid_reason})${row.notes === "" ? "" : `: ${row.notes}`}`,
          traceback: "",
          traceback_ansi: "",
        },
      }
      : {}),
    attachments: kept.attachments ?? {},
    ...(kept.events_data === undefined ? {} : { events_data: kept.events_data }),
    ...(stop === null ? {} : { limit: stop }),
  };
}

/**
 * A transcript message as Inspect chat messages: its text parts one
 * message of its role (`system`, `user`, `assistant`, `tool`; `developer`
 * is `system`, a role starting with `assistant` is `assistant`, another
 * role is a `user` message naming it), its tool calls the assistant's
 * `tool_calls` (arguments parsed when they are a JSON object, else kept
 * as `{"input": <text>}`), each tool result a `tool` message of its own.
 */
function chatMessages(message: TranscriptMessage): Obj[] {
  const role = message.role === "developer"
    ? "system"
    : message.role.startsWith("assistant")
    ? "assistant"
    : ["system", "user", "tool"].includes(message.role)
    ? message.role
    : "user";
  const prefix = role === "user" && message.role !== "user" ? `[${message.role}] ` : "";
  const texts = message.parts.flatMap((part) => part.kind === "text" ? [part.text] : []);
  const calls = message.parts.flatMap((part, i) =>
    part.kind === "tool_call"
      ? [{
        id: part.id ?? `call_${i + 1}`,
        function: part.name,
        arguments: toolArguments(part.arguments),
        type: "function",
      }]
      : []
  );
  const out: Obj[] = [];
  if (texts.length > 0 || calls.length > 0) {
    out.push({
      content: prefix + texts.join("\n"),
      role: role === "tool" ? "user" : role,
      ...(calls.length > 0 && role === "assistant" ? { tool_calls: calls } : {}),
    });
  }
  for (const part of message.parts) {
    if (part.kind === "tool_result") {
      out.push({ content: part.text, role: "tool", tool_call_id: part.id });
    }
  }
  return out;
}

/** A sample's `EvalSampleSummary`: the sample less its messages, events and store. */
function summary(s: Sample): Obj {
  const error = s.error as { message: string } | undefined;
  const stop = s.limit as { type: string } | undefined;
  return {
    id: s.id,
    epoch: s.epoch,
    input: s.input,
    target: s.target,
    metadata: {},
    ...(s.scores === undefined ? {} : { scores: s.scores }),
    model_usage: s.model_usage,
    ...(s.started_at === undefined ? {} : { started_at: s.started_at }),
    ...(s.completed_at === undefined ? {} : { completed_at: s.completed_at }),
    ...(s.total_time === undefined ? {} : { total_time: s.total_time }),
    ...(error === undefined ? {} : { error: error.message }),
    ...(stop === undefined ? {} : { limit: stop.type }),
    completed: true,
    message_count: (s.messages as unknown[]).length,
  };
}

/**
 * `reductions.json`: per task, the mean of its scored epochs' values (C 1,
 * I 0; Inspect's default reducer `mean`), tasks without a scored epoch left
 * out.
 */
function reductions(samples: readonly Sample[]): Obj[] {
  const byTask = new Map<string, number[]>();
  for (const s of samples) {
    const score = (s.scores as Record<string, { value: string }> | undefined)?.[LEDGER_SCORER];
    if (score === undefined) continue;
    const scores = byTask.get(s.id);
    const correct = score.value === "C" ? 1 : 0;
    if (scores === undefined) byTask.set(s.id, [correct]);
    else scores.push(correct);
  }
  return [{
    scorer: LEDGER_SCORER,
    reducer: "mean",
    samples: [...byTask.entries()].map(([id, values]) => ({
      value: values.reduce((a, b) => a + b, 0) / values.length,
      sample_id: id,
    })),
  }];
}
