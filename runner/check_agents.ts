/**
 * `agent check` (issue 21, "Invalid only when the harness failed"): before a
 * batch, each agent runs one short episode against a scripted provider, so
 * that an agent the relay cannot meter is caught before it scores 0 on every
 * task. Requests the relay refuses are the agent's choice (a row with no
 * metered call is a scored failure), so an unsupported agent is refused
 * here, not discovered in the ledger.
 *
 * Each agent runs in its own one-task batch (so that one agent's harness
 * fault, which halts a batch, stops only its own check) through the normal
 * episode path (`runPlan`: the environment check, the Docker sandbox, the
 * relay, the verifier, the classification, the ledger), on a built-in task
 * ({@link CHECK_TASK_ID}: "reply with the word done") and against a
 * scripted provider that answers every model call, of any of its four APIs,
 * with a short final answer ({@link CHECK_SCRIPT}). The relay runs under a
 * large token cap ({@link CHECK_TOKEN_CAP}) so that it records each call's
 * prompt bound and output cap without lowering a cap the agent asked for.
 *
 * Per agent the result records the metered model calls, the first one's
 * endpoint, prompt bound and output caps, every refused call with its
 * refusal, every request refused outside the model APIs (the episode log's
 * `denied_requests`, method and target), the episode's row in short, and
 * the verdict: `ok` with at least one metered call, else `refused` ("no
 * metered model call"). The work directory (suite, plans, ledgers,
 * artifacts) is removed afterwards; the result is the {@link AgentCheck}
 * record.
 *
 * @module
 */
import type {
  AgentCheck,
  AgentCheckAgent,
  AgentCheckCall,
  Episode,
  PlannedAgent,
  ProviderFeature,
} from "../analysis/schema/records.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { loadSuite } from "../inputs/suite.ts";
import { VERIFIER_IMAGE } from "./docker/build_images.ts";
import { imageDigest } from "./docker/image_digest.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";
import { openEpisodeLog } from "./episode_log_store.ts";
import { freezePlan, writePlan } from "./freeze_plan.ts";
import type { ProgressSink } from "./progress.ts";
import type { UpstreamKind } from "./relay/api/upstream_kind.ts";
import type { ProviderScriptInput } from "../analysis/schema/provider_script.ts";
import type { RelayCallRecord } from "../analysis/schema/relay_call_record.ts";
import { startScriptedProvider } from "./relay/scripted_provider.ts";
import { runPlan } from "./run_plan.ts";
import { runnerVersion } from "./runner_version.ts";
import { removeTree } from "./sandbox/remove_tree.ts";

/** The built-in task's id. */
export const CHECK_TASK_ID = "agent-check";

/**
 * The token cap of a check episode: large enough that no agent's first call
 * is lowered (so the output cap it asked for is recorded as sent), and set,
 * so that the relay records the prompt bound it reserves.
 */
export const CHECK_TOKEN_CAP = 1_000_000_000;

/** Model calls a check episode may make; an agent that loops is stopped here. */
export const CHECK_STEP_CAP = 20;

/** The wall cap of a check episode by default, in ms. */
export const CHECK_WALL_MS = 120_000;

/** The answer the scripted provider gives every call. */
export const CHECK_ANSWER = "done";

/** The scripted provider's script: every call of any API gets {@link CHECK_ANSWER}. */
export const CHECK_SCRIPT: ProviderScriptInput = {
  model: "agent-check-model",
  default: { content: CHECK_ANSWER },
};

/** Why an agent without a metered model call is refused. */
export const NO_METERED_CALL = "no metered model call";

/** The built-in task's suite: one task, its prompt, and a verifier that only reports. */
const CHECK_SUITE: Record<string, string> = {
  "suite.json": JSON.stringify({
    suite_id: "ledgerbench-agent-check",
    tasks: [{ task_id: CHECK_TASK_ID }],
  }),
  [`tasks/${CHECK_TASK_ID}/workspace/TASK.md`]:
    "This is ledgerbench's agent check. Change no file: reply with the one word " +
    `"${CHECK_ANSWER}" and stop.\n`,
  [`tasks/${CHECK_TASK_ID}/verifier/verify.sh`]: [
    "#!/bin/sh",
    "# The agent check decides on the relay's records, not on this verdict.",
    'echo \'{"resolved": true, "checks": [{"name": "agent_check", "passed": true}]}\'',
    "",
  ].join("\n"),
};

/** One agent to check, as `freeze` would plan it, with the kind of upstream it speaks to. */
export interface AgentUnderCheck {
  agent_id: string;
  /** The image reference (resolved to its digest now; never pulled). */
  image: string;
  model?: string | null;
  env?: Record<string, string>;
  command?: string[];
  /** The upstream kind the relay meters for it (default `openai`). */
  upstream_kind?: UpstreamKind;
}

/** Options of {@link checkAgents}. */
export interface CheckAgentsOptions {
  /** Wall cap of each check episode in ms; default {@link CHECK_WALL_MS}. */
  wallMs?: number;
  /** Where the work directory and the runner's temporary files go; default the system's. */
  tempDir?: string;
  progress?: ProgressSink;
  /** A line per agent checked, for the operator. */
  log?: (line: string) => void;
  /**
   * Provider features the check's relay allows (the plan's
   * `--allow-provider-feature`, so that an agent is checked as the plan will
   * run it); default none.
   */
  providerFeatures?: readonly ProviderFeature[];
}

/** The check cannot start: an image it runs is absent. */
export class AgentCheckError extends Error {
  /** @param message one sentence naming the image */
  constructor(message: string) {
    super(message);
    this.name = "AgentCheckError";
  }
}

/**
 * Runs the check of every agent (see the module doc) on the local engine.
 *
 * @param agents the agents, in the order their results are listed
 * @param options wall cap, temporary directory, progress, log
 * @returns the result, as `agent check --out` writes it
 * @throws {AgentCheckError} when an agent's image or the verifier image is not present
 * @throws {Error} on a harness failure outside an episode (the environment check, the engine)
 */
export async function checkAgents(
  agents: readonly AgentUnderCheck[],
  options: CheckAgentsOptions = {},
): Promise<AgentCheck> {
  const checkedAt = new Date().toISOString();
  const verifierDigest = await imageDigest(VERIFIER_IMAGE);
  if (verifierDigest === null) {
    throw new AgentCheckError(
      `Cannot check the agents: the verifier image "${VERIFIER_IMAGE}" is not present ` +
        "(run containers/build_images.sh)",
    );
  }
  const digests: string[] = [];
  for (const agent of agents) {
    const digest = await imageDigest(agent.image);
    if (digest === null) {
      throw new AgentCheckError(
        `Cannot check agent "${agent.agent_id}": image "${agent.image}" is not present ` +
          "(images are never pulled; build it or load it first)",
      );
    }
    digests.push(digest);
  }
  const version = await runnerVersion();
  const work = await Deno.makeTempDir({ dir: options.tempDir, prefix: "ledgerbench-agent-check-" });
  const key = crypto.randomUUID();
  const provider = await startScriptedProvider(CHECK_SCRIPT, { apiKey: key });
  try {
    for (const [path, text] of Object.entries(CHECK_SUITE)) {
      await Deno.mkdir(`${work}/suite/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
      await Deno.writeTextFile(`${work}/suite/${path}`, text);
      if (path.endsWith(".sh")) await Deno.chmod(`${work}/suite/${path}`, 0o755);
    }
    const suite = await loadSuite(`${work}/suite`);
    const results: AgentCheckAgent[] = [];
    // One run id per check, so that two checks at once never share container labels.
    const runTag = crypto.randomUUID().slice(0, 8);
    for (const [index, agent] of agents.entries()) {
      options.log?.(`checking agent "${agent.agent_id}" (${index + 1} of ${agents.length})`);
      const planned: PlannedAgent = {
        agent_id: agent.agent_id,
        image: agent.image,
        image_digest: digests[index],
        model: agent.model ?? null,
        ...(agent.env === undefined ? {} : { env: agent.env }),
        ...(agent.command === undefined ? {} : { command: agent.command }),
      };
      const dir = `${work}/agents/${index + 1}`;
      await Deno.mkdir(dir, { recursive: true });
      const plan = freezePlan(suite, {
        plan_id: `agent-check-${runTag}-${index + 1}`,
        created_at: checkedAt,
        agents: [planned],
        order_seed: 0,
        caps: {
          token_cap: CHECK_TOKEN_CAP,
          step_cap: CHECK_STEP_CAP,
          wall_ms_cap: options.wallMs ?? CHECK_WALL_MS,
        },
        price_table_id: "unpriced",
        ...(options.providerFeatures === undefined || options.providerFeatures.length === 0
          ? {}
          : { provider_features: [...options.providerFeatures] }),
        runner_version: version,
        verifier_image: VERIFIER_IMAGE,
        verifier_image_digest: verifierDigest,
      });
      const frozen = await writePlan(`${dir}/plan.json`, plan);
      const kind = agent.upstream_kind ?? "openai";
      await runPlan({
        plan: frozen,
        suite: suite.dir,
        ledger: `${dir}/ledger.jsonl`,
        artifacts: `${dir}/artifacts`,
        upstream: () => ({ baseUrl: provider.baseUrl, key, kind }),
        progress: options.progress,
        tempDir: options.tempDir,
      });
      const [row] = (await loadLedger(`${dir}/ledger.jsonl`)).rows;
      const log = row?.episode_log_digest === undefined
        ? null
        : await openEpisodeLog(`${dir}/artifacts`, row.episode_log_digest);
      results.push(agentResult(
        { ...planned, image: agent.image, image_digest: digests[index], upstream_kind: kind },
        row,
        log,
      ));
    }
    return {
      schema_version: 1,
      checked_at: checkedAt,
      runner_version: version,
      token_cap: CHECK_TOKEN_CAP,
      passed: results.every((result) => result.verdict === "ok"),
      agents: results,
    };
  } finally {
    await provider.close();
    // Best effort, read-only artifact snapshots included: the check's result is what matters.
    await removeTree(work).catch(() => {});
  }
}

/**
 * One agent's result from its check episode's row and log.
 *
 * @param agent the agent as planned, with its image reference and upstream kind
 * @param row the episode's row; undefined when none was written
 * @param log the episode's log; null when none was stored
 * @returns the agent's entry of the result
 */
export function agentResult(
  agent: PlannedAgent & { image: string; image_digest: string; upstream_kind: UpstreamKind },
  row: Episode | undefined,
  log: EpisodeLog | null,
): AgentCheckAgent {
  const calls = [...(log?.calls ?? [])].sort((a, b) => a.index - b.index);
  const forwarded = calls.filter((call) => call.forwarded);
  const modelCalls = log === null ? row?.model_calls ?? 0 : forwarded.length;
  return {
    agent_id: agent.agent_id,
    image: agent.image,
    image_digest: agent.image_digest,
    model: agent.model,
    ...(agent.env === undefined ? {} : { env: agent.env }),
    ...(agent.command === undefined ? {} : { command: agent.command }),
    upstream_kind: agent.upstream_kind,
    verdict: modelCalls > 0 ? "ok" : "refused",
    reason: modelCalls > 0 ? null : NO_METERED_CALL,
    model_calls: modelCalls,
    first_call: forwarded.length === 0 ? null : firstCall(forwarded[0]),
    refused_calls: calls.filter((call) => call.refusal !== null).map((call) => ({
      index: call.index,
      endpoint: call.endpoint,
      refusal: call.refusal!,
      status: call.status,
      detail: call.detail,
    })),
    denied_requests: (log?.denied_requests ?? []).map((denied) => ({ ...denied })),
    episode: row === undefined ? null : {
      status: row.status,
      invalid_reason: row.invalid_reason,
      stop_reason: row.stop_reason,
      notes: row.notes,
    },
  };
}

/**
 * What the result keeps of the first metered call: the output cap the
 * agent asked for is the forwarded one unless the relay lowered it, which
 * under {@link CHECK_TOKEN_CAP} happens only to a call that asked for none.
 */
function firstCall(call: RelayCallRecord): AgentCheckCall {
  const outputCap = call.output_cap ?? null;
  return {
    index: call.index,
    endpoint: call.endpoint,
    prompt_bound: call.prompt_bound ?? null,
    output_cap: outputCap,
    requested_output_cap: call.cap_lowered === true ? null : outputCap,
    cap_lowered: call.cap_lowered ?? null,
  };
}
