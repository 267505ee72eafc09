import assert from "node:assert/strict";
import { FAST_PATH_ENABLED, fastEpisode, fingerprint, INLINE_FIELDS } from "./_fast_episode.ts";
import { Episode, EpisodeInput } from "./schema.ts";
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

Deno.test("fastEpisode() checks every field it knows inline (the schema still matches its references)", () => {
  // When this fails, a field of EpisodeInput changed: its inline check is no
  // longer used (zod checks it instead, so results stay right); update the
  // reference and the inline check in _fast_episode.ts.
  const expected = [
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
    "prev_sha256",
    "notes",
  ];
  assert.deepEqual([...INLINE_FIELDS].sort(), [...expected].sort());
  // and the schema still has the fields, in the order, the fast path writes out
  assert.equal(FAST_PATH_ENABLED, true);
  assert.notEqual(fingerprint(EpisodeInput.shape.run_id), fingerprint(EpisodeInput.shape.lane));
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

Deno.test("readLedger() with the fast path keeps zod's rows and messages, invalid UTF-8 included", async () => {
  const { readLedger } = await import("./read_ledger.ts");
  const { parseLine } = await import("./jsonl.ts");
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
  const ledger = await readLedger(path, { lenient: true });
  assert.equal(ledger.rows.length, 1);
  assert.equal(ledger.rows[0].notes, "bad byte \uFFFD here");
  // the message a strict decode gives (Deno's TextDecoder with fatal: true)
  let expected = "";
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(invalid);
  } catch (error) {
    expected = `not valid JSON: ${(error as Error).message}`;
  }
  assert.deepEqual(ledger.problems, [{
    code: "malformed_json",
    file: path,
    line: 2,
    field: "",
    message: expected,
  }]);
  // parseLine with and without the fast path: same value, same problem
  for (const bytes of [replacement, invalid, line({ attempt: 0 }), line({ bogus: 1 })]) {
    const slow = parseLine(Episode, { bytes, file: "f", line: 1 });
    const fast = parseLine(Episode, { bytes, file: "f", line: 1 }, { fast: fastEpisode });
    assert.equal(JSON.stringify(fast), JSON.stringify(slow));
  }
});
