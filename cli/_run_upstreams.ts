/**
 * The upstreams of a `run`, from its options: which upstream each agent's
 * model calls go to (`--upstream`, `--provider-script`, `--expect-model`)
 * and the judge's (`--judge-upstream`, `--judge-provider-script`). `run`
 * resolves them on this machine; under `--executor slurm` the same option
 * values travel in each slot's request (analysis/schema/executor_slot.ts)
 * and each node resolves them here again, so an episode reaches the same
 * upstream wherever it runs. Keys never travel: each machine reads them
 * from its own environment or key file ({@link upstreamKey}).
 *
 * @module
 */
import type { PlannedAgent } from "../analysis/schema/records.ts";
import type { SlotUpstreamOptions } from "../analysis/schema/executor_slot.ts";
import type { Upstream } from "../runner/relay/upstream.ts";
import { UsageError } from "./_command.ts";
import { type JudgeUpstream, judgeUpstreamOption } from "./_judge_upstream.ts";
import {
  type ScriptedUpstream,
  startScriptedUpstream,
  upstreamKindOf,
} from "./_upstream_options.ts";
import { upstreamKey } from "./_upstream_key.ts";

/** The started upstreams of a run, and how to stop what was started for it. */
export interface RunUpstreams {
  /** The upstream of each agent of the plan. */
  upstream: (agent: PlannedAgent) => Upstream;
  /** The judge's upstream, or null when the plan has no judge. */
  judge: JudgeUpstream | null;
  /** Stops the scripted providers started for the run. */
  close(): Promise<void>;
}

/** Splits `[ID=]VALUE` items into a default and per-agent values. */
function perAgent(items: readonly string[]): { all: string | null; byAgent: Map<string, string> } {
  let all: string | null = null;
  const byAgent = new Map<string, string>();
  for (const item of items) {
    const match = /^([A-Za-z0-9_.-]+)=(.+)$/.exec(item);
    if (match !== null && !/^[a-z+]+:\/\//.test(item)) byAgent.set(match[1], match[2]);
    else if (all === null) all = item;
    else throw new UsageError(`Two defaults given for one option: "${all}" and "${item}"`);
  }
  return { all, byAgent };
}

/**
 * The option value naming each agent's upstream, checked: exactly one of
 * `--upstream` and `--provider-script`, a value for every agent of the plan,
 * and the key present when a real upstream is named.
 *
 * @param options the run's upstream options as given
 * @param agents the plan's agents
 * @returns per agent: whether it is a script file or a URL, and the `[KIND+]TARGET` value
 * @throws {UsageError} when an option is missing, doubled or the key is absent
 */
export function upstreamChoices(
  options: SlotUpstreamOptions,
  agents: readonly PlannedAgent[],
): Map<string, { script: boolean; value: string }> {
  const upstreams = perAgent(options.upstream);
  const scripts = perAgent(options.provider_script);
  const usesUpstream = upstreams.all !== null || upstreams.byAgent.size > 0;
  const usesScripts = scripts.all !== null || scripts.byAgent.size > 0;
  if (usesUpstream === usesScripts) {
    throw new UsageError('Give exactly one of "--upstream" and "--provider-script"');
  }
  if (usesUpstream) upstreamKey("LEDGERBENCH_UPSTREAM_KEY");
  const chosen = usesScripts ? scripts : upstreams;
  const flag = usesScripts ? "--provider-script" : "--upstream";
  const choices = new Map<string, { script: boolean; value: string }>();
  for (const { agent_id } of agents) {
    const value = chosen.byAgent.get(agent_id) ?? chosen.all;
    if (value === null) throw new UsageError(`No ${flag} for agent "${agent_id}"`);
    choices.set(agent_id, { script: usesScripts, value });
  }
  return choices;
}

/** The judge's two options, as `judgeUpstreamOption` reads them. */
function judgeValues(options: SlotUpstreamOptions) {
  return {
    "judge-upstream": options.judge_upstream ?? undefined,
    "judge-provider-script": options.judge_provider_script ?? undefined,
  };
}

/**
 * Checks the run's upstream options without starting anything: each agent's
 * (as {@link upstreamChoices}), and a judge's exactly when the plan has a
 * judge. `run --executor slurm` checks them so before it submits, and each
 * node starts them.
 *
 * @param options the run's upstream options as given
 * @param plan the plan's agents and judge
 * @returns the agents' choices
 * @throws {UsageError} when an option is missing, doubled, not needed, or a key is absent
 */
export function checkRunUpstreamOptions(
  options: SlotUpstreamOptions,
  plan: { agents: readonly PlannedAgent[]; judge?: unknown },
): Map<string, { script: boolean; value: string }> {
  const choices = upstreamChoices(options, plan.agents);
  const judge = judgeValues(options);
  if (judge["judge-upstream"] !== undefined && judge["judge-provider-script"] !== undefined) {
    throw new UsageError('Give at most one of "--judge-upstream" and "--judge-provider-script"');
  }
  const named = judge["judge-upstream"] !== undefined ||
    judge["judge-provider-script"] !== undefined;
  if (plan.judge !== undefined && !named) {
    throw new UsageError(
      'The plan has an LLM judge: give "--judge-upstream" or "--judge-provider-script"',
    );
  }
  if (plan.judge === undefined && named) {
    throw new UsageError("The plan has no LLM judge: its upstream option is not needed");
  }
  if (judge["judge-upstream"] !== undefined) {
    upstreamKey("LEDGERBENCH_JUDGE_KEY", "LEDGERBENCH_UPSTREAM_KEY");
  }
  return choices;
}

/**
 * Starts the run's upstreams: one scripted provider per script file (shared
 * by the agents naming it), or the URLs with the key read here; and the
 * judge's, which the plan must have exactly when it has a judge.
 *
 * @param options the run's upstream options as given
 * @param plan the plan's agents and judge
 * @returns the upstreams and their `close`
 * @throws {UsageError} as {@link upstreamChoices}, and for a judge option the plan does not match
 * @throws {LedgerError} when a script file cannot be read or does not fit its schema
 */
export async function startRunUpstreams(
  options: SlotUpstreamOptions,
  plan: { agents: readonly PlannedAgent[]; judge?: unknown },
): Promise<RunUpstreams> {
  const choices = checkRunUpstreamOptions(options, plan);
  const providers: ScriptedUpstream[] = [];
  const close = async () => {
    for (const provider of providers) await provider.close();
    await judge?.close();
  };
  let judge: JudgeUpstream | null = null;
  const resolved = new Map<string, Upstream>();
  try {
    judge = await judgeUpstreamOption(judgeValues(options));
    const started = new Map<string, Upstream>();
    for (const [agentId, choice] of choices) {
      const { kind, target } = upstreamKindOf(choice.value);
      if (choice.script) {
        let upstream = started.get(target);
        if (upstream === undefined) {
          const provider = await startScriptedUpstream(target);
          providers.push(provider);
          upstream = provider.upstream;
          started.set(target, upstream);
        }
        resolved.set(agentId, { ...upstream, kind });
      } else {
        resolved.set(agentId, {
          baseUrl: target,
          kind,
          key: upstreamKey("LEDGERBENCH_UPSTREAM_KEY"),
          expectedModelIds: options.expect_model.length > 0 ? options.expect_model : undefined,
        });
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    upstream: (agent) => {
      const found = resolved.get(agent.agent_id);
      if (found === undefined) throw new UsageError(`No upstream for agent "${agent.agent_id}"`);
      return found;
    },
    judge,
    close,
  };
}
