/**
 * The demo suite: seven tasks in three of seed 000's lanes (A code location
 * and understanding, B software repair, C terminal tasks), with seed 000's
 * lane weights for those lanes (A 8, B 24, C 12).
 *
 * The demo generates it from {@link DEMO_SEED}, a **public** seed written
 * here on purpose so that anyone can regenerate the demo byte for byte. A
 * real evaluation generates its suite from a private 256-bit seed kept
 * outside git (`ledgerbench freeze --seed-file`), as seed 000 requires.
 *
 * @module
 */
import type { SuiteDefinition } from "./_template.ts";
import { a1Locate } from "./templates/a1_locate.ts";
import { a2Callers } from "./templates/a2_callers.ts";
import { b1Range } from "./templates/b1_range.ts";
import { b2Column } from "./templates/b2_column.ts";
import { b3Report } from "./templates/b3_report.ts";
import { c1Counts } from "./templates/c1_counts.ts";
import { c2FilterSum } from "./templates/c2_filter_sum.ts";

/** The public seed of the demo (256 bits, hex). Not private: do not reuse it for a real run. */
export const DEMO_SEED = "de305d5475b4431badb2eb6b9e546014de305d5475b4431badb2eb6b9e546014";

/** The demo suite definition. */
export const DEMO_SUITE: SuiteDefinition = {
  suite_id: "ledgerbench-demo-v1",
  lane_weights: { A: 8, B: 24, C: 12 },
  templates: [a1Locate, a2Callers, b1Range, b2Column, b3Report, c1Counts, c2FilterSum],
};

/**
 * A three-task subset of the demo suite (one task per lane, the fastest
 * verifiers) for smoke runs and integration tests.
 */
export const MINI_SUITE: SuiteDefinition = {
  suite_id: "ledgerbench-mini-v1",
  lane_weights: { A: 8, B: 24, C: 12 },
  templates: [a1Locate, b2Column, c2FilterSum],
};

/** Suite definitions by name, for `ledgerbench freeze --generate <name>`. */
export const SUITES: Record<string, SuiteDefinition> = { demo: DEMO_SUITE, mini: MINI_SUITE };
