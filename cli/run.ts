/**
 * `ledgerbench run`: runs (or resumes) the batch of a frozen plan in Docker,
 * appending one hash-chained, fsynced ledger row per attempt.
 *
 * @module
 */
import { loadPlan } from "../inputs/plan.ts";
import { dockerAvailable } from "../runner/docker/docker_available.ts";
import { BatchHaltedError, describeHalt } from "../runner/run_batch.ts";
import { EnvironmentMismatchError } from "../runner/environment_check.ts";
import { LedgerLockedError } from "../runner/ledger_lock.ts";
import type { Upstream } from "../runner/relay/upstream.ts";
import {
  type ScriptedUpstream,
  startScriptedUpstream,
  upstreamKindOf,
} from "./_upstream_options.ts";
import { runPlan } from "../runner/run_plan.ts";
import { createProgress } from "../runner/progress.ts";
import {
  type NumberOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  stringOption,
  textOption,
} from "./_args.ts";
import { EpisodeInput } from "../analysis/schema/records.ts";
import { PARALLEL_RANGE } from "./_option_ranges.ts";
import { ExitCode, type Io, UsageError } from "./_command.ts";
import { emit } from "./_output.ts";
import { pairsOption } from "./freeze.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import {
  JUDGE_UPSTREAM_HELP,
  JUDGE_UPSTREAM_OPTIONS,
  type JudgeUpstream,
  judgeUpstreamOption,
} from "./_judge_upstream.ts";

/** `--parallel`: episodes at once. */
const PARALLEL: NumberOption = { name: "parallel", range: PARALLEL_RANGE };
/** Episodes at once when `--parallel` is absent: one, rows in plan order. */
const DEFAULT_PARALLEL = 1;

/** `--run-id`: the ledger rows' `run_id`. */
const RUN_ID = { name: "run-id", schema: EpisodeInput.shape.run_id, form: "a non-empty id" };

/** Exit status of a batch interrupted by the operator with Ctrl-C (128 + SIGINT). */
export const INTERRUPTED = 130;

/** Exit status of a batch stopped by SIGTERM (128 + SIGTERM). */
export const TERMINATED = 143;

/** Help text, an example first. */
export const help = `Run the batch of a frozen plan: every episode in a sandboxed container
(--network none, read-only root, no capabilities, no-new-privileges, pids 128,
1 GB), model calls only through the host relay (which alone holds the key and
records the evidence), the verifier in its own container, one hash-chained,
fsynced ledger row per attempt (invalid ones included). The run refuses a plan
whose hash, runner version, suite hash or image digests differ, and stops if
an image digest changes before an episode.

Run a plan against an OpenAI-compatible upstream (key from the environment),
two episodes at a time:
  LEDGERBENCH_UPSTREAM_KEY=... deno task ledgerbench run --plan plan.json \\
    --suite ~/.ledgerbench/suite --ledger runs/r1/ledger.jsonl \\
    --upstream https://api.example.com/v1 --parallel 2

Resume it after a crash or a kill (no episode lost or duplicated):
  deno task ledgerbench run --plan plan.json --suite ~/.ledgerbench/suite \\
    --ledger runs/r1/ledger.jsonl --upstream https://api.example.com/v1 --resume

An Anthropic upstream for agent claude (Messages API, key sent as x-api-key),
an OpenAI one for the others:
  LEDGERBENCH_UPSTREAM_KEY=... deno task ledgerbench run --plan plan.json \\
    --suite ~/.ledgerbench/suite --ledger runs/r2/ledger.jsonl \\
    --upstream https://api.openai.com/v1 \\
    --upstream claude=anthropic+https://api.anthropic.com/v1

Against scripted providers (tests, demos), one script per agent:
  deno task ledgerbench run --plan plan.json --suite suite --ledger l.jsonl \\
    --provider-script solver=solver_script.json --provider-script looper=looper.json

USAGE:
  deno task ledgerbench run --plan PLAN --suite DIR --ledger FILE UPSTREAM [OPTIONS]

UPSTREAM (one of):
  --upstream [ID=][KIND+]URL  Upstream base URL ending in /v1, for every agent
                             or for agent ID (repeat). KIND is openai (the
                             default: Chat Completions, Completions, Responses;
                             key sent as Authorization: Bearer) or anthropic
                             (Messages; key sent as x-api-key): the relay
                             meters and forwards that kind's model calls only
                             and refuses the other's. The key is read from the
                             environment variable LEDGERBENCH_UPSTREAM_KEY and
                             lives in the relay only
  --provider-script [ID=][KIND+]FILE  Start a scripted provider answering from
                             FILE (a ProviderScript JSON), for every agent or
                             agent ID, its kind as for --upstream
  --expect-model ID          Evidence gate: calls must be served by this model id

JUDGE (needed when the suite has a judged task, issue 14):
${JUDGE_UPSTREAM_HELP}

OPTIONS:
  --plan FILE          The frozen plan (its hash is checked against FILE.sha256)
  --plan-sha256 HEX    The published plan hash, instead of FILE.sha256
  --suite DIR          The suite the plan was frozen on (its hash is checked)
  --ledger FILE        The ledger to append to (refused if it holds rows,
                       unless --resume); its directory must exist. A run
                       holds FILE.lock while it runs: a second runner on the
                       same ledger is refused, naming the holder
  --run-id ID          Run id, the first part of every episode id (default:
                       the plan id); a run redone after a halt needs a new one
  --resume             Continue the ledger of an interrupted run; a torn final
                       line is moved to FILE.torn.jsonl and reported
  --parallel N         Episodes at once, ${rangeText(PARALLEL.range)} (default
                       ${DEFAULT_PARALLEL}); rows are appended in completion order,
                       episode ids stay deterministic; an SPRT agent keeps one
                       episode in flight
  --artifacts DIR      Artifact store (default: artifacts/ beside the ledger)
  --unsandboxed        Run candidates as host processes: NOT isolated; only
                       with this flag, and every row records sandbox
                       "unsandboxed"; needs --agent-command for each agent.
                       The runner version and the suite hash are checked as
                       in a sandboxed run (no image is: none runs)
  --agent-command ID=CMD  Host command of agent ID (split on spaces)
  --json               Print the outcome as canonical JSON
  -h, --help           This help

Progress goes to stderr: a bar on a terminal, one line per episode otherwise.
Ctrl-C or SIGTERM stops starting episodes: running ones finish and are
recorded, then the run exits (resume later). A second Ctrl-C or SIGTERM kills
the running episodes: they are not recorded (nothing is written for them, not
even a failure) and --resume runs them. A SIGKILL of the runner leaves their
containers, which --resume removes before it runs them.

EXIT STATUS:
  0 the batch is complete (every task, or every agent's SPRT decision);
  1 usage error; 2 bad input (plan hash, plan, suite or ledger unreadable,
  ledger directory missing, ledger of another run); 3 refused or halted (no
  Docker engine, another runner holds the ledger's lock, environment differs
  from the plan, the batch halted under its invalid policy or on an image
  change); 130 interrupted by Ctrl-C; 143 stopped by SIGTERM
`;

const OPTIONS = {
  plan: { type: "string" },
  "plan-sha256": { type: "string" },
  suite: { type: "string" },
  ledger: { type: "string" },
  "run-id": { type: "string" },
  resume: { type: "boolean" },
  parallel: { type: "string" },
  artifacts: { type: "string" },
  upstream: { type: "string", multiple: true },
  "provider-script": { type: "string", multiple: true },
  "expect-model": { type: "string", multiple: true },
  unsandboxed: { type: "boolean" },
  "agent-command": { type: "string", multiple: true },
  ...JUDGE_UPSTREAM_OPTIONS,
} as const;

/** Splits `[ID=]VALUE` items into a default and per-agent values. */
function perAgent(
  items: string[] | undefined,
): { all: string | null; byAgent: Map<string, string> } {
  let all: string | null = null;
  const byAgent = new Map<string, string>();
  for (const item of items ?? []) {
    const match = /^([A-Za-z0-9_.-]+)=(.+)$/.exec(item);
    if (match !== null && !/^[a-z+]+:\/\//.test(item)) byAgent.set(match[1], match[2]);
    else if (all === null) all = item;
    else throw new UsageError(`Two defaults given for one option: "${all}" and "${item}"`);
  }
  return { all, byAgent };
}

/** Runs `run`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, OPTIONS);
  const plan = stringOption(values, "plan");
  const suite = stringOption(values, "suite");
  const ledger = stringOption(values, "ledger");
  if (plan === undefined) throw new UsageError('Missing option: "--plan"');
  if (suite === undefined) throw new UsageError('Missing option: "--suite"');
  if (ledger === undefined) throw new UsageError('Missing option: "--ledger"');
  const parallel = numberOption(values, PARALLEL) ?? DEFAULT_PARALLEL;
  const runId = textOption(values, RUN_ID);
  const upstreams = perAgent(values.upstream as unknown as string[] | undefined);
  const scripts = perAgent(values["provider-script"] as unknown as string[] | undefined);
  const usesUpstream = upstreams.all !== null || upstreams.byAgent.size > 0;
  const usesScripts = scripts.all !== null || scripts.byAgent.size > 0;
  if (usesUpstream === usesScripts) {
    throw new UsageError('Give exactly one of "--upstream" and "--provider-script"');
  }
  const expected = (values["expect-model"] as unknown as string[] | undefined) ?? [];
  const unsandboxed = values.unsandboxed === true;
  const commands = pairsOption(values, "agent-command");
  if (!unsandboxed && commands.size > 0) {
    throw new UsageError('Option "--agent-command" needs "--unsandboxed"');
  }

  if (!unsandboxed) {
    const engine = await dockerAvailable();
    if (!engine.available) {
      io.stderr(
        `error: No Docker engine is reachable: ${engine.reason}\n` +
          `Nothing was run: candidates only run sandboxed, unless --unsandboxed is given ` +
          `(and then every row records sandbox "unsandboxed").\n` +
          `Meanwhile the shipped example ledgers can be analysed, e.g.:\n` +
          `  deno task ledgerbench summarize ledgers/examples/synthetic_ledger.jsonl ` +
          `--plan ledgers/examples/synthetic_plan.json --errata ledgers/examples/synthetic_errata.jsonl\n`,
      );
      return ExitCode.refused;
    }
  }

  // Read once, through the schema, its hash checked: the agents name the upstreams to start.
  const frozen = await loadPlan(plan, {
    frozen: true,
    expectedSha256: stringOption(values, "plan-sha256"),
  });

  const providers: ScriptedUpstream[] = [];
  const started = new Map<string, Upstream>();
  const scriptUpstream = async (value: string): Promise<Upstream> => {
    const { kind, target: file } = upstreamKindOf(value);
    let upstream = started.get(file);
    if (upstream === undefined) {
      const provider = await startScriptedUpstream(file);
      providers.push(provider);
      upstream = provider.upstream;
      started.set(file, upstream);
    }
    return { ...upstream, kind };
  };
  const key = Deno.env.get("LEDGERBENCH_UPSTREAM_KEY") ?? "";
  if (usesUpstream && key === "") {
    throw new UsageError(
      'The upstream key must be in the environment variable "LEDGERBENCH_UPSTREAM_KEY"',
    );
  }
  const resolved = new Map<string, Upstream>();
  const upstreamFor = (agentId: string): Upstream => {
    const found = resolved.get(agentId);
    if (found === undefined) throw new UsageError(`No upstream for agent "${agentId}"`);
    return found;
  };

  // SIGINT and SIGTERM alike: the first stops starting episodes, the second aborts the running ones.
  const controller = new AbortController();
  const hard = new AbortController();
  let stoppedBy: Deno.Signal | null = null;
  const onSignal = (name: Deno.Signal) => () => {
    if (controller.signal.aborted) {
      io.stderr(`${name}: killing running episodes (not recorded; --resume runs them)\n`);
      hard.abort();
    } else {
      stoppedBy = name;
      io.stderr(
        `${name}: no new episode starts; running ones finish and are recorded ` +
          `(Ctrl-C or SIGTERM again to kill them)\n`,
      );
      controller.abort();
    }
  };
  const listeners = (["SIGINT", "SIGTERM"] as const).map((name) => ({
    name,
    listener: onSignal(name),
  }));
  for (const { name, listener } of listeners) Deno.addSignalListener(name, listener);
  let judge: JudgeUpstream | null = null;
  try {
    judge = await judgeUpstreamOption(values);
    if (frozen.value.judge !== undefined && judge === null) {
      throw new UsageError(
        'The plan has an LLM judge: give "--judge-upstream" or "--judge-provider-script"',
      );
    }
    if (frozen.value.judge === undefined && judge !== null) {
      throw new UsageError("The plan has no LLM judge: its upstream option is not needed");
    }
    for (const { agent_id } of frozen.value.agents) {
      if (usesScripts) {
        const file = scripts.byAgent.get(agent_id) ?? scripts.all;
        if (file === null) throw new UsageError(`No --provider-script for agent "${agent_id}"`);
        resolved.set(agent_id, await scriptUpstream(file));
      } else {
        const value = upstreams.byAgent.get(agent_id) ?? upstreams.all;
        if (value === null) throw new UsageError(`No --upstream for agent "${agent_id}"`);
        const { kind, target: url } = upstreamKindOf(value);
        resolved.set(agent_id, {
          baseUrl: url,
          kind,
          key,
          expectedModelIds: expected.length > 0 ? expected : undefined,
        });
      }
      if (unsandboxed && !commands.has(agent_id)) {
        throw new UsageError(`Option "--unsandboxed" needs "--agent-command ${agent_id}=CMD"`);
      }
    }
    const outcome = await runPlan({
      plan: frozen,
      suite,
      ledger,
      runId,
      resume: values.resume === true,
      parallel,
      artifacts: stringOption(values, "artifacts"),
      upstream: (agent) => upstreamFor(agent.agent_id),
      judgeUpstream: judge?.upstream,
      progress: createProgress(),
      signal: controller.signal,
      hardSignal: hard.signal,
      unsandboxed: unsandboxed
        ? Object.fromEntries(
          [...commands].map(([id, cmd]) => [id, cmd.split(" ").filter((s) => s !== "")]),
        )
        : undefined,
    });
    const status = outcome.halted !== null
      ? ExitCode.refused
      : outcome.interrupted
      ? stoppedBy === "SIGTERM" ? TERMINATED : INTERRUPTED
      : ExitCode.ok;
    emit(io, {
      json: values.json === true,
      payload: {
        run_id: outcome.runId,
        plan_sha256: outcome.plan.sha256,
        ledger,
        replayed: outcome.replayed,
        appended: outcome.appended.length,
        complete: outcome.complete,
        interrupted: outcome.interrupted,
        aborted: outcome.aborted,
        halted: outcome.halted,
        decisions: outcome.decisions,
        torn: outcome.torn,
      },
      render: () =>
        [
          `run ${outcome.runId}: plan ${outcome.plan.path} (sha256 ${outcome.plan.sha256})`,
          `ledger ${ledger}: ${outcome.replayed} rows before, ${outcome.appended.length} appended`,
          ...(outcome.aborted.length === 0 ? [] : [
            `${outcome.aborted.length} running episode(s) killed, not recorded ` +
            `(--resume runs them): ${outcome.aborted.join(", ")}`,
          ]),
          ...(outcome.torn === null ? [] : [
            `torn final line (${outcome.torn.length} bytes) moved to ${outcome.torn.sidecar}`,
          ]),
          ...Object.entries(outcome.decisions).filter(([, d]) => d !== null).map(([agent, d]) =>
            `SPRT ${displayId(agent)}: ${d}`
          ),
          outcome.halted !== null
            ? `halted: ${describeHalt(outcome.halted)}`
            : outcome.interrupted
            ? "interrupted: resume with --resume"
            : "complete",
          "",
        ].join("\n"),
    });
    return status;
  } catch (error) {
    if (
      error instanceof EnvironmentMismatchError || error instanceof BatchHaltedError ||
      error instanceof LedgerLockedError
    ) {
      io.stderr(`error: ${error.message}\n`);
      return ExitCode.refused;
    }
    throw error;
  } finally {
    for (const { name, listener } of listeners) Deno.removeSignalListener(name, listener);
    for (const provider of providers) await provider.close();
    await judge?.close();
  }
}
