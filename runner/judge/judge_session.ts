/**
 * A judge's own host relay (issue 14): the judge's calls go through a relay
 * started for them, pinned to the plan's judge model and holding the
 * judge's upstream key, so that every judge call is metered and its
 * evidence (server model id, usage, request fingerprint) checked by the
 * same gate as an agent's. Inside a session, one judgment takes at most
 * the plan's `judge.max_attempts` calls, each recorded; nothing is retried
 * beyond them, and a call the provider failed is not retried at all.
 *
 * @module
 */
import {
  JUDGE_REPLY_KEEP_CHARS,
  type JudgeAttempt,
  type JudgeConfig,
  type PairWinner,
} from "../../analysis/schema/records.ts";
import { evidenceGate, type EvidenceGateResult } from "../relay/evidence_gate.ts";
import type { CallBodies } from "../relay/call_bodies.ts";
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import { startRelay } from "../relay/relay.ts";
import { runnerSocketPath } from "../runner_socket_path.ts";
import type { Upstream } from "../relay/upstream.ts";
import { askJudge, type JudgeEndpoint } from "./ask_judge.ts";
import { type JudgeMaterial, type JudgePrompt, pairPrompt } from "./judge_prompt.ts";
import { parsePairJudgment } from "../../analysis/judge/parse_judgment.ts";

/** What a parser makes of one reply: a value, or why the reply is unusable. */
export type ReplyParse<T> = { ok: true; value: T } | { ok: false; problem: string };

/** One judgment's recorded attempts and its value (null: no attempt gave one). */
export interface Judgment<T> {
  attempts: JudgeAttempt[];
  value: T | null;
}

/** What a closed session spent and the gate's decision on its calls. */
export interface JudgeSpend {
  records: RelayCallRecord[];
  bodies: CallBodies[];
  gate: EvidenceGateResult;
}

/** An open judge session. */
export interface JudgeSession {
  /**
   * Asks for one judgment: up to `max_attempts` calls with the same
   * prompt, stopping at the first reply `parse` accepts or the first call
   * without a reply.
   */
  judge<T>(prompt: JudgePrompt, parse: (reply: string) => ReplyParse<T>): Promise<Judgment<T>>;
  /** Closes the relay; the spend and the evidence gate's decision over every call. */
  close(): Promise<JudgeSpend>;
}

/** Options of {@linkcode openJudgeSession}. */
export interface JudgeSessionOptions {
  /** The judge's upstream (its key lives in the relay only). */
  upstream: Upstream;
  config: JudgeConfig;
  /** The relay's upstream timeout per call (the plan's `upstream_timeout_ms`). */
  upstreamTimeoutMs?: number;
}

/**
 * Opens a session: a relay on a fresh unix socket, pinned to
 * `config.model`, without token or step caps (the judge's spend is recorded,
 * the agent's caps are not its).
 *
 * Rule of the attempts (issue 14: "at most a fixed, recorded number of
 * attempts; no silent retries"): attempt k+1 is made only when attempt k's
 * reply was unusable (a `judge_fault` in the making); each attempt keeps
 * its reply's first {@linkcode JUDGE_REPLY_KEEP_CHARS} characters, its whole
 * length and its problem.
 *
 * @param options the upstream, the judge configuration and the timeout
 * @returns the open session
 */
export async function openJudgeSession(options: JudgeSessionOptions): Promise<JudgeSession> {
  const { upstream, config } = options;
  const relay = await startRelay(await runnerSocketPath("judge"), {
    upstreamBaseUrl: upstream.baseUrl,
    upstreamKind: upstream.kind,
    upstreamKey: upstream.key,
    pinnedModel: config.model,
    upstreamTimeoutMs: options.upstreamTimeoutMs,
  });
  const endpoint: JudgeEndpoint = {
    socketPath: relay.socketPath,
    kind: upstream.kind ?? "openai",
    model: config.model,
    parameters: config.parameters,
  };
  return {
    async judge<T>(prompt: JudgePrompt, parse: (reply: string) => ReplyParse<T>) {
      const attempts: JudgeAttempt[] = [];
      for (let i = 0; i < config.max_attempts; i++) {
        const reply = await askJudge(endpoint, prompt);
        if (!reply.ok) {
          attempts.push({ reply: "", reply_chars: 0, problem: reply.problem });
          break;
        }
        const parsed = parse(reply.text);
        attempts.push({
          reply: reply.text.slice(0, JUDGE_REPLY_KEEP_CHARS),
          reply_chars: reply.text.length,
          problem: parsed.ok ? null : parsed.problem,
        });
        if (parsed.ok) return { attempts, value: parsed.value };
      }
      return { attempts, value: null };
    },
    async close() {
      await relay.close();
      const records = relay.records();
      return {
        records,
        bodies: relay.callBodies(),
        gate: evidenceGate(records, {
          expectedModelIds: upstream.expectedModelIds,
          upstreamTimeoutMs: options.upstreamTimeoutMs,
        }),
      };
    },
  };
}

/**
 * A pairwise judgment as seed 000 §06 asks for it (after Zheng et al. 2023):
 * the same two answers judged twice in one session, `x` shown as A first,
 * then with the positions swapped; both runs are returned raw, and
 * `swappedVerdict` (analysis/judge) combines them.
 *
 * @param session the open judge session
 * @param material the task's question, reference and rubric
 * @param x the answer shown first in the first run
 * @param y the other answer
 * @returns the first run (`x` as A) and the second (`y` as A)
 */
export async function judgeSwapped(
  session: JudgeSession,
  material: JudgeMaterial,
  x: string,
  y: string,
): Promise<{ first: Judgment<PairWinner>; second: Judgment<PairWinner> }> {
  const parse = (reply: string): ReplyParse<PairWinner> => {
    const parsed = parsePairJudgment(reply);
    return parsed.ok ? { ok: true, value: parsed.winner } : parsed;
  };
  const first = await session.judge(pairPrompt(material, x, y), parse);
  const second = await session.judge(pairPrompt(material, y, x), parse);
  return { first, second };
}
