import { deepEqual, equal, ok } from "node:assert/strict";
import { parsePairJudgment, parseScoreJudgment, QUOTE_CHARS } from "./parse_judgment.ts";
import { MIXED_RUBRIC, SEED_RUBRIC } from "./_test_rubrics.ts";

/** The problem of a reply that must be refused. */
function problem(reply: string): string {
  const result = parseScoreJudgment(reply, SEED_RUBRIC);
  if (result.ok) throw new Error(`accepted: ${reply}`);
  ok(!result.problem.includes("\n"), `one line: ${result.problem}`);
  return result.problem;
}

function pairProblem(reply: string): string {
  const result = parsePairJudgment(reply);
  if (result.ok) throw new Error(`accepted: ${reply}`);
  ok(!result.problem.includes("\n"), `one line: ${result.problem}`);
  return result.problem;
}

const GOOD = JSON.stringify({
  scores: [
    { name: "correctness", score: 4 },
    { name: "completeness", score: 5 },
    { name: "clarity", score: 3 },
  ],
  rationale: "Right, complete, a little dense.",
});

/** A seed-rubric reply with the given entries. */
function entries(...scores: unknown[]): string {
  return JSON.stringify({ scores });
}

Deno.test("parseScoreJudgment() reads a good reply: rubric order, the seed's total", () => {
  // Weights 3, 2, 1; scores 4, 5, 3: python3: 25*20.0/6 -> 83.33333333333333
  deepEqual(parseScoreJudgment(GOOD, SEED_RUBRIC), {
    ok: true,
    scores: [
      { name: "correctness", score: 4 },
      { name: "completeness", score: 5 },
      { name: "clarity", score: 3 },
    ],
    total: 83.33333333333333,
  });
  // Entries in any order, no rationale, surrounding whitespace and newlines inside.
  const shuffled = '\n  {"scores": [\n {"score": 3, "name": "clarity"},\n' +
    '{"name": "correctness", "score": 4}, {"name": "completeness", "score": 5}]}\n\n';
  const result = parseScoreJudgment(shuffled, SEED_RUBRIC);
  ok(result.ok);
  deepEqual(result.scores.map((s) => s.name), ["correctness", "completeness", "clarity"]);
  equal(result.total, 83.33333333333333);
  // Mixed ranges: python3: float(F(100,6)*(F(7,10)*2+F(4,5)*3+F(3,4))) -> 75.83333333333333
  const mixed = parseScoreJudgment(
    entries(
      { name: "accuracy", score: 7 },
      { name: "reasoning", score: 4 },
      { name: "style", score: 3 },
    ),
    MIXED_RUBRIC,
  );
  ok(mixed.ok);
  equal(mixed.total, 75.83333333333333);
  // The range ends are inside: 0 on a 0..10 dimension, 5 on 1..5.
  const ends = parseScoreJudgment(
    entries(
      { name: "accuracy", score: 0 },
      { name: "reasoning", score: 5 },
      { name: "style", score: 4 },
    ),
    MIXED_RUBRIC,
  );
  ok(ends.ok);
  // python3: float(F(100,6)*(0*2+F(5,5)*3+F(4,4))) -> 66.66666666666667
  equal(ends.total, 66.66666666666667);
});

Deno.test("parseScoreJudgment() names a missing, repeated or unknown dimension", () => {
  const c = { name: "correctness", score: 4 };
  const p = { name: "completeness", score: 5 };
  const l = { name: "clarity", score: 3 };
  equal(problem(entries(p, l)), 'the dimension "correctness" has no score');
  equal(problem(entries()), 'the dimension "correctness" has no score');
  equal(
    problem(entries(c, p, l, { name: "clarity", score: 2 })),
    '"scores[3]" repeats the dimension "clarity"',
  );
  equal(
    problem(entries(c, p, { name: "style", score: 3 }, l)),
    '"scores[2]" names the unknown dimension "style"',
  );
  // Names are exact: case matters.
  equal(
    problem(entries(c, p, { name: "Clarity", score: 3 })),
    '"scores[2]" names the unknown dimension "Clarity"',
  );
});

Deno.test("parseScoreJudgment() refuses scores out of range, non-integer or not numbers", () => {
  const c = { name: "correctness", score: 4 };
  const p = { name: "completeness", score: 5 };
  equal(
    problem(entries(c, { name: "clarity", score: 7 }, p)),
    '"scores[1].score" 7 is outside 1..5 for "clarity"',
  );
  equal(
    problem(entries({ name: "correctness", score: 0 }, p)),
    '"scores[0].score" 0 is outside 1..5 for "correctness"',
  );
  equal(
    problem(entries({ name: "correctness", score: -1 }, p)),
    '"scores[0].score" -1 is outside 1..5 for "correctness"',
  );
  equal(
    problem(entries({ name: "correctness", score: 4.5 }, p)),
    '"scores[0].score" must be an integer, not 4.5',
  );
  equal(
    problem(entries({ name: "correctness", score: "4" }, p)),
    '"scores[0].score" must be an integer, not the string "4"',
  );
  equal(
    problem(entries({ name: "correctness", score: null }, p)),
    '"scores[0].score" must be an integer, not null',
  );
  equal(problem(entries({ name: "correctness" })), '"scores[0].score" is missing');
  equal(problem(entries({ score: 4 })), '"scores[0].name" is missing');
  equal(problem(entries({ name: 3, score: 4 })), '"scores[0].name" must be a string, not 3');
  equal(problem(entries(4)), '"scores[0]" must be an object, not 4');
  equal(problem(entries([4])), '"scores[0]" must be an object, not an array');
  equal(
    problem('{"scores": [{"name": "correctness", "score": 1e999}]}'),
    'the reply holds a number out of range at "scores.0.score"',
  );
});

Deno.test("parseScoreJudgment() refuses extra members, repeated keys and the wrong shapes", () => {
  equal(problem('{"scores": [], "foo": 1}'), 'unknown member "foo"');
  equal(
    problem('{"scores": [{"name": "clarity", "score": 3, "weight": 9}]}'),
    '"scores[0]" has the unknown member "weight"',
  );
  equal(problem('{"rationale": "fine"}'), '"scores" is missing');
  equal(problem('{"scores": {"clarity": 3}}'), '"scores" must be an array, not an object');
  equal(problem('{"scores": [], "rationale": 5}'), '"rationale" must be a string, not 5');
  // JSON.parse keeps the last of a repeated key; the reply is refused instead.
  equal(
    problem(
      '{"scores": [{"name": "correctness", "score": 1, "score": 5}, ' +
        '{"name": "completeness", "score": 5}, {"name": "clarity", "score": 3}]}',
    ),
    'the reply repeats the key "scores.0.score" (JSON.parse would keep the last silently)',
  );
  equal(
    problem(`{"scores": [], ${GOOD.slice(1)}`),
    'the reply repeats the key "scores" (JSON.parse would keep the last silently)',
  );
});

Deno.test("parseScoreJudgment() refuses a reply that is not exactly one JSON object", () => {
  equal(problem(""), "the reply is empty");
  equal(problem(" \n\t "), "the reply is empty");
  equal(problem(`[${GOOD}]`), "the reply must be one JSON object");
  equal(problem('"83"'), "the reply must be one JSON object");
  equal(problem("null"), "the reply must be one JSON object");
  equal(
    problem("```json\n" + GOOD + "\n```"),
    "the reply is not JSON: it is fenced as markdown (```); it must be the bare JSON object",
  );
  ok(problem(`Here is my judgment: ${GOOD}`).startsWith('the reply is not JSON: unexpected "H"'));
  ok(problem(`${GOOD}\nHope this helps.`).startsWith("the reply is not JSON: unexpected"));
  equal(
    problem(`${GOOD} ${GOOD}`),
    'the reply is not JSON: unexpected "{" (expected end of text after the value) at column ' +
      `${GOOD.length + 2}`,
  );
  ok(problem("{scores: []}").startsWith("the reply is not JSON: "));
  equal(
    problem('{"scores": [\n  {"name": }]}'),
    'the reply is not JSON: unexpected "}" (expected a value) at column 12 on line 2',
  );
});

Deno.test("parseScoreJudgment() quotes untrusted names bounded and on one line", () => {
  const long = "x".repeat(500);
  equal(
    problem(entries({ name: long, score: 3 })),
    `"scores[0]" names the unknown dimension "${"x".repeat(QUOTE_CHARS)}"… (500 characters)`,
  );
  // A name built to break or reorder the line: JSON escapes the newline, lineText the rest.
  equal(
    problem(entries({ name: "a\nb\u2028c\u202ed", score: 3 })),
    '"scores[0]" names the unknown dimension "a\\nb\\u2028c\\u202ed"',
  );
  equal(problem('{"\\u202egnorts": 1}'), 'unknown member "\\u202egnorts"');
});

Deno.test("parsePairJudgment() reads the three winners", () => {
  deepEqual(parsePairJudgment('{"winner": "A"}'), { ok: true, winner: "A" });
  deepEqual(parsePairJudgment('  {"rationale": "close", "winner": "tie"}\n'), {
    ok: true,
    winner: "tie",
  });
  deepEqual(parsePairJudgment('{"winner": "B", "rationale": ""}'), { ok: true, winner: "B" });
});

Deno.test("parsePairJudgment() refuses every other form", () => {
  equal(pairProblem(""), "the reply is empty");
  equal(pairProblem("{}"), '"winner" is missing');
  equal(pairProblem('{"winner": "a"}'), '"winner" must be "A", "B" or "tie", not the string "a"');
  equal(
    pairProblem('{"winner": "Tie"}'),
    '"winner" must be "A", "B" or "tie", not the string "Tie"',
  );
  equal(pairProblem('{"winner": 1}'), '"winner" must be "A", "B" or "tie", not 1');
  equal(pairProblem('{"winner": ["A"]}'), '"winner" must be "A", "B" or "tie", not an array');
  equal(pairProblem('{"winner": "A", "confidence": 0.9}'), 'unknown member "confidence"');
  equal(
    pairProblem('{"winner": "A", "rationale": null}'),
    '"rationale" must be a string, not null',
  );
  equal(
    pairProblem('{"winner": "A", "winner": "B"}'),
    'the reply repeats the key "winner" (JSON.parse would keep the last silently)',
  );
  equal(pairProblem('["A"]'), "the reply must be one JSON object");
  equal(
    pairProblem('```\n{"winner": "A"}\n```'),
    "the reply is not JSON: it is fenced as markdown (```); it must be the bare JSON object",
  );
  ok(pairProblem("A").startsWith("the reply is not JSON: "));
});
