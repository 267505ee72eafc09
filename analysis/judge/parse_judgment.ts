/**
 * Strict parsers of an LLM judge's reply text (issue 14, seed 000 §06): a
 * reply is exactly one JSON object of the asked form, or it is a problem
 * named in one line. A missing, repeated or unknown dimension, an
 * out-of-range or non-integer score, an extra member, a repeated JSON key, a
 * markdown fence or text around the object: each is a problem, never a
 * silent 0 (the row becomes invalid, `judge_fault`).
 *
 * The reply is untrusted text (the judged answer may try to steer the judge,
 * and the judge's text is the model's): every value a problem quotes is
 * shown through `JSON.stringify`, cut to {@link QUOTE_CHARS} characters, with
 * line-breaking and bidirectional characters escaped (`lineText` of
 * `analysis/untrusted_text.ts`).
 *
 * @module
 */
import { parseJsonObject } from "../schema/strict_json.ts";
import type { DimensionScore, PairWinner, Rubric } from "../schema/records.ts";
import { lineText } from "../untrusted_text.ts";
import { weightedTotal } from "./weighted_total.ts";

/** The longest piece of a reply a problem quotes, in characters (code points). */
export const QUOTE_CHARS = 60;

/** A parsed score judgment, or why the reply is not one; plain JSON data. */
export type ScoreJudgment =
  | {
    ok: true;
    /** One score per dimension, in the rubric's order. */
    scores: DimensionScore[];
    /** The weighted 0–100 total ({@link weightedTotal}). */
    total: number;
  }
  | { ok: false; problem: string };

/** A parsed pairwise judgment, or why the reply is not one; plain JSON data. */
export type PairJudgment =
  | { ok: true; winner: PairWinner }
  | { ok: false; problem: string };

const SCORE_MEMBERS = new Set(["scores", "rationale"]);
const ENTRY_MEMBERS = new Set(["name", "score"]);
const PAIR_MEMBERS = new Set(["winner", "rationale"]);
const WINNERS: readonly string[] = ["A", "B", "tie"];

/**
 * Parses a judge's reply to a score prompt against the task's rubric.
 *
 * Rule: the reply, after trimming whitespace, is exactly one JSON object
 * `{"scores": [{"name": "<dimension>", "score": <integer>}, ...],
 * "rationale": "<optional string>"}` (RFC 8259 with unique keys: a repeated
 * key, which `JSON.parse` would resolve silently to the last, is refused,
 * by `parseJsonObject` of `analysis/schema/strict_json.ts`, a pure function). No
 * markdown fence, no text around it, no other member. Every dimension of the
 * rubric has exactly one entry, every entry names a dimension, every score is
 * an integer in the dimension's `min..max` (seed 000 §06: "a missing
 * dimension, a duplicate score or an out-of-range score is an error in the
 * program, never silently 0"). The first problem found is returned; the
 * checks run in the reply's order, the missing dimensions last. The total
 * is {@link weightedTotal}'s. Cost: O(reply length + dimensions).
 *
 * @param reply the judge model's reply text, untrusted
 * @param rubric the task's rubric
 * @returns the scores in rubric order and the total, or a one-line problem
 * @throws {RangeError} only from {@link weightedTotal}, for a rubric whose score ranges are
 *   too large to total exactly (a fault of the rubric, not of the reply)
 * @example
 * ```ts
 * import { parseScoreJudgment } from "./parse_judgment.ts";
 * const rubric = {
 *   schema_version: 1 as const,
 *   rubric_id: "essay",
 *   pass_threshold: 60,
 *   dimensions: [{ name: "clarity", weight: 1, min: 1, max: 5, guidance: "Is it clear?" }],
 * };
 * const good = parseScoreJudgment('{"scores": [{"name": "clarity", "score": 4}]}', rubric);
 * if (!good.ok || good.total !== 80) throw new Error(JSON.stringify(good));
 * const bad = parseScoreJudgment('{"scores": [{"name": "clarity", "score": 7}]}', rubric);
 * if (bad.ok || bad.problem !== '"scores[0].score" 7 is outside 1..5 for "clarity"') {
 *   throw new Error(JSON.stringify(bad));
 * }
 * ```
 */
export function parseScoreJudgment(reply: string, rubric: Rubric): ScoreJudgment {
  const object = replyObject(reply);
  if (typeof object === "string") return { ok: false, problem: object };
  const members = memberProblem(object, SCORE_MEMBERS, "");
  if (members !== null) return { ok: false, problem: members };
  if (!Object.hasOwn(object, "scores")) return { ok: false, problem: '"scores" is missing' };
  const rationale = rationaleProblem(object);
  if (rationale !== null) return { ok: false, problem: rationale };
  const entries = object.scores;
  if (!Array.isArray(entries)) {
    return { ok: false, problem: `"scores" must be an array, not ${describe(entries)}` };
  }
  const dimensions = new Map(rubric.dimensions.map((d) => [d.name, d]));
  const byName = new Map<string, number>();
  for (const [i, entry] of entries.entries()) {
    const at = `"scores[${i}]"`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      return { ok: false, problem: `${at} must be an object, not ${describe(entry)}` };
    }
    const inner = memberProblem(entry, ENTRY_MEMBERS, at);
    if (inner !== null) return { ok: false, problem: inner };
    if (!Object.hasOwn(entry, "name")) {
      return { ok: false, problem: `"scores[${i}].name" is missing` };
    }
    const name: unknown = entry.name;
    if (typeof name !== "string") {
      return { ok: false, problem: `"scores[${i}].name" must be a string, not ${describe(name)}` };
    }
    const dimension = dimensions.get(name);
    if (dimension === undefined) {
      return { ok: false, problem: `${at} names the unknown dimension ${quote(name)}` };
    }
    if (byName.has(name)) {
      return { ok: false, problem: `${at} repeats the dimension ${quote(name)}` };
    }
    if (!Object.hasOwn(entry, "score")) {
      return { ok: false, problem: `"scores[${i}].score" is missing` };
    }
    const score: unknown = entry.score;
    if (typeof score !== "number" || !Number.isInteger(score)) {
      return {
        ok: false,
        problem: `"scores[${i}].score" must be an integer, not ${describe(score)}`,
      };
    }
    if (score < dimension.min || score > dimension.max) {
      return {
        ok: false,
        problem: `"scores[${i}].score" ${score} is outside ${dimension.min}..${dimension.max} ` +
          `for ${quote(name)}`,
      };
    }
    byName.set(name, score);
  }
  const scores: DimensionScore[] = [];
  for (const { name } of rubric.dimensions) {
    const score = byName.get(name);
    if (score === undefined) {
      return { ok: false, problem: `the dimension ${quote(name)} has no score` };
    }
    scores.push({ name, score });
  }
  return { ok: true, scores, total: weightedTotal(rubric, scores) };
}

/**
 * Parses a judge's reply to a pairwise prompt.
 *
 * Rule: the reply, after trimming whitespace, is exactly one JSON object
 * `{"winner": "A" | "B" | "tie", "rationale": "<optional string>"}`, with
 * unique keys and no other member, no fence and no text around it (the same
 * reading as {@link parseScoreJudgment}). The winner is case-sensitive.
 * Cost: O(reply length).
 *
 * @param reply the judge model's reply text, untrusted
 * @returns the winner in the prompt's labels, or a one-line problem
 * @example
 * ```ts
 * import { parsePairJudgment } from "./parse_judgment.ts";
 * const good = parsePairJudgment('{"winner": "B", "rationale": "B handles the edge case"}');
 * if (!good.ok || good.winner !== "B") throw new Error(JSON.stringify(good));
 * if (parsePairJudgment('{"winner": "b"}').ok) throw new Error("the winner is case-sensitive");
 * ```
 */
export function parsePairJudgment(reply: string): PairJudgment {
  const object = replyObject(reply);
  if (typeof object === "string") return { ok: false, problem: object };
  const members = memberProblem(object, PAIR_MEMBERS, "");
  if (members !== null) return { ok: false, problem: members };
  if (!Object.hasOwn(object, "winner")) return { ok: false, problem: '"winner" is missing' };
  const rationale = rationaleProblem(object);
  if (rationale !== null) return { ok: false, problem: rationale };
  const winner: unknown = object.winner;
  if (typeof winner !== "string" || !WINNERS.includes(winner)) {
    return { ok: false, problem: `"winner" must be "A", "B" or "tie", not ${describe(winner)}` };
  }
  return { ok: true, winner: winner as PairWinner };
}

/** The reply's one JSON object, or the problem with it. */
function replyObject(reply: string): Record<string, unknown> | string {
  const text = reply.trim();
  if (text === "") return "the reply is empty";
  if (text.startsWith("```")) {
    return "the reply is not JSON: it is fenced as markdown (```); it must be the bare JSON object";
  }
  const parsed = parseJsonObject(new TextEncoder().encode(text), "a line", text);
  if (parsed.ok) return parsed.value;
  const { code, field, line, message } = parsed.problem;
  if (code === "duplicate_key") {
    return `the reply repeats the key ${quote(field)} (JSON.parse would keep the last silently)`;
  }
  if (code === "number_out_of_range") {
    return `the reply holds a number out of range at ${quote(field)}`;
  }
  if (isJson(text)) return "the reply must be one JSON object";
  const detail = message.replace(/^not valid JSON:? ?/, "");
  return `the reply is not JSON: ${detail === "" ? "a syntax error" : lineText(detail)}` +
    (line > 1 ? ` on line ${line}` : "");
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The first member of `object` not in `allowed`, as a problem, or null. */
function memberProblem(
  object: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  at: string,
): string | null {
  for (const key of Object.keys(object)) {
    if (!allowed.has(key)) {
      return at === ""
        ? `unknown member ${quote(key)}`
        : `${at} has the unknown member ${quote(key)}`;
    }
  }
  return null;
}

function rationaleProblem(object: Record<string, unknown>): string | null {
  if (!Object.hasOwn(object, "rationale") || typeof object.rationale === "string") return null;
  return `"rationale" must be a string, not ${describe(object.rationale)}`;
}

/** A JSON value as a problem names it: numbers and literals as written, strings quoted. */
function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return `the string ${quote(value)}`;
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}

/**
 * Untrusted text quoted for a one-line problem: at most {@link QUOTE_CHARS}
 * code points through `JSON.stringify`, the characters it leaves raw that
 * break or reorder a line escaped, and a cut text marked with its length.
 */
function quote(text: string): string {
  const chars = [...text];
  const shown = lineText(JSON.stringify(chars.slice(0, QUOTE_CHARS).join("")));
  return chars.length <= QUOTE_CHARS ? shown : `${shown}… (${chars.length} characters)`;
}
