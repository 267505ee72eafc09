import assert from "node:assert/strict";
import { z } from "zod";
import { Plan, SprtParams } from "../analysis/schema/records.ts";
import {
  numberListOption,
  numberOption,
  parseCommandArgs,
  parseSeed,
  rangeText,
  schemaRange,
  seedOption,
  textOption,
} from "./_args.ts";
import { UsageError } from "./_command.ts";
import { BOOTSTRAP_ROUNDS_RANGE, TIE_BAND_RANGE } from "./_option_ranges.ts";

const OPTIONS = {
  rounds: { type: "string" },
  agent: { type: "string", multiple: true },
  paired: { type: "boolean" },
} as const;

Deno.test("parseCommandArgs() refuses a repeated option and allows a multiple one", () => {
  assert.throws(
    () => parseCommandArgs(["--rounds", "5", "--rounds", "6"], OPTIONS),
    new UsageError('Option "--rounds" is given more than once'),
  );
  assert.throws(
    () => parseCommandArgs(["--rounds=5", "--rounds", "6"], OPTIONS),
    new UsageError('Option "--rounds" is given more than once'),
  );
  assert.throws(
    () => parseCommandArgs(["--paired", "--paired"], OPTIONS),
    new UsageError('Option "--paired" is given more than once'),
  );
  const { values } = parseCommandArgs(["--agent", "a=x", "--agent", "b=y"], OPTIONS);
  assert.deepEqual(values.agent, ["a=x", "b=y"]);
});

Deno.test("parseCommandArgs() reads a negative number as the value of a string option", () => {
  for (const value of ["-1", "-0.5", "-.5", "-1e3"]) {
    assert.equal(parseCommandArgs(["--rounds", value], OPTIONS).values.rounds, value);
    assert.equal(parseCommandArgs([`--rounds=${value}`], OPTIONS).values.rounds, value);
  }
  // not a number: still a missing value; after "--": a positional
  assert.throws(
    () => parseCommandArgs(["--rounds", "-x"], OPTIONS),
    (error) => error instanceof UsageError,
  );
  const after = parseCommandArgs(["--", "-1"], OPTIONS, { required: ["N"] });
  assert.deepEqual(after.positionals, ["-1"]);
});

Deno.test("schemaRange() reads the plan schema's ends", () => {
  assert.deepEqual(schemaRange(Plan.shape.tie_band), { min: 0, max: 1, integer: false });
  // gt(0).lt(1): exclusive ends stay exclusive for a real number
  assert.deepEqual(schemaRange(SprtParams.shape.alpha), { above: 0, below: 1, integer: false });
  // int().positive().max(PLAN_LIMITS.n_cap): the exclusive 0 becomes an inclusive 1
  assert.deepEqual(
    schemaRange(SprtParams.shape.n_cap),
    { min: 1, max: 10_000, integer: true },
  );
  assert.throws(() => schemaRange(z.number()), /no lower end/);
  assert.throws(() => schemaRange(z.number().min(0)), /no upper end/);
});

Deno.test("BOOTSTRAP_ROUNDS_RANGE, written out, is the plan schema's range of rounds", () => {
  assert.deepEqual(
    BOOTSTRAP_ROUNDS_RANGE,
    schemaRange(Plan.shape.bootstrap.unwrap().shape.rounds),
  );
});

Deno.test("a range read from a schema on first use equals the schema's", () => {
  assert.deepEqual({ ...TIE_BAND_RANGE }, schemaRange(Plan.shape.tie_band));
  assert.deepEqual(TIE_BAND_RANGE, { min: 0, max: 1, integer: false });
});

Deno.test("rangeText() shows inclusive ends as a..b and others in words", () => {
  assert.equal(rangeText({ min: 1, max: 1_000_000, integer: true }), "1..1000000");
  assert.equal(rangeText({ above: 0, below: 1 }), "above 0, below 1");
  assert.equal(rangeText({ above: 0, max: 8 }), "above 0, at most 8");
  assert.equal(rangeText({ min: 0, below: 1 }), "at least 0, below 1");
});

Deno.test("numberOption() and numberListOption() check the range and name the option", () => {
  const rounds = { name: "rounds", range: { min: 1, max: 100, integer: true } };
  assert.equal(numberOption({ rounds: "5" }, rounds), 5);
  assert.equal(numberOption({}, rounds), undefined);
  assert.throws(
    () => numberOption({ rounds: "-1" }, rounds),
    new UsageError('Option "--rounds" must be an integer of at least 1: "-1"'),
  );
  assert.throws(
    () => numberOption({ rounds: "1e12" }, rounds),
    new UsageError('Option "--rounds" must be an integer of at most 100: "1e12"'),
  );
  assert.throws(
    () => numberOption({ rounds: "Infinity" }, rounds),
    new UsageError('Option "--rounds" must be an integer: "Infinity"'),
  );
  const rates = { name: "rates", range: { min: 0, max: 1 } };
  assert.deepEqual(numberListOption({ rates: "0.3, 0.5" }, rates), [0.3, 0.5]);
  assert.throws(
    () => numberListOption({ rates: "0.3,,0.5" }, rates),
    new UsageError('Option "--rates" must be a comma-separated list of numbers: "0.3,,0.5"'),
  );
});

Deno.test("parseSeed() records a safe decimal integer as its number, anything else as given", () => {
  assert.equal(parseSeed("7", "seed"), 7);
  assert.equal(parseSeed("007", "seed"), 7);
  assert.equal(parseSeed("-12", "seed"), -12);
  assert.ok(Object.is(parseSeed("-0", "seed"), 0), "-0 is recorded as 0");
  assert.equal(parseSeed("9007199254740991", "seed"), Number.MAX_SAFE_INTEGER);
  // 2^53 is not a safe integer: kept as its text, so no digit is lost
  assert.equal(parseSeed("9007199254740992", "seed"), "9007199254740992");
  for (const text of ["abc", "1.5", "1e3", "+7", " 7", "0x10"]) {
    assert.equal(parseSeed(text, "seed"), text);
  }
  assert.throws(
    () => parseSeed("", "order-seed"),
    new UsageError('Option "--order-seed" must not be empty'),
  );
  assert.equal(seedOption({ "bootstrap-seed": "007" }, "bootstrap-seed"), 7);
  assert.equal(seedOption({}, "seed"), undefined);
});

Deno.test("textOption() checks the value against its field's schema and names the option", () => {
  const createdAt = { name: "created-at", schema: z.iso.datetime(), form: "an ISO datetime" };
  assert.equal(
    textOption({ "created-at": "2026-12-01T09:30:00Z" }, createdAt),
    "2026-12-01T09:30:00Z",
  );
  assert.equal(textOption({}, createdAt), undefined);
  assert.throws(
    () => textOption({ "created-at": "yesterday" }, createdAt),
    new UsageError('Option "--created-at" must be an ISO datetime: "yesterday"'),
  );
});
