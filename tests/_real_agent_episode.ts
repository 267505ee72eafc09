/**
 * One real-agent episode on the real engine, for the engine tests of the
 * agents that ship as images (`tests/claude_code_test.ts`,
 * `tests/codex_test.ts`): the c2 demo suite generated from a fixed seed,
 * a one-agent plan frozen with the test's caps, model limits and agent env
 * and command, a scripted provider that asks for one tool call writing the
 * task's answer and then says "Done.", optionally a logging proxy between
 * the relay and that provider, the plan run with `runPlan`, and what came
 * out read back: the row, what the provider received, what reached the
 * upstream, the relay's call records and bodies from the episode log, and
 * the ledger's validation against its plan.
 *
 * @module
 */
import { equal } from "node:assert/strict";
import { Buffer } from "node:buffer";
import { loadLedger } from "../inputs/ledger.ts";
import type { Episode } from "../analysis/schema/records.ts";
import { fileBlocks } from "../containers/agents/_model.ts";
import { buildImages, type ImageName } from "../runner/docker/build_images.ts";
import { type FreezeOptions, freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import type { ProviderScriptInput } from "../analysis/schema/provider_script.ts";
import { type ProviderRequest, startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import type { UpstreamKind } from "../runner/relay/api/upstream_kind.ts";
import { runPlan } from "../runner/run_plan.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { taskPaths } from "../analysis/schema/suite_manifest.ts";
import { c2FilterSum } from "../suites/templates/c2_filter_sum.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";
import { openEpisodeLog } from "../runner/episode_log_store.ts";
import type { RelayCallRecord } from "../analysis/schema/relay_call_record.ts";
import { cli } from "./_cli_run.ts";
import { ledgerErrors } from "./_ledger_fits_plan.ts";

/** The suite's seed. */
const SEED = "5eed0000".repeat(8);
/** The one task of the generated c2 suite. */
const TASK = "c2-filter-sum";

let built: Promise<Record<ImageName, string>> | null = null;
/** The images' digests, built once per test process. */
const images = () => (built ??= buildImages());

/**
 * The shell command that writes each file block of `answer` (`base64 -d`,
 * so no content needs quoting; bash and busybox `sh` alike), without command
 * substitution (the Gemini CLI refuses a command holding `$(...)`).
 *
 * @param answer a task's answer file, in file blocks
 * @returns one `&&`-joined command line
 */
export function writeCommand(answer: string): string {
  return fileBlocks(answer).map((block) => {
    const b64 = Buffer.from(block.content, "utf8").toString("base64");
    const dir = block.path.includes("/") ? block.path.slice(0, block.path.lastIndexOf("/")) : ".";
    return `mkdir -p '${dir}' && echo '${b64}' | base64 -d > '${block.path}'`;
  }).join(" && ");
}

/** One request as it reached the upstream, through the logging proxy. */
export interface Arrival {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** The body's length in bytes, as sent. */
  bytes: number;
  /** The `anthropic-beta` header, or null. */
  beta: string | null;
}

/**
 * A loopback proxy in front of `target` (an upstream base URL ending in
 * `/v1`) that logs each request's method, path and body size, and passes the
 * request and the (possibly streamed) answer through unchanged.
 *
 * @param target the upstream's base URL
 * @returns the proxy's own base URL, what has arrived so far, and its shutdown
 */
export function loggingProxy(target: string): {
  baseUrl: string;
  arrivals: () => Arrival[];
  close: () => Promise<void>;
} {
  const origin = new URL(target).origin;
  const arrivals: Arrival[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    const body = new Uint8Array(await request.arrayBuffer());
    arrivals.push({
      method: request.method,
      path: url.pathname + url.search,
      bytes: body.length,
      beta: request.headers.get("anthropic-beta"),
    });
    const headers = new Headers(request.headers);
    headers.delete("host");
    headers.delete("content-length");
    const answer = await fetch(origin + url.pathname + url.search, {
      method: request.method,
      headers,
      body: request.method === "GET" || request.method === "HEAD" ? undefined : body,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    arrivals: () => [...arrivals],
    close: () => server.shutdown(),
  };
}

/** What a test freezes into the plan: caps, model limits, and the agent's env and command. */
export type PlanChoices =
  & Pick<FreezeOptions, "caps" | "model_limits">
  & Pick<FreezeOptions["agents"][number], "env" | "command">;

/** The episode {@linkcode realAgentEpisode} runs. */
export interface RealAgentEpisode {
  /**
   * The agent's id (`claude`): also the plan's id, the suite's (`<id>-test`)
   * and the temporary directory's prefix (`ledgerbench-<id>-test-`).
   */
  agentId: string;
  /** The agent's image (`ledgerbench/agent-claude`), frozen as `<image>:latest` with its built digest. */
  image: ImageName;
  /** The model the plan pins and the script serves. */
  model: string;
  /** The upstream's kind (absent: none given, the runner's default `openai`). */
  kind?: UpstreamKind;
  /** The agent's tool call, as the script's first reply asks for it, that runs `cmd`. */
  toolCall: (cmd: string) => { name: string; arguments: string };
  /** The shell command the tool call runs after writing the answer (`echo "shell=$BASH_VERSION"`). */
  then: string;
  /**
   * "scripted": each reply reports the script's usage (1200 + 30 tokens,
   * then 1300 + 5); "derived": the scripted provider's byte-derived usage
   * (`derivedUsage`: a quarter of the prompt text's bytes, of the reply's).
   */
  usage: "scripted" | "derived";
  /** What the plan freezes, for the episode's upstream key (absent: nothing but the agent). */
  plan?: (key: string) => PlanChoices;
  /** Put the logging proxy ({@linkcode loggingProxy}) between the relay and the provider. */
  logArrivals?: boolean;
  /** Also run the real CLI's `validate LEDGER --plan PLAN` on the ledger. */
  cliValidate?: boolean;
}

/** What one {@linkcode realAgentEpisode} gives back. */
export interface RealAgentRun {
  row: Episode;
  /** What the scripted provider received. */
  requests: ProviderRequest[];
  /** What reached the upstream, bytes included (empty without `logArrivals`). */
  arrivals: Arrival[];
  /** The tool command: the answer written ({@linkcode writeCommand}), then `then`. */
  cmd: string;
  /** The relay's call records, from the row's episode log (empty when none was stored). */
  calls: RelayCallRecord[];
  /** Each call's stored request and response excerpts (their `bytes` as received). */
  bodies: EpisodeLog["bodies"];
  /** The error findings of `validate --plan` on the ledger ({@linkcode ledgerErrors}). */
  errors: string[];
  /** The real CLI's `validate LEDGER --plan PLAN`: its exit status and output (null without `cliValidate`). */
  validate: { code: number; stdout: string } | null;
}

/**
 * Runs one episode of `episode.agentId` on the c2 task against the scripted
 * provider: turn 0 (the task's prompt) asks for `toolCall(cmd)`, turn 1
 * (after its result) answers "Done.", anything else an empty answer. The
 * ledger must hold exactly one row.
 *
 * @param episode the agent, upstream, script and plan choices
 * @returns the row, what the provider received and the upstream saw, the
 *   tool command, the episode log's records and bodies, and the validation
 */
export async function realAgentEpisode(episode: RealAgentEpisode): Promise<RealAgentRun> {
  const { agentId, model } = episode;
  const ids = await images();
  const dir = await Deno.makeTempDir({ prefix: `ledgerbench-${agentId}-test-` });
  const key = crypto.randomUUID();
  const plan = episode.plan?.(key) ?? {};
  try {
    const suite = await generateSuite({
      suite_id: `${agentId}-test`,
      lane_weights: { A: 8, B: 24, C: 12 },
      templates: [c2FilterSum],
    }, { seed: SEED, dir: `${dir}/suite` });
    const answer = await Deno.readTextFile(taskPaths(suite.dir, TASK).answer);
    const cmd = `${writeCommand(answer)} && ${episode.then}`;
    const frozen = await writePlan(
      `${dir}/plan.json`,
      freezePlan(suite, {
        plan_id: agentId,
        created_at: new Date().toISOString(),
        agents: [{
          agent_id: agentId,
          image: `${episode.image}:latest`,
          image_digest: ids[episode.image],
          model,
          ...(plan.env === undefined ? {} : { env: plan.env }),
          ...(plan.command === undefined ? {} : { command: plan.command }),
        }],
        order_seed: 1,
        caps: plan.caps,
        ...(plan.model_limits === undefined ? {} : { model_limits: plan.model_limits }),
        price_table_id: "test",
        runner_version: await runnerVersion(),
        verifier_image: "ledgerbench/verifier:latest",
        verifier_image_digest: ids["ledgerbench/verifier"],
      }),
    );
    const scripted = episode.usage === "scripted";
    const script: ProviderScriptInput = {
      model,
      rules: [
        {
          turn: 0,
          contains: `ledgerbench-task: ${TASK}\n`,
          reply: {
            tool_calls: [episode.toolCall(cmd)],
            ...(scripted ? { usage: { prompt_tokens: 1200, completion_tokens: 30 } } : {}),
          },
        },
        {
          turn: 1,
          last: "tool_result",
          reply: {
            content: "Done.",
            ...(scripted ? { usage: { prompt_tokens: 1300, completion_tokens: 5 } } : {}),
          },
        },
      ],
      default: { content: "" },
    };
    const provider = await startScriptedProvider(script, { apiKey: key });
    const proxy = episode.logArrivals ? loggingProxy(provider.baseUrl) : null;
    try {
      await runPlan({
        plan: frozen,
        suite: suite.dir,
        ledger: `${dir}/ledger.jsonl`,
        upstream: () => ({
          baseUrl: proxy?.baseUrl ?? provider.baseUrl,
          ...(episode.kind === undefined ? {} : { kind: episode.kind }),
          key,
        }),
      });
    } finally {
      await proxy?.close();
      await provider.close();
    }
    const ledger = `${dir}/ledger.jsonl`;
    const { rows } = await loadLedger(ledger);
    equal(rows.length, 1);
    const digest = rows[0].episode_log_digest;
    const log = digest === undefined ? null : await openEpisodeLog(`${dir}/artifacts`, digest);
    const validated = episode.cliValidate
      ? await cli("validate", ledger, "--plan", frozen.path)
      : null;
    return {
      row: rows[0],
      requests: provider.requests(),
      arrivals: proxy?.arrivals() ?? [],
      cmd,
      calls: log?.calls ?? [],
      bodies: log?.bodies ?? [],
      errors: await ledgerErrors(ledger, frozen.value),
      validate: validated && { code: validated.code, stdout: validated.stdout },
    };
  } finally {
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
    await Deno.remove(dir, { recursive: true });
  }
}
