/**
 * `ledgerbench run`: runs (or resumes) the batch of a frozen plan in Docker,
 * appending one hash-chained, fsynced ledger row per attempt.
 *
 * @module
 */
import { loadPlan } from "../inputs/plan.ts";
import { dockerAvailable } from "../runner/docker/docker_available.ts";
import { slurmAvailable } from "../runner/slurm/slurm_available.ts";
import { BatchHaltedError, describeHalt } from "../runner/run_batch.ts";
import { EnvironmentMismatchError } from "../runner/environment_check.ts";
import { LedgerLockedError } from "../runner/ledger_lock.ts";
import type { SlotUpstreamOptions } from "../analysis/schema/executor_slot.ts";
import { SlotTimeLimitError } from "../runner/executor/slot_time_limit.ts";
import { checkRunUpstreamOptions, type RunUpstreams, startRunUpstreams } from "./_run_upstreams.ts";
import {
  EXECUTOR_HELP,
  EXECUTOR_OPTIONS,
  executorOption,
  refuseSlurmOptions,
  slurmExecutorChoice,
} from "./_executor_options.ts";
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
import { PARALLEL_RANGE, SLURM_PARALLEL_RANGE } from "./_option_ranges.ts";
import { ExitCode, INTERRUPTED, type Io, TERMINATED, UsageError } from "./_command.ts";
import { emit } from "./_output.ts";
import { nextStep } from "./_next_step.ts";
import { outputWidth } from "./_table_layout.ts";
import { dirname, join } from "node:path";
import { pairsOption } from "./freeze.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import { SAME_REQUEST_MS, stopRequests } from "../runner/stop_requests.ts";
import { JUDGE_UPSTREAM_HELP, JUDGE_UPSTREAM_OPTIONS } from "./_judge_upstream.ts";

/** `--parallel`: episodes at once. */
const PARALLEL: NumberOption = { name: "parallel", range: PARALLEL_RANGE };
/** Episodes at once when `--parallel` is absent: one, rows in plan order. */
const DEFAULT_PARALLEL = 1;

/** `--run-id`: the ledger rows' `run_id`. */
const RUN_ID = { name: "run-id", schema: EpisodeInput.shape.run_id, form: "a non-empty id" };

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
a Gemini one for agent gemini, an OpenAI one for the others:
  LEDGERBENCH_UPSTREAM_KEY=... deno task ledgerbench run --plan plan.json \\
    --suite ~/.ledgerbench/suite --ledger runs/r2/ledger.jsonl \\
    --upstream https://api.openai.com/v1 \\
    --upstream claude=anthropic+https://api.anthropic.com/v1 \\
    --upstream gemini=gemini+https://generativelanguage.googleapis.com/v1beta

On a Slurm cluster, 200 slots at once, each a job-array task on a node with
Docker or Podman (ledger, plan, suite and this checkout on the shared file
system; the key read on each node from a file only you can read):
  LEDGERBENCH_UPSTREAM_KEY_FILE=~/.ledgerbench/key deno task ledgerbench run \\
    --plan plan.json --suite suite --ledger /shared/runs/r1/ledger.jsonl \\
    --upstream https://api.example.com/v1 --executor slurm \\
    --slurm-partition batch --parallel 200

Against scripted providers (tests, demos), one script per agent:
  deno task ledgerbench run --plan plan.json --suite suite --ledger l.jsonl \\
    --provider-script solver=solver_script.json --provider-script looper=looper.json

USAGE:
  deno task ledgerbench run --plan PLAN --suite DIR --ledger FILE UPSTREAM [OPTIONS]

UPSTREAM (one of):
  --upstream [ID=][KIND+]URL  Upstream base URL ending in its API version (/v1;
                             Gemini's /v1beta), for every agent or for agent
                             ID (repeat). KIND is openai (the default: Chat
                             Completions, Completions, Responses; key sent as
                             Authorization: Bearer), anthropic (Messages; key
                             sent as x-api-key) or gemini (generateContent;
                             key sent as x-goog-api-key): the relay meters and
                             forwards that kind's model calls only and refuses
                             the others'. The key is read from the
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
  --parallel N         Episodes at once, ${rangeText(PARALLEL.range)} (under Slurm
                       ${
  rangeText(SLURM_PARALLEL_RANGE)
}; default ${DEFAULT_PARALLEL}); rows are appended in completion order,
                       episode ids stay deterministic; an SPRT agent keeps one
                       episode in flight
  --artifacts DIR      Artifact store (default: artifacts/ beside the ledger)
  --unsandboxed        Run candidates as host processes: NOT isolated; only
                       with this flag, and every row records sandbox
                       "unsandboxed"; needs --agent-command for each agent.
                       The runner version and the suite hash are checked as
                       in a sandboxed run (no image is: none runs)
  --agent-command ID=CMD  Host command of agent ID (split on spaces)
${EXECUTOR_HELP}
  --json               Print the outcome as canonical JSON
  -h, --help           This help

Progress goes to stderr: a bar on a terminal, one line per episode otherwise.
Ctrl-C or SIGTERM stops starting episodes: running ones finish and are
recorded, then the run exits (resume later). A second Ctrl-C or SIGTERM,
${SAME_REQUEST_MS / 1000} s or more after the first, kills the running episodes (copies of one
keypress that launchers such as npx forward within that time are the same
request): they are not recorded (nothing is written for them, not even a
failure) and --resume runs them. A SIGKILL of the runner leaves their
containers, which --resume removes before it runs them. Under Slurm the first
Ctrl-C also cancels the slots still queued (not recorded; --resume runs them),
the second cancels the running ones (scancel), and the run exits once no task
of its jobs runs; a resume cancels the jobs of a runner that was killed.

EXIT STATUS:
  0 the batch is complete (every task, or every agent's SPRT decision);
  1 usage error; 2 bad input (plan hash, plan, suite or ledger unreadable,
  ledger directory missing, ledger of another run); 3 refused or halted (no
  Docker engine, no Slurm cluster under --executor slurm, another runner holds the ledger's lock, environment differs
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
  ...EXECUTOR_OPTIONS,
} as const;

/** Runs `run`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, OPTIONS);
  const plan = stringOption(values, "plan");
  const suite = stringOption(values, "suite");
  const ledger = stringOption(values, "ledger");
  if (plan === undefined) throw new UsageError('Missing option: "--plan"');
  if (suite === undefined) throw new UsageError('Missing option: "--suite"');
  if (ledger === undefined) throw new UsageError('Missing option: "--ledger"');
  const runId = textOption(values, RUN_ID);
  const upstreamOptions: SlotUpstreamOptions = {
    upstream: (values.upstream as string[] | undefined) ?? [],
    provider_script: (values["provider-script"] as string[] | undefined) ?? [],
    expect_model: (values["expect-model"] as string[] | undefined) ?? [],
    judge_upstream: stringOption(values, "judge-upstream") ?? null,
    judge_provider_script: stringOption(values, "judge-provider-script") ?? null,
  };
  const unsandboxed = values.unsandboxed === true;
  const commands = pairsOption(values, "agent-command");
  if (!unsandboxed && commands.size > 0) {
    throw new UsageError('Option "--agent-command" needs "--unsandboxed"');
  }
  const executor = executorOption(values);
  const parallel = numberOption(
    values,
    executor === "slurm" ? { name: "parallel", range: SLURM_PARALLEL_RANGE } : PARALLEL,
  ) ?? DEFAULT_PARALLEL;
  if (executor !== "local" && unsandboxed) {
    throw new UsageError('Option "--unsandboxed" runs on this host: it needs "--executor local"');
  }
  if (executor === "local") refuseSlurmOptions(values);

  if (executor === "slurm") {
    const cluster = await slurmAvailable();
    if (!cluster.available) {
      io.stderr(`error: No Slurm cluster answers: ${cluster.reason}\nNothing was run.\n`);
      return ExitCode.refused;
    }
  }
  if (!unsandboxed && executor === "local") {
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

  // SIGINT and SIGTERM alike: the first stops starting episodes, a second one aborts the running
  // ones; copies of the first that launchers forward are the same request (stopRequests).
  const controller = new AbortController();
  const hard = new AbortController();
  let stoppedBy: Deno.Signal | null = null;
  const receive = stopRequests();
  const onSignal = (name: Deno.Signal) => () => {
    const request = receive();
    if (request === "kill") {
      io.stderr(`${name}: killing running episodes (not recorded; --resume runs them)\n`);
      hard.abort();
    } else if (request === "stop") {
      stoppedBy = name;
      io.stderr(
        `${name}: no new episode starts; running ones finish and are recorded ` +
          `(Ctrl-C or SIGTERM again, ${SAME_REQUEST_MS / 1000} s or more later, to kill them)\n`,
      );
      controller.abort();
    }
  };
  const listeners = (["SIGINT", "SIGTERM"] as const).map((name) => ({
    name,
    listener: onSignal(name),
  }));
  for (const { name, listener } of listeners) Deno.addSignalListener(name, listener);
  let upstreams: RunUpstreams | null = null;
  try {
    if (executor === "local") {
      upstreams = await startRunUpstreams(upstreamOptions, frozen.value);
    } else {
      // Each node starts its own; here only what the options name is checked.
      checkRunUpstreamOptions(upstreamOptions, frozen.value);
    }
    for (const { agent_id } of frozen.value.agents) {
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
      upstream: upstreams?.upstream,
      judgeUpstream: upstreams?.judge?.upstream ?? undefined,
      executor: executor === "local"
        ? { kind: "local" }
        : slurmExecutorChoice(values, { ledger, upstreams: upstreamOptions }),
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
        withdrawn: outcome.withdrawn,
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
          ...(outcome.withdrawn.length === 0 ? [] : [
            `${outcome.withdrawn.length} queued slot(s) cancelled before they started, not ` +
            `recorded (--resume runs them): ${outcome.withdrawn.join(", ")}`,
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
        ].join("\n") + (status === ExitCode.ok
          ? nextStep({
            command: ["report", ledger],
            options: [["--plan", plan], ["--out", join(dirname(ledger), "report")]],
          }, outputWidth(values))
          : ""),
    });
    return status;
  } catch (error) {
    if (error instanceof SlotTimeLimitError) throw new UsageError(error.message);
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
    await upstreams?.close();
  }
}
