/**
 * One plan of relay attacks on the real engine, for the engine tests of
 * issues 7 and 21 (`tests/relay_attacks_test.ts`, `tests/budget_attacks_test.ts`):
 * one agent per attack, all of the hostile image `agent-relay_attacker`
 * (`containers/agents/relay_attacker.ts`, which picks its attack from its
 * model name `relay-attack:<name>`), each with its own scripted upstream so
 * that what reached the upstream is known per attack, run through the
 * runner's own path (`runPlan` → Docker executor → relay → in-namespace
 * forwarder) on one generated task, then read back: rows, episode logs,
 * the attacker's reports, and `validate --plan`'s error findings.
 *
 * @module
 */
import { loadLedger } from "../inputs/ledger.ts";
import type { Episode, PlannedAgent } from "../analysis/schema/records.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { type FreezeOptions, freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import type { ProviderScriptInput } from "../analysis/schema/provider_script.ts";
import {
  type ScriptedProvider,
  type ScriptedProviderOptions,
  startScriptedProvider,
} from "../runner/relay/scripted_provider.ts";
import type { UpstreamKind } from "../runner/relay/api/upstream_kind.ts";
import type { Upstream } from "../runner/relay/upstream.ts";
import { runPlan } from "../runner/run_plan.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { openArtifact } from "../runner/sandbox/artifact_store.ts";
import { openEpisodeLog } from "../runner/episode_log_store.ts";
import type { RelayCallRecord } from "../analysis/schema/relay_call_record.ts";
import { c2FilterSum } from "../suites/templates/c2_filter_sum.ts";
import { ledgerErrors } from "./_ledger_fits_plan.ts";

const IMAGE = "ledgerbench/agent-relay_attacker";

/** One attack agent: its upstream's script, kind (default `openai`) and provider options. */
export interface Attack {
  script: ProviderScriptInput;
  kind?: UpstreamKind;
  provider?: Omit<ScriptedProviderOptions, "apiKey">;
}

/** What one plan of attacks left, per agent (the attack's name). */
export interface AttackOutcome {
  rows: Record<string, Episode>;
  /** Each agent's relay call records, from its row's episode log. */
  calls: Record<string, RelayCallRecord[]>;
  /** Each agent's requests denied outside the model APIs, as `METHOD target`. */
  denied: Record<string, string[]>;
  /** The attacker's own report (`relay_attack_report.json` in its workspace; `{}` when none). */
  reports: Record<string, Record<string, unknown>>;
  /** Each agent's upstream, closed, with what it received. */
  upstream: Record<string, ScriptedProvider>;
  /** The error findings of `validate --plan` on the ledger ({@linkcode ledgerErrors}). */
  errors: string[];
}

/**
 * Runs one plan of attacks and reads it back.
 *
 * @param attacks the attacks, by name (the agent id and the attacker's mode)
 * @param options the plan's `plan_id`, the suite's `seed` and the freeze options that differ
 *   (caps, model limits, provider features)
 * @returns rows, call records, denied requests, reports, upstreams and validation errors
 */
export async function runAttackerPlan(
  attacks: Record<string, Attack>,
  options:
    & { plan_id: string; seed: string }
    & Pick<
      FreezeOptions,
      "caps" | "model_limits" | "provider_features"
    >,
): Promise<AttackOutcome> {
  const { plan_id, seed, ...freeze } = options;
  const ids = await buildImages();
  const dir = await Deno.makeTempDir({ prefix: `ledgerbench-${plan_id}-` });
  const suite = await generateSuite({
    suite_id: plan_id,
    lane_weights: { A: 8, B: 24, C: 12 },
    templates: [c2FilterSum],
  }, { seed, dir: `${dir}/suite` });
  const names = Object.keys(attacks);
  const frozen = await writePlan(
    `${dir}/plan.json`,
    freezePlan(suite, {
      plan_id,
      created_at: new Date().toISOString(),
      agents: names.map((name) => ({
        agent_id: name,
        image: `${IMAGE}:latest`,
        image_digest: ids[IMAGE],
        model: `relay-attack:${name}`,
      })),
      order_seed: 1,
      price_table_id: "test",
      runner_version: await runnerVersion(),
      verifier_image: "ledgerbench/verifier:latest",
      verifier_image_digest: ids["ledgerbench/verifier"],
      ...freeze,
    }),
  );
  const outcome: AttackOutcome = {
    rows: {},
    calls: {},
    denied: {},
    reports: {},
    upstream: {},
    errors: [],
  };
  const upstreams: Record<string, Upstream> = {};
  for (const name of names) {
    const key = `sk-${plan_id}-${crypto.randomUUID()}`;
    const attack = attacks[name];
    outcome.upstream[name] = await startScriptedProvider(attack.script, {
      apiKey: key,
      ...attack.provider,
    });
    upstreams[name] = { baseUrl: outcome.upstream[name].baseUrl, key, kind: attack.kind };
  }
  try {
    await runPlan({
      plan: frozen,
      suite: suite.dir,
      ledger: `${dir}/ledger.jsonl`,
      artifacts: `${dir}/artifacts`,
      parallel: 2,
      upstream: (agent: PlannedAgent) => upstreams[agent.agent_id],
    });
    outcome.errors = await ledgerErrors(`${dir}/ledger.jsonl`, frozen.value);
    for (const row of (await loadLedger(`${dir}/ledger.jsonl`)).rows) {
      outcome.rows[row.agent_id] = row;
      const log = await openEpisodeLog(`${dir}/artifacts`, row.episode_log_digest!);
      outcome.calls[row.agent_id] = log.calls;
      outcome.denied[row.agent_id] = (log.denied_requests ?? [])
        .map((request) => `${request.method} ${request.target}`);
      const artifact = await openArtifact(`${dir}/artifacts`, row.artifact_digest!);
      const report = await Deno.readTextFile(`${artifact.dir}/relay_attack_report.json`)
        .catch(() => "{}");
      outcome.reports[row.agent_id] = JSON.parse(report);
    }
  } finally {
    for (const provider of Object.values(outcome.upstream)) await provider.close();
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
    await Deno.remove(dir, { recursive: true });
  }
  return outcome;
}
