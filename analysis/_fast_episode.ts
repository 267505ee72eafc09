/**
 * A fast path for the common ledger row: the same result as
 * `Episode.safeParse(raw)` for rows it accepts, at a fraction of zod's cost.
 * It never decides that a row is bad: anything it does not accept is handed
 * to zod, which then produces the result and the exact error message. So the
 * reader's behaviour and messages stay zod's; only the time changes.
 *
 * How it stays equal to the schema:
 * - it walks `EpisodeInput.shape` in order, so the output has zod's keys, key
 *   order, defaults and omissions (an absent optional key stays absent);
 * - a field is checked inline only when its schema is, at load time, the one
 *   the inline check was written for: same JSON Schema and same result for an
 *   absent value as a local reference schema (`fingerprint`). A field whose
 *   schema changed, or a field added later, is checked by its own zod schema;
 * - the object-level rules of `Episode` (strict keys, the status invariants
 *   and the derived `episode_id`) are repeated here; the cross-check test in
 *   `_fast_episode_test.ts` compares this path with zod on generated and
 *   mutated rows.
 *
 * @module
 */
import { z } from "zod";
import {
  type Episode,
  EpisodeInput,
  EpisodeStatus,
  InvalidReason,
  Sha256,
  StopReason,
} from "./schema.ts";

const FAIL: unique symbol = Symbol("fail");
/** Spread in place of an absent optional key: adds nothing. */
const NONE = {};
type Parse = (value: unknown) => unknown;

const Id = z.string().min(1);
const Count = z.number().int().nonnegative();
const CountOrNull = Count.nullable().default(null);
const NO_CAPS = { token_cap: null, step_cap: null, wall_ms_cap: null };

const isId = (v: unknown): v is string => typeof v === "string" && v.length >= 1;
const isCount = (v: unknown): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
/** 1 for the code units of "0"-"9" and "a"-"f", else 0. */
const HEX_DIGIT = new Uint8Array(65536);
for (const digit of "0123456789abcdef") HEX_DIGIT[digit.charCodeAt(0)] = 1;

/**
 * Same test as the schema's `/^[0-9a-f]{64}$/`, branch-free over the 64
 * characters (about 3× faster than the regular expression here).
 */
function isHex64(v: string): boolean {
  if (v.length !== 64) return false;
  let ok = 1;
  for (let i = 0; i < 64; i++) ok &= HEX_DIGIT[v.charCodeAt(i)];
  return ok === 1;
}

/** A reference schema and the inline parser that implements it. */
interface Inline {
  reference: z.ZodType;
  parse: Parse;
}

function enumParser(options: readonly (string | null)[], fallback: string | null): Parse {
  const allowed = new Set<unknown>(options);
  return (v) => v === undefined ? fallback : allowed.has(v) ? v : FAIL;
}

function capsParser(v: unknown): unknown {
  if (v === undefined) return { token_cap: null, step_cap: null, wall_ms_cap: null };
  if (typeof v !== "object" || v === null || Array.isArray(v)) return FAIL;
  const caps = v as Record<string, unknown>;
  let known = 0;
  const out = {
    token_cap: null as unknown,
    step_cap: null as unknown,
    wall_ms_cap: null as unknown,
  };
  for (const key of ["token_cap", "step_cap", "wall_ms_cap"] as const) {
    if (!Object.hasOwn(caps, key)) continue;
    known++;
    const value = caps[key];
    if (value !== null && !isCount(value)) return FAIL;
    out[key] = value;
  }
  for (const _ in caps) known--;
  return known === 0 ? out : FAIL;
}

/** The inline parsers, by field, with the schema each implements. */
const INLINE: Record<string, Inline> = {
  schema_version: {
    reference: z.literal(1).default(1),
    parse: (v) => v === undefined || v === 1 ? 1 : FAIL,
  },
  run_id: { reference: Id, parse: (v) => isId(v) ? v : FAIL },
  agent_id: { reference: Id, parse: (v) => isId(v) ? v : FAIL },
  task_id: { reference: Id, parse: (v) => isId(v) ? v : FAIL },
  seed: {
    reference: z.union([z.number().int(), z.string()]),
    parse: (v) =>
      typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v)) ? v : FAIL,
  },
  episode_id: { reference: Id.optional(), parse: (v) => v === undefined || isId(v) ? v : FAIL },
  attempt: {
    reference: z.number().int().positive().default(1),
    parse: (v) =>
      v === undefined ? 1 : typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : FAIL,
  },
  lane: {
    reference: Id.default("default"),
    parse: (v) => v === undefined ? "default" : isId(v) ? v : FAIL,
  },
  status: {
    reference: EpisodeStatus.default("scored"),
    parse: enumParser(EpisodeStatus.options, "scored"),
  },
  resolved: {
    reference: z.boolean().nullable(),
    parse: (v) => v === true || v === false || v === null ? v : FAIL,
  },
  invalid_reason: {
    reference: InvalidReason.nullable().default(null),
    parse: enumParser([...InvalidReason.options, null], null),
  },
  stop_reason: {
    reference: StopReason.default("completed"),
    parse: enumParser(StopReason.options, "completed"),
  },
  prompt_tokens: { reference: Count, parse: (v) => isCount(v) ? v : FAIL },
  completion_tokens: { reference: Count, parse: (v) => isCount(v) ? v : FAIL },
  tool_calls: { reference: Count, parse: (v) => isCount(v) ? v : FAIL },
  wall_ms: { reference: Count, parse: (v) => isCount(v) ? v : FAIL },
  model_calls: {
    reference: CountOrNull,
    parse: (v) => v === undefined || v === null ? null : isCount(v) ? v : FAIL,
  },
  caps: {
    reference: z.object({ token_cap: CountOrNull, step_cap: CountOrNull, wall_ms_cap: CountOrNull })
      .strict().default(NO_CAPS),
    parse: capsParser,
  },
  price_table_id: { reference: Id, parse: (v) => isId(v) ? v : FAIL },
  prev_sha256: {
    reference: Sha256.nullable().optional(),
    parse: (v) => v === undefined || v === null || (typeof v === "string" && isHex64(v)) ? v : FAIL,
  },
  notes: {
    reference: z.string().default(""),
    parse: (v) => v === undefined ? "" : typeof v === "string" ? v : FAIL,
  },
};

/**
 * What identifies a field's schema here: its input JSON Schema and what it
 * makes of an absent value (required, optional, or its default).
 */
export function fingerprint(schema: z.ZodType): string {
  const json = JSON.stringify(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }));
  const absent = schema.safeParse(undefined);
  return `${json}|${absent.success ? `default:${JSON.stringify(absent.data)}` : "required"}`;
}

/** A field checked by its own zod schema, with the absent and null results cached when primitive. */
function delegated(schema: z.ZodType): Parse {
  const cache = (value: unknown): { hit: boolean; value: unknown } => {
    const result = schema.safeParse(value);
    if (!result.success) return { hit: true, value: FAIL };
    const data = result.data;
    const primitive = data === null || data === undefined || typeof data !== "object";
    return { hit: primitive, value: data };
  };
  const absent = cache(undefined);
  const nul = cache(null);
  return (v) => {
    if (v === undefined && absent.hit) return absent.value;
    if (v === null && nul.hit) return nul.value;
    const result = schema.safeParse(v);
    return result.success ? result.data : FAIL;
  };
}

const SHAPE = EpisodeInput.shape as Record<string, z.ZodType>;
const KEYS = Object.keys(SHAPE);

/** The fields, in the schema's order, that {@link fastEpisode} writes out. */
const EXPECTED_KEYS = [
  "schema_version",
  "run_id",
  "agent_id",
  "task_id",
  "seed",
  "episode_id",
  "attempt",
  "lane",
  "status",
  "resolved",
  "invalid_reason",
  "stop_reason",
  "prompt_tokens",
  "completion_tokens",
  "tool_calls",
  "model_calls",
  "wall_ms",
  "caps",
  "price_table_id",
  "evidence",
  "environment",
  "artifact_digest",
  "episode_log_digest",
  "started_at",
  "finished_at",
  "prev_sha256",
  "notes",
];

/**
 * Whether the fast path is on: the schema has exactly the fields, in the
 * order, that {@link fastEpisode} builds. A field added, removed or moved in
 * `EpisodeInput` turns it off (zod then parses every row) until this file is
 * updated; `_fast_episode_test.ts` fails meanwhile.
 */
export const FAST_PATH_ENABLED: boolean = KEYS.join() === EXPECTED_KEYS.join();

/** Fields whose inline parser is in use (their schema matches the reference). */
export const INLINE_FIELDS: readonly string[] = KEYS.filter((key) =>
  Object.hasOwn(INLINE, key) && fingerprint(SHAPE[key]) === fingerprint(INLINE[key].reference)
);

/** One parser per field: the inline check when its schema matches, else the field's zod schema. */
const P: Record<string, Parse> = Object.fromEntries(
  KEYS.map((key) => [key, INLINE_FIELDS.includes(key) ? INLINE[key].parse : delegated(SHAPE[key])]),
);
const {
  schema_version: pSchemaVersion,
  run_id: pRunId,
  agent_id: pAgentId,
  task_id: pTaskId,
  seed: pSeed,
  episode_id: pEpisodeId,
  attempt: pAttempt,
  lane: pLane,
  status: pStatus,
  resolved: pResolved,
  invalid_reason: pInvalidReason,
  stop_reason: pStopReason,
  prompt_tokens: pPromptTokens,
  completion_tokens: pCompletionTokens,
  tool_calls: pToolCalls,
  model_calls: pModelCalls,
  wall_ms: pWallMs,
  caps: pCaps,
  price_table_id: pPriceTableId,
  evidence: pEvidence,
  environment: pEnvironment,
  artifact_digest: pArtifactDigest,
  episode_log_digest: pEpisodeLogDigest,
  started_at: pStartedAt,
  finished_at: pFinishedAt,
  prev_sha256: pPrevSha256,
  notes: pNotes,
} = P;

/**
 * Parses a JSON object as an {@link Episode} when it is a well-formed row,
 * with exactly the value `Episode.safeParse(raw).data` would give (same keys,
 * key order, defaults and omissions); returns `undefined` for anything else,
 * leaving the verdict and the message to zod.
 *
 * Checks: no key outside the schema; each field by its inline check or its
 * own zod schema (defaults applied, absent optional keys left out); then
 * `Episode`'s rules: `resolved` null exactly when `status` is `invalid`,
 * `invalid_reason` set exactly when `status` is `invalid`, and `episode_id`
 * defaulting to `"<run_id>/<agent_id>/<task_id>/<attempt>"`. O(fields),
 * straight-line code with one object literal per shape.
 *
 * @param raw the parsed JSON object of one line
 * @returns the row, or `undefined` when zod must decide
 */
export function fastEpisode(raw: Record<string, unknown>): Episode | undefined {
  if (!FAST_PATH_ENABLED) return undefined;
  // No key outside the schema: the fields read below that are present must
  // account for every key (JSON gives no undefined values, no inherited keys).
  let keys = 0;
  for (const _ in raw) keys++;
  const vSchemaVersion = raw.schema_version;
  const vRunId = raw.run_id;
  const vAgentId = raw.agent_id;
  const vTaskId = raw.task_id;
  const vSeed = raw.seed;
  const vEpisodeId = raw.episode_id;
  const vAttempt = raw.attempt;
  const vLane = raw.lane;
  const vStatus = raw.status;
  const vResolved = raw.resolved;
  const vInvalidReason = raw.invalid_reason;
  const vStopReason = raw.stop_reason;
  const vPromptTokens = raw.prompt_tokens;
  const vCompletionTokens = raw.completion_tokens;
  const vToolCalls = raw.tool_calls;
  const vModelCalls = raw.model_calls;
  const vWallMs = raw.wall_ms;
  const vCaps = raw.caps;
  const vPriceTableId = raw.price_table_id;
  const vEvidence = raw.evidence;
  const vEnvironment = raw.environment;
  const vArtifactDigest = raw.artifact_digest;
  const vEpisodeLogDigest = raw.episode_log_digest;
  const vStartedAt = raw.started_at;
  const vFinishedAt = raw.finished_at;
  const vPrevSha256 = raw.prev_sha256;
  const vNotes = raw.notes;
  const present = (vSchemaVersion === undefined ? 0 : 1) +
    (vRunId === undefined ? 0 : 1) +
    (vAgentId === undefined ? 0 : 1) +
    (vTaskId === undefined ? 0 : 1) +
    (vSeed === undefined ? 0 : 1) +
    (vEpisodeId === undefined ? 0 : 1) +
    (vAttempt === undefined ? 0 : 1) +
    (vLane === undefined ? 0 : 1) +
    (vStatus === undefined ? 0 : 1) +
    (vResolved === undefined ? 0 : 1) +
    (vInvalidReason === undefined ? 0 : 1) +
    (vStopReason === undefined ? 0 : 1) +
    (vPromptTokens === undefined ? 0 : 1) +
    (vCompletionTokens === undefined ? 0 : 1) +
    (vToolCalls === undefined ? 0 : 1) +
    (vModelCalls === undefined ? 0 : 1) +
    (vWallMs === undefined ? 0 : 1) +
    (vCaps === undefined ? 0 : 1) +
    (vPriceTableId === undefined ? 0 : 1) +
    (vEvidence === undefined ? 0 : 1) +
    (vEnvironment === undefined ? 0 : 1) +
    (vArtifactDigest === undefined ? 0 : 1) +
    (vEpisodeLogDigest === undefined ? 0 : 1) +
    (vStartedAt === undefined ? 0 : 1) +
    (vFinishedAt === undefined ? 0 : 1) +
    (vPrevSha256 === undefined ? 0 : 1) +
    (vNotes === undefined ? 0 : 1);
  if (present !== keys) return undefined;
  const schema_version = pSchemaVersion(vSchemaVersion);
  const run_id = pRunId(vRunId);
  const agent_id = pAgentId(vAgentId);
  const task_id = pTaskId(vTaskId);
  const seed = pSeed(vSeed);
  const episodeId = pEpisodeId(vEpisodeId);
  const attempt = pAttempt(vAttempt);
  const lane = pLane(vLane);
  const status = pStatus(vStatus);
  const resolved = pResolved(vResolved);
  const invalid_reason = pInvalidReason(vInvalidReason);
  const stop_reason = pStopReason(vStopReason);
  const prompt_tokens = pPromptTokens(vPromptTokens);
  const completion_tokens = pCompletionTokens(vCompletionTokens);
  const tool_calls = pToolCalls(vToolCalls);
  const model_calls = pModelCalls(vModelCalls);
  const wall_ms = pWallMs(vWallMs);
  const caps = pCaps(vCaps);
  const price_table_id = pPriceTableId(vPriceTableId);
  const evidence = pEvidence(vEvidence);
  const environment = pEnvironment(vEnvironment);
  const artifact_digest = pArtifactDigest(vArtifactDigest);
  const episodeLogDigest = pEpisodeLogDigest(vEpisodeLogDigest);
  const started_at = pStartedAt(vStartedAt);
  const finished_at = pFinishedAt(vFinishedAt);
  const prevSha256 = pPrevSha256(vPrevSha256);
  const notes = pNotes(vNotes);
  if (
    schema_version === FAIL || run_id === FAIL || agent_id === FAIL || task_id === FAIL ||
    seed === FAIL || episodeId === FAIL || attempt === FAIL || lane === FAIL ||
    status === FAIL || resolved === FAIL || invalid_reason === FAIL || stop_reason === FAIL ||
    prompt_tokens === FAIL || completion_tokens === FAIL || tool_calls === FAIL ||
    model_calls === FAIL || wall_ms === FAIL || caps === FAIL || price_table_id === FAIL ||
    evidence === FAIL || environment === FAIL || artifact_digest === FAIL ||
    episodeLogDigest === FAIL ||
    started_at === FAIL || finished_at === FAIL || prevSha256 === FAIL || notes === FAIL
  ) {
    return undefined;
  }
  const invalid = status === "invalid";
  if (invalid !== (resolved === null) || invalid !== (invalid_reason !== null)) return undefined;
  // join builds a flat string (a template literal builds a rope), which the
  // reader's episode-id set then hashes and copies faster; same characters
  const derivedId = [run_id, agent_id, task_id, attempt].join("/");
  // zod's key order: the schema's; an absent optional key stays absent (spreading NONE adds no
  // key), and
  // the derived episode_id is appended last (Episode's transform spreads the row first).
  if (episodeId === undefined) {
    if (prevSha256 === undefined) {
      return {
        schema_version,
        run_id,
        agent_id,
        task_id,
        seed,
        attempt,
        lane,
        status,
        resolved,
        invalid_reason,
        stop_reason,
        prompt_tokens,
        completion_tokens,
        tool_calls,
        model_calls,
        wall_ms,
        caps,
        price_table_id,
        evidence,
        environment,
        artifact_digest,
        ...(episodeLogDigest === undefined ? NONE : { episode_log_digest: episodeLogDigest }),
        started_at,
        finished_at,
        notes,
        episode_id: derivedId,
      } as Episode;
    }
    return {
      schema_version,
      run_id,
      agent_id,
      task_id,
      seed,
      attempt,
      lane,
      status,
      resolved,
      invalid_reason,
      stop_reason,
      prompt_tokens,
      completion_tokens,
      tool_calls,
      model_calls,
      wall_ms,
      caps,
      price_table_id,
      evidence,
      environment,
      artifact_digest,
      ...(episodeLogDigest === undefined ? NONE : { episode_log_digest: episodeLogDigest }),
      started_at,
      finished_at,
      prev_sha256: prevSha256,
      notes,
      episode_id: derivedId,
    } as Episode;
  }
  if (prevSha256 === undefined) {
    return {
      schema_version,
      run_id,
      agent_id,
      task_id,
      seed,
      episode_id: episodeId,
      attempt,
      lane,
      status,
      resolved,
      invalid_reason,
      stop_reason,
      prompt_tokens,
      completion_tokens,
      tool_calls,
      model_calls,
      wall_ms,
      caps,
      price_table_id,
      evidence,
      environment,
      artifact_digest,
      ...(episodeLogDigest === undefined ? NONE : { episode_log_digest: episodeLogDigest }),
      started_at,
      finished_at,
      notes,
    } as Episode;
  }
  return {
    schema_version,
    run_id,
    agent_id,
    task_id,
    seed,
    episode_id: episodeId,
    attempt,
    lane,
    status,
    resolved,
    invalid_reason,
    stop_reason,
    prompt_tokens,
    completion_tokens,
    tool_calls,
    model_calls,
    wall_ms,
    caps,
    price_table_id,
    evidence,
    environment,
    artifact_digest,
    ...(episodeLogDigest === undefined ? NONE : { episode_log_digest: episodeLogDigest }),
    started_at,
    finished_at,
    prev_sha256: prevSha256,
    notes,
  } as Episode;
}
