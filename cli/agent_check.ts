/**
 * `ledgerbench agent check` (issue 21, "Invalid only when the harness
 * failed"): one short episode per agent against a scripted provider, in the
 * Docker sandbox through the runner's one episode path
 * (runner/check_agents.ts); an agent that makes no metered model call is
 * refused, and `freeze --agent-check FILE` refuses to plan it. The command
 * `agent` has one subcommand so far, `check`.
 *
 * @module
 */
import { outputWidth, WIDTH_OPTION, widthHelpAt } from "./_table_layout.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { AgentCheck, type AgentCheckAgent } from "../analysis/schema/records.ts";
import { displayId, lineText } from "../analysis/untrusted_text.ts";
import { UPSTREAM_KINDS, type UpstreamKind } from "../runner/relay/api/upstream_kind.ts";
import { plural } from "../report/format.ts";
import {
  type NumberOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  stringOption,
} from "./_args.ts";
import { ExitCode, InputError, type Io, runSubcommand, UsageError } from "./_command.ts";
import { WALL_MS_CAP_RANGE } from "./_option_ranges.ts";
import { emit } from "./_output.ts";
import { agentCommandOption, agentEnvOption, pairsOption, upstreamKindOption } from "./freeze.ts";
import { AgentCheckError, CHECK_WALL_MS, checkAgents } from "../runner/check_agents.ts";

/** `--wall-ms`: the wall cap of each check episode. */
const WALL_MS: NumberOption = { name: "wall-ms", range: WALL_MS_CAP_RANGE };

/** Help text, an example first. */
export const help = `Check agents before a batch (issue 21): each agent runs ONE short episode
in the Docker sandbox, through the same episode path as "run" (relay,
verifier, ledger row), on a built-in task ("reply with the word done"),
against a scripted provider that answers every model call, of any API, with
a short final answer. Requests the relay refuses are the agent's choice, and
a row without a metered model call is a scored failure: an agent that makes
none here would score 0 on every task, so it is refused now.

Check the solver image and the Codex CLI image, and keep the result for freeze:
  deno task ledgerbench agent check \\
    --agent solver=ledgerbench/agent-solver:latest \\
    --agent codex=ledgerbench/agent-codex:latest --out agent-check.json
  deno task ledgerbench freeze --suite ~/.ledgerbench/suite --out plan.json \\
    --agent solver=ledgerbench/agent-solver:latest \\
    --agent codex=ledgerbench/agent-codex:latest --agent-check agent-check.json

Claude Code speaks the Messages API: give its upstream kind:
  deno task ledgerbench agent check --agent claude=ledgerbench/agent-claude:latest \\
    --upstream-kind claude=anthropic --agent-env claude:IS_SANDBOX=1

USAGE:
  deno task ledgerbench agent check --agent ID=IMAGE... [OPTIONS]

Per agent it prints the metered model calls, the first call's endpoint, the
prompt bound and output cap the relay recorded for it (under a large token
cap, so the output cap is the one the agent asked for, or "none asked" when
the relay had to set one), every refused model call with its refusal, every
refused request outside the model APIs with its method and target, the
episode's row in short, and the verdict: "ok" (at least one metered model
call) or "refused: no metered model call". Text from the agent is escaped.

OPTIONS:
  --agent ID=IMAGE         An agent and its image reference (never pulled); repeat
  --model ID=MODEL         The model name agent ID requests (LEDGERBENCH_MODEL)
  --agent-env ID:NAME=VALUE
                           An environment variable for agent ID's container, as
                           "freeze" takes it; repeat
  --agent-command ID=JSON  The command replacing the CMD of agent ID's image, a
                           JSON array of strings, as "freeze" takes it
  --upstream-kind ID=KIND  The upstream kind the relay meters for agent ID:
                           ${UPSTREAM_KINDS.join(" or ")} (default openai), as the KIND+ of
                           "run --upstream ID=KIND+URL"
  --wall-ms N              Wall clock of each check episode in ms, ${rangeText(WALL_MS.range)}
                           (default ${CHECK_WALL_MS})
  --out FILE               Write the result as JSON (the AgentCheck record of
                           analysis/schema/records.ts; replaced if it exists), for
                           "freeze --agent-check FILE"
${widthHelpAt(27)}
  --json                   Print the result as canonical JSON
  -h, --help               This help

"freeze --agent-check FILE" refuses an agent of the plan that failed the check
or is not in it (matched by agent id and image digest), warns when the plan's
token cap is below what an agent's first call requests (its prompt bound plus
its output cap: the relay will lower the output cap; below the prompt bound
plus 1: every call will be refused), and records the file's SHA-256 in the
plan.

EXIT STATUS:
  0 every agent made a metered model call; 1 usage error; 2 bad input (an
  image that is not present); 3 an agent was refused, or no Docker engine
  (the check runs in the sandbox)
`;

const OPTIONS = {
  agent: { type: "string", multiple: true },
  model: { type: "string", multiple: true },
  "agent-env": { type: "string", multiple: true },
  "agent-command": { type: "string", multiple: true },
  "upstream-kind": { type: "string", multiple: true },
  "wall-ms": { type: "string" },
  out: { type: "string" },
  ...WIDTH_OPTION,
} as const;

/** Runs `agent <subcommand>`; see {@link help}. */
export function run(args: string[], io: Io): Promise<number> {
  return runSubcommand({ check: runCheck }, args, io);
}

/** One agent to check, as parsed from the options. */
export interface ParsedAgent {
  agent_id: string;
  image: string;
  model: string | null;
  env?: Record<string, string>;
  command?: string[];
  upstream_kind: UpstreamKind;
}

/**
 * Parses `agent check`'s agents with `freeze`'s own parsers (`--agent`,
 * `--model`, `--agent-env`, `--agent-command`) and its `--upstream-kind`.
 *
 * @param values the parsed options
 * @returns the agents, in `--agent` order
 * @throws {UsageError} on a malformed item, an unknown agent or kind, or no `--agent`
 */
export function agentsOption(values: Record<string, unknown>): ParsedAgent[] {
  const agents = pairsOption(values, "agent");
  if (agents.size === 0) throw new UsageError('Missing option: "--agent" (at least one agent)');
  const ids = new Set(agents.keys());
  const notAgent = (option: string, id: string) =>
    new UsageError(`Option "--${option}" names "${id}", which is not an --agent`);
  const models = pairsOption(values, "model");
  for (const id of models.keys()) if (!ids.has(id)) throw notAgent("model", id);
  const kinds = upstreamKindOption(values, ids);
  const envs = agentEnvOption(values, ids);
  const commands = agentCommandOption(values, ids);
  return [...agents].map(([id, image]) => ({
    agent_id: id,
    image,
    model: models.get(id) ?? null,
    ...(envs.has(id) ? { env: envs.get(id) } : {}),
    ...(commands.has(id) ? { command: commands.get(id) } : {}),
    upstream_kind: kinds.get(id) ?? "openai",
  }));
}

/**
 * Runs `agent check`; see {@link help}.
 *
 * @param args the arguments after `check`
 * @param io where to write
 * @returns 0 when every agent passed, 3 when one was refused or no engine answers
 * @throws {UsageError} on bad options
 * @throws {InputError} when an image is not present
 */
export async function runCheck(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, OPTIONS);
  const width = outputWidth(values);
  const agents = agentsOption(values);
  const wallMs = numberOption(values, WALL_MS) ?? CHECK_WALL_MS;
  const out = stringOption(values, "out");
  const { dockerAvailable } = await import("../runner/docker/docker_available.ts");
  const engine = await dockerAvailable();
  if (!engine.available) {
    io.stderr(
      `error: Cannot check the agents: ${engine.reason} (the check runs in the Docker sandbox)\n`,
    );
    return ExitCode.refused;
  }
  const { createProgress } = await import("../runner/progress.ts");
  let result;
  try {
    result = AgentCheck.parse(
      await checkAgents(agents, {
        wallMs,
        progress: createProgress(),
        log: (line) => io.stderr(`${lineText(line)}\n`),
      }),
    );
  } catch (error) {
    if (error instanceof AgentCheckError) throw new InputError(error.message);
    throw error;
  }
  if (out !== undefined) await Deno.writeTextFile(out, canonicalJson(result));
  emit(io, {
    json: values.json === true,
    width,
    payload: result,
    render: () => {
      const ok = result.agents.filter((agent) => agent.verdict === "ok").length;
      return [
        ...result.agents.flatMap(agentLines),
        `${result.passed ? "passed" : "REFUSED"}: ${ok} of ${
          plural(result.agents.length, "agent")
        } made a metered model call (token cap ${result.token_cap}, runner ${
          lineText(result.runner_version)
        })`,
        ...(out === undefined ? [] : [`written: ${lineText(out)}`]),
        "",
      ].join("\n");
    },
  });
  return result.passed ? ExitCode.ok : ExitCode.refused;
}

/**
 * One agent's lines of the text report; every string from the agent, its
 * image or its calls escaped to one line.
 *
 * @param agent the agent's result
 * @returns its lines
 */
export function agentLines(agent: AgentCheckAgent): string[] {
  const verdict = agent.verdict === "ok" ? "ok" : `refused: ${lineText(agent.reason ?? "")}`;
  const call = agent.first_call;
  const cap = (n: number | null) => (n === null ? "none" : String(n));
  return [
    `agent ${displayId(agent.agent_id)}: ${verdict}`,
    `  image: ${lineText(agent.image)} ${agent.image_digest} (upstream ${agent.upstream_kind}${
      agent.model === null ? "" : `, model ${displayId(agent.model)}`
    })`,
    `  metered model calls: ${agent.model_calls}`,
    call === null ? "  first call: none" : `  first call: POST ${lineText(call.endpoint)}, ` +
      `prompt bound ${cap(call.prompt_bound)}, output cap asked ${
        call.requested_output_cap === null ? "none" : call.requested_output_cap
      }, forwarded with ${cap(call.output_cap)}${
        call.cap_lowered === true ? " (set by the relay)" : ""
      }`,
    `  refused model calls: ${agent.refused_calls.length === 0 ? "none" : ""}`.trimEnd(),
    ...agent.refused_calls.map((refused) =>
      `    #${refused.index} POST ${lineText(refused.endpoint)}: ${lineText(refused.refusal)} ` +
      `(${refused.status})${refused.detail === "" ? "" : `: ${lineText(refused.detail)}`}`
    ),
    `  refused requests: ${agent.denied_requests.length === 0 ? "none" : ""}`.trimEnd(),
    ...agent.denied_requests.map((denied) =>
      `    ${lineText(denied.method)} ${lineText(denied.target)}: ${denied.status} ${
        lineText(denied.code)
      }`
    ),
    agent.episode === null
      ? "  episode: no row"
      : `  episode: ${agent.episode.status}${
        agent.episode.invalid_reason === null ? "" : ` (${agent.episode.invalid_reason})`
      }, stop ${agent.episode.stop_reason}${
        agent.episode.notes === "" ? "" : `: ${lineText(agent.episode.notes)}`
      }`,
  ];
}
