/**
 * `ledgerbench slot REQUEST`: what each task of a Slurm job array runs
 * (issue 24): one episode slot on this node, written back beside its
 * request (runner/executor/run_slot.ts). Not for people: `run --executor
 * slurm` writes the requests and submits the arrays.
 *
 * @module
 */
import { parseCommandArgs } from "./_args.ts";
import { ExitCode, type Io, TERMINATED } from "./_command.ts";
import { runSlot } from "../runner/executor/run_slot.ts";
import { slotResultPath } from "../runner/executor/slot_result_file.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import { startRunUpstreams } from "./_run_upstreams.ts";

/** Help text. */
export const help = `Run one episode slot of a cluster run on this node (what each task of
the job arrays that "run --executor slurm" submits runs; not for people).

  deno task ledgerbench slot /shared/runs/r1/slurm/r1/host-1-2/wave-0/slot-3.json

USAGE:
  deno task ledgerbench slot REQUEST

The episode runs as "run" runs it locally (this node's engine, relay and
sandbox; plan hash, runner version, suite hash and image digests checked
here); its row is written beside the request as slot-3.result.json, or the
reason the node could not run it, authenticated with the run's key from
LEDGERBENCH_SLOT_KEY (set by "run" in the job's environment; "run" refuses
a result without it). SIGTERM (scancel, the time limit) kills the episode
and writes nothing. The upstream key comes from this node's
LEDGERBENCH_UPSTREAM_KEY or LEDGERBENCH_UPSTREAM_KEY_FILE.

EXIT STATUS:
  0 the row was written; 1 usage error; 3 the node cannot run the slot (the
  reason was written instead: request or plan unreadable, environment differs);
  143 stopped by SIGTERM (nothing written)
`;

const OPTIONS = {} as const;

/** Runs `slot`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { positionals } = parseCommandArgs(args, OPTIONS, { required: ["REQUEST"] });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  for (const name of ["SIGTERM", "SIGINT"] as const) Deno.addSignalListener(name, onSignal);
  try {
    const result = await runSlot(positionals[0], {
      signal: stop.signal,
      startUpstreams: async (request, plan) => {
        Deno.chdir(request.cwd);
        const started = await startRunUpstreams(request.upstreams, plan);
        return {
          upstream: started.upstream,
          judgeUpstream: started.judge?.upstream,
          close: started.close,
        };
      },
    });
    if (result === null) return TERMINATED;
    const written = slotResultPath(positionals[0]);
    if (!result.ok) {
      io.stderr(`error: The node cannot run the slot: ${result.error} (written to "${written}")\n`);
      return ExitCode.refused;
    }
    io.stdout(
      `slot ${
        displayId(result.draft.episode_id ?? "(no id)")
      } on node "${result.node}": ${result.draft.status}` +
        `${result.draft.status === "scored" ? ` (resolved ${result.draft.resolved})` : ""}, ` +
        `row written to "${written}"\n`,
    );
    return ExitCode.ok;
  } finally {
    for (const name of ["SIGTERM", "SIGINT"] as const) Deno.removeSignalListener(name, onSignal);
  }
}
