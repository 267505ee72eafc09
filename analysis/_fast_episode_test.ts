import assert, { equal } from "node:assert/strict";
import { z } from "zod";
import {
  deriveFastParser,
  EPISODE_DELEGATED,
  FAST_PATH_ENABLED,
  fastEpisode,
} from "./_fast_episode.ts";
import { Episode, EpisodeInput } from "./schema/records.ts";
import { generateSyntheticLedger } from "../tools/synthetic_ledger.ts";
import { seededRandom } from "./seeded_random.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** zod's verdict and the fast path's must agree exactly: same acceptance, same bytes. */
function crossCheck(raw: Record<string, unknown>, what: string): boolean {
  const slow = Episode.safeParse(raw);
  const fast = fastEpisode(raw);
  assert.equal(fast !== undefined, slow.success, `${what}: acceptance differs`);
  if (fast !== undefined && slow.success) {
    // JSON.stringify is key-order sensitive: same keys, order, defaults and omissions
    assert.equal(JSON.stringify(fast), JSON.stringify(slow.data), what);
    assert.deepEqual(fast, slow.data, what);
  }
  return slow.success;
}

async function exampleRows(): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const name of ["sample_ledger.jsonl", "synthetic_ledger.jsonl"]) {
    const text = await Deno.readTextFile(`${ROOT}/ledgers/examples/${name}`);
    for (const line of text.split("\n")) if (line !== "") rows.push(JSON.parse(line));
  }
  // Rows of judged tasks (issue 14): the judge record's arrays of attempts and scores.
  const judged = await Deno.readTextFile(`${ROOT}/tests/fixtures/judge/judged_ledger.jsonl`);
  for (const line of judged.split("\n")) if (line !== "") rows.push(JSON.parse(line));
  // Rows with a verification record (issue 22): sealed by reward file, by line, shared with hijacks.
  for (const raw of rows.slice(0, 3)) rows.push(...verifiedRows(raw));
  for (const detail of ["full", "compact"] as const) {
    for (const chained of [true, false]) {
      for (
        const line of generateSyntheticLedger({ rows: 200, agents: 3, seed: 5, detail, chained })
      ) {
        rows.push(JSON.parse(line));
      }
    }
  }
  return rows;
}

/** Verification records as the runner writes them (issue 22), minimal and full. */
const VERIFICATIONS: Record<string, unknown>[] = [
  {
    mode: "sealed",
    reward: { correctness: 1, performance: 0.7 },
    reward_file: "reward.json",
    decided_by: "min of 2 keys",
    hijacks: [],
    egress_allowed: 0,
    egress_denied: 0,
  },
  // a line verdict; the defaults (hijacks [], egress 0) left to the schema
  { mode: "sealed", reward: null, reward_file: null, decided_by: null },
  {
    mode: "shared",
    reward: { reward: 1 },
    reward_file: "reward.txt",
    decided_by: 'key "reward"',
    hijacks: [{ flag: "conftest", path: "/app/conftest.py" }, {
      flag: "pth_file",
      path: "/usr/lib/python3/site-packages/x.pth",
    }],
    egress_allowed: 3,
    egress_denied: 1,
  },
];

/** `raw` with each of {@link VERIFICATIONS}. */
function verifiedRows(raw: Record<string, unknown>): Record<string, unknown>[] {
  return VERIFICATIONS.map((verification) => ({ ...raw, verification }));
}

Deno.test("fastEpisode() is derived from the whole Episode schema, nothing left to zod", () => {
  // When this fails, Episode gained a node the derivation does not know (listed here): rows
  // stay right (that node is checked by its own zod schema), but teach _fast_episode.ts the kind.
  assert.equal(FAST_PATH_ENABLED, true);
  assert.deepEqual(EPISODE_DELEGATED, []);
});

Deno.test("deriveFastParser() leaves what it does not know to zod, node by node or whole", () => {
  const schema = z.object({
    email: z.string().email(), // string format "email": delegated
    big: z.bigint().optional(), // kind "bigint": delegated
    third: z.number().multipleOf(3).default(3), // check "multiple_of": delegated
    tags: z.array(z.string()).min(1).default(["t"]), // a check on an array: delegated
    notes: z.array(z.string()).default([]), // a plain array: derived
    name: z.string().min(2).max(4).nullable(),
    kind: z.union([z.literal("a"), z.enum(["b", "c"])]),
  }).strict().refine((row) => row.name !== "nope", { message: "no" });
  const fast = deriveFastParser(schema);
  assert.equal(fast.derived, true);
  assert.deepEqual(fast.delegated, ["email", "big", "third", "tags"]);
  const values: Record<string, unknown[]> = {
    email: ["a@b.co", "nope", 1, undefined],
    third: [3, 4, 6.0, "3", undefined],
    tags: [["x"], [1], [], undefined],
    name: ["ab", "abcd", "a", "abcde", null, "nope", undefined],
    kind: ["a", "b", "d", undefined],
  };
  let accepted = 0;
  for (const email of values.email) {
    for (const third of values.third) {
      for (const tags of values.tags) {
        for (const name of values.name) {
          for (const kind of values.kind) {
            const raw = JSON.parse(JSON.stringify({ email, third, tags, name, kind }));
            const slow = schema.safeParse(raw);
            const got = fast.parse(raw);
            assert.equal(got !== undefined, slow.success, JSON.stringify(raw));
            if (slow.success) {
              assert.equal(JSON.stringify(got), JSON.stringify(slow.data));
              accepted++;
            }
          }
        }
      }
    }
  }
  // a@b.co × {3, 6, absent} × {["x"], absent} × {ab, abcd, null} × {a, b}: 1 × 3 × 2 × 3 × 2
  assert.equal(accepted, 36);
  // zod passes an absent value into an optional's inner default: left to zod, which fills it.
  const optionalDefault = deriveFastParser(z.object({ o: z.string().default("x").optional() }));
  assert.deepEqual(optionalDefault.delegated, ["o"]);
  assert.deepEqual(optionalDefault.parse({}), { o: "x" });
  // A root the derivation cannot walk: the fast path answers nothing, zod parses every row.
  const opaque = deriveFastParser(z.tuple([z.string()]));
  assert.deepEqual([opaque.derived, opaque.delegated, opaque.parse(["x"])], [
    false,
    ["(root)"],
    undefined,
  ]);
});

Deno.test("deriveFastParser() reads a record of plain string keys as zod does, and leaves others to zod", () => {
  const schema = z.object({
    plain: z.record(z.string(), z.number().int()),
    checked: z.record(z.string().min(2), z.number()).optional(), // a key check: delegated
    named: z.record(z.enum(["a", "b"]), z.number()).optional(), // enum keys: delegated
  }).strict();
  const fast = deriveFastParser(schema);
  assert.deepEqual(fast.delegated, ["checked", "named"]);
  const cases: unknown[] = [
    { plain: {} },
    { plain: { b: 2, a: 1, "1": 0 } },
    { plain: { a: 1.5 } },
    { plain: { a: "1" } },
    { plain: [] },
    { plain: null },
    { plain: Object.create(null) },
    { plain: { constructor: 1 } },
    { plain: JSON.parse('{"__proto__": 5, "a": 1}') },
    { plain: { a: 1 }, checked: { ab: 1 } },
    { plain: { a: 1 }, checked: { a: 1 } },
    { plain: { a: 1 }, named: { a: 1, b: 2 } },
    { plain: { a: 1 }, named: { a: 1 } },
  ];
  for (const raw of cases) {
    const slow = schema.safeParse(raw);
    const got = fast.parse(raw);
    assert.equal(got !== undefined, slow.success, String(JSON.stringify(raw)));
    if (slow.success) assert.equal(JSON.stringify(got), JSON.stringify(slow.data));
  }
  // a new object, never the input
  const input = { plain: { a: 1 } };
  assert.notEqual((fast.parse(input) as typeof input).plain, input.plain);
});

Deno.test("deriveFastParser() keeps zod's object modes, defaults and omissions", () => {
  const inner = z.object({ a: z.number().int().nonnegative(), b: z.string().optional() });
  const schema = z.object({
    strip: inner, // zod's default: unknown keys dropped
    strict: inner.strict(),
    fresh: z.object({ n: z.number() }).default({ n: 1 }),
  }).strict();
  const fast = deriveFastParser(schema);
  const cases: unknown[] = [
    { strip: { a: 1, extra: true }, strict: { a: 2 } },
    { strip: { a: 1 }, strict: { a: 2, extra: true } },
    { strip: { a: 1, b: "x" }, strict: { a: 0, b: "y" }, fresh: { n: 5 } },
    { strip: { a: -1 }, strict: { a: 2 } },
    { strip: { a: 2 ** 53 }, strict: { a: 2 } },
    { strip: [], strict: { a: 2 } },
    { strip: { a: 1 }, strict: { a: 2 }, other: 1 },
  ];
  for (const raw of cases) {
    const slow = schema.safeParse(raw);
    const got = fast.parse(raw);
    assert.equal(got !== undefined, slow.success, JSON.stringify(raw));
    if (slow.success) assert.equal(JSON.stringify(got), JSON.stringify(slow.data));
  }
  // a default object is zod's fresh copy, never one object shared between rows
  const one = fast.parse({ strip: { a: 1 }, strict: { a: 1 } }) as { fresh: { n: number } };
  const two = fast.parse({ strip: { a: 1 }, strict: { a: 1 } }) as { fresh: { n: number } };
  assert.deepEqual(one.fresh, { n: 1 });
  assert.notEqual(one.fresh, two.fresh);
});

Deno.test("fastEpisode() gives zod's exact output on every example and generated row", async () => {
  const rows = await exampleRows();
  assert.ok(rows.length > 1000);
  for (const [i, raw] of rows.entries()) {
    assert.ok(crossCheck(raw, `row ${i}`), `row ${i} is valid`);
  }
});

/** Values each field is mutated to: right, wrong and edge cases of every type the schema uses. */
const HEX = "0123456789abcdef".repeat(4);
const POOL: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  1,
  -1,
  1.5,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  "",
  "x",
  "scored",
  "invalid",
  "completed",
  "token_cap",
  "verifier_fault",
  "default",
  HEX,
  HEX.toUpperCase(),
  `sha256:${HEX}`,
  "2026-09-05T09:00:00Z",
  "2026-09-05T09:00:00.123Z",
  "2026-02-30T09:00:00Z",
  "2026-09-05T09:00:00+02:00",
  [],
  {},
  { token_cap: 1 },
  { token_cap: 1, step_cap: null, wall_ms_cap: 3 },
  { token_cap: -1 },
  { token_cap: 1, bogus: 2 },
  { server_model_id: "m", usage_source: "server", request_fingerprint: HEX },
  { server_model_id: null, usage_source: "absent", request_fingerprint: null, extra: 1 },
  // evidence with seed 000's output policy and context limit (a valid one, a cap of 0, nulls)
  {
    server_model_id: "m",
    usage_source: "server",
    request_fingerprint: HEX,
    max_output_tokens: 256,
    context_limit_tokens: 4096,
    max_call_tokens: 300,
  },
  { server_model_id: "m", usage_source: "server", request_fingerprint: HEX, max_output_tokens: 0 },
  {
    server_model_id: null,
    usage_source: "server",
    request_fingerprint: null,
    max_output_tokens: null,
    context_limit_tokens: 8,
    max_call_tokens: null,
  },
  {
    agent_image_digest: `sha256:${HEX}`,
    verifier_image_digest: null,
    runner_version: "1",
    sandbox: "docker",
  },
  ...VERIFICATIONS,
  { mode: "sealed", reward: { reward: "1" }, reward_file: "reward.json", decided_by: null },
];

Deno.test("fastEpisode() agrees with zod on every single-field mutation of real rows", async () => {
  const rows = await exampleRows();
  // one row of each distinct shape (set of keys, status, stop reason)
  const shapes = new Map<string, Record<string, unknown>>();
  for (const raw of rows) {
    const shape = `${Object.keys(raw).sort().join()}|${raw.status}|${raw.stop_reason}`;
    if (!shapes.has(shape)) shapes.set(shape, raw);
  }
  // every third shape keeps the test quick (each zod rejection builds an error)
  const bases = [...shapes.values()].filter((_, i) => i % 3 === 0);
  assert.ok(bases.length >= 8, `${bases.length} shapes`);
  const keys = [...Object.keys(EpisodeInput.shape), "bogus", "__proto__"];
  let accepted = 0;
  let rejected = 0;
  for (const base of bases) {
    for (const key of keys) {
      for (const value of POOL) {
        const raw: Record<string, unknown> = JSON.parse(JSON.stringify(base));
        if (value === undefined) delete raw[key];
        else {Object.defineProperty(raw, key, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });}
        if (crossCheck(raw, `${key} = ${JSON.stringify(value)}`)) accepted++;
        else rejected++;
      }
    }
  }
  // both verdicts occur often: the check is not vacuous
  assert.ok(accepted > 300 && rejected > 3000, `${accepted} accepted, ${rejected} rejected`);
});

Deno.test("fastEpisode() keeps the model-limit evidence fields exactly as zod does", async () => {
  const text = await Deno.readTextFile(`${ROOT}/ledgers/demo/ledger.jsonl`);
  const row = JSON.parse(text.split("\n")[0]);
  // the runner's evidence without the model-limit fields (a plan without model_limits)
  const { max_output_tokens: _o, context_limit_tokens: _c, max_call_tokens: _m, ...evidence } = row
    .evidence as Record<string, unknown>;
  const base = { ...row, evidence };
  // Absent: stays absent, no default materialized.
  const plain = fastEpisode(base)!;
  assert.equal(crossCheck(base, "demo row"), true);
  assert.equal("max_output_tokens" in plain.evidence!, false);
  // Set by a plan with model limits (values as evidenceGate writes them).
  const limited = {
    ...base,
    evidence: {
      ...evidence,
      max_output_tokens: 64,
      context_limit_tokens: null,
      max_call_tokens: 0,
    },
  };
  assert.equal(crossCheck(limited, "limited row"), true);
  assert.deepEqual(fastEpisode(limited)!.evidence, limited.evidence);
  // Invalid values are rejected by both: a cap of 0, a negative or fractional count.
  for (
    const bad of [{ max_output_tokens: 0 }, { context_limit_tokens: -1 }, { max_call_tokens: 1.5 }]
  ) {
    assert.equal(
      crossCheck({ ...base, evidence: { ...evidence, ...bad } }, JSON.stringify(bad)),
      false,
    );
  }
});

Deno.test("fastEpisode() agrees with zod on mutations of a judge record's arrays", async () => {
  const base = (await exampleRows()).find((raw) => {
    const judge = raw.judge as { scores: unknown } | undefined;
    return judge !== undefined && Array.isArray(judge.scores);
  })!;
  const mutations: [string, (judge: Record<string, unknown>) => void][] = [
    ["no attempts", (j) => (j.attempts = [])],
    ["attempts not an array", (j) => (j.attempts = { 0: j.attempts })],
    [
      "an attempt with an extra key",
      (j) => ((j.attempts as object[])[0] = { ...(j.attempts as object[])[0], x: 1 }),
    ],
    ["an attempt that is null", (j) => ((j.attempts as unknown[])[0] = null)],
    ["a score that is not an integer", (j) => ((j.scores as { score: number }[])[0].score = 2.5)],
    ["a score without a name", (j) => delete (j.scores as { name?: string }[])[0].name],
    ["scores null", (j) => (j.scores = null)],
    ["scores a string", (j) => (j.scores = "[]")],
    ["a sparse-looking array", (j) => (j.scores = [...(j.scores as unknown[]), undefined])],
  ];
  let accepted = 0;
  for (const [what, mutate] of mutations) {
    const raw = JSON.parse(JSON.stringify(base));
    mutate(raw.judge);
    if (crossCheck(JSON.parse(JSON.stringify(raw)), what)) accepted++;
  }
  // the empty attempts and the null scores are valid records; the others are not
  assert.equal(accepted, 2);
});

Deno.test("fastEpisode() agrees with zod on mutations of a verification record and its reward", async () => {
  const base = (await exampleRows()).find((raw) => {
    const verification = raw.verification as { reward: unknown } | undefined;
    return verification !== undefined && verification.reward !== null;
  })!;
  const proto = JSON.parse('{"__proto__": 1, "reward": 1}');
  const mutations: [string, (v: Record<string, unknown>) => void, boolean][] = [
    ["as written", () => {}, true],
    ["no hijacks, no egress: defaults", (v) => {
      delete v.hijacks;
      delete v.egress_allowed;
      delete v.egress_denied;
    }, true],
    ["an empty reward", (v) => (v.reward = {}), true],
    [
      "a reward with many keys",
      (v) => (v.reward = { a: 0, b: -1.5, "": 2, "10": 3, "2": 4 }),
      true,
    ],
    ["a reward value that is a string", (v) => (v.reward = { reward: "1" }), false],
    ["a reward value that is null", (v) => (v.reward = { reward: null }), false],
    ["a nested reward", (v) => (v.reward = { reward: { value: 1 } }), false],
    ["a reward that is an array", (v) => (v.reward = [1]), false],
    ["a reward that is a number", (v) => (v.reward = 1), false],
    // zod skips an own "__proto__" key, and so does the fast path
    ["an own __proto__ key", (v) => (v.reward = proto), true],
    // zod's isPlainObject reads "constructor": a record with that key is not plain
    ["a constructor key", (v) => (v.reward = { constructor: 1 }), false],
    ["an unknown mode", (v) => (v.mode = "remote"), false],
    ["a reward file not Harbor's", (v) => (v.reward_file = "reward.csv"), false],
    ["decided_by a number", (v) => (v.decided_by = 1), false],
    ["an extra key", (v) => (v.extra = true), false],
    ["a hijack with an unknown flag", (v) => (v.hijacks = [{ flag: "x", path: "/a" }]), false],
    [
      "a hijack with an extra key",
      (v) => (v.hijacks = [{ flag: "conftest", path: "/a", n: 1 }]),
      false,
    ],
    ["a negative egress count", (v) => (v.egress_denied = -1), false],
    ["a fractional egress count", (v) => (v.egress_allowed = 0.5), false],
  ];
  for (const [what, mutate, valid] of mutations) {
    const raw = JSON.parse(JSON.stringify(base));
    mutate(raw.verification);
    equal(crossCheck(raw, what), valid, what);
  }
  // null is no record: absent is the only "not recorded"
  equal(crossCheck({ ...base, verification: null }, "verification null"), false);
  // the row keeps the reward record whole, every key and number as written
  const row = fastEpisode(JSON.parse(JSON.stringify(base)))!;
  assert.deepEqual(row.verification!.reward, (base.verification as { reward: unknown }).reward);
  // absent: stays absent, never defaulted
  const { verification: _v, ...without } = base;
  assert.equal("verification" in fastEpisode(without)!, false);
  assert.equal(crossCheck(without, "without verification"), true);
});

Deno.test("fastEpisode() agrees with zod on every status / resolved / invalid_reason combination", () => {
  const base = {
    run_id: "r",
    agent_id: "a",
    task_id: "t",
    seed: 7,
    prompt_tokens: 1,
    completion_tokens: 2,
    tool_calls: 3,
    wall_ms: 4,
    price_table_id: "p",
  };
  let valid = 0;
  for (const status of [undefined, "scored", "invalid"]) {
    for (const resolved of [undefined, null, true, false]) {
      for (const reason of [undefined, null, "verifier_fault"]) {
        const raw: Record<string, unknown> = { ...base };
        if (status !== undefined) raw.status = status;
        if (resolved !== undefined) raw.resolved = resolved;
        if (reason !== undefined) raw.invalid_reason = reason;
        if (crossCheck(raw, JSON.stringify(raw))) valid++;
      }
    }
  }
  // valid: scored (or absent) with resolved true/false and no reason (2 x 2 x 2 = 8),
  // and invalid with resolved null and a reason (1)
  assert.equal(valid, 9);
});

Deno.test("fastEpisode() agrees with zod on randomly combined mutations (seeded)", async () => {
  const rows = await exampleRows();
  const random = seededRandom("fast-episode");
  const keys = Object.keys(EpisodeInput.shape);
  for (let trial = 0; trial < 3000; trial++) {
    const raw: Record<string, unknown> = JSON.parse(
      JSON.stringify(rows[Math.floor(random() * rows.length)]),
    );
    const changes = 1 + Math.floor(random() * 3);
    for (let c = 0; c < changes; c++) {
      const key = keys[Math.floor(random() * keys.length)];
      const value = POOL[Math.floor(random() * POOL.length)];
      if (value === undefined) delete raw[key];
      else raw[key] = value;
    }
    crossCheck(raw, `trial ${trial}`);
  }
});

Deno.test("loadLedger() with the fast path keeps zod's rows and messages, invalid UTF-8 included", async () => {
  const { loadLedger } = await import("../inputs/ledger.ts");
  const { parseLine } = await import("../inputs/jsonl.ts");
  const dir = await Deno.makeTempDir();
  const encoder = new TextEncoder();
  const line = (fields: Record<string, unknown>) =>
    encoder.encode(JSON.stringify({
      run_id: "r",
      agent_id: "a",
      task_id: "t",
      seed: 7,
      resolved: true,
      prompt_tokens: 1,
      completion_tokens: 2,
      tool_calls: 3,
      wall_ms: 4,
      price_table_id: "p",
      ...fields,
    }));
  // a genuine U+FFFD in a note is valid UTF-8 (EF BF BD) and must load
  const replacement = line({ task_id: "t1", notes: "bad byte \uFFFD here" });
  // 0xFF can never occur in UTF-8: the strict decoder must reject the line
  const invalid = new Uint8Array([...line({ task_id: "t2" }).slice(0, -1), 0xff, 0x7d]);
  const path = `${dir}/ledger.jsonl`;
  const newline = new Uint8Array([10]);
  await Deno.writeFile(path, new Uint8Array([...replacement, ...newline, ...invalid, ...newline]));
  const ledger = await loadLedger(path, { lenient: true });
  assert.equal(ledger.rows.length, 1);
  assert.equal(ledger.rows[0].notes, "bad byte \uFFFD here");
  // the strict reader names the first bad byte (0xFF, never in UTF-8; 1-based) and the next
  assert.deepEqual(ledger.problems, [{
    code: "bad_encoding",
    file: path,
    line: 2,
    field: "",
    message: `not valid UTF-8 at byte ${invalid.indexOf(0xff) + 1} (0xFF 0x7D)`,
  }]);
  // parseLine with and without the fast path: same value, same problem
  for (const bytes of [replacement, invalid, line({ attempt: 0 }), line({ bogus: 1 })]) {
    const slow = parseLine(Episode, { bytes, file: "f", line: 1 });
    const fast = parseLine(Episode, { bytes, file: "f", line: 1 }, { fast: fastEpisode });
    assert.equal(JSON.stringify(fast), JSON.stringify(slow));
  }
});
