/**
 * Random draws for task templates, all from one seeded stream
 * (`analysis/seeded_random.ts`), so a template's variant is a pure function
 * of the suite seed.
 *
 * @module
 */
import { type Random, randomIndex } from "../../analysis/seeded_random.ts";

/** Words templates build identifiers and data from. */
export const WORDS: readonly string[] = [
  "amber",
  "basil",
  "cedar",
  "delta",
  "ember",
  "fable",
  "gamma",
  "harbor",
  "indigo",
  "jasper",
  "kernel",
  "lumen",
  "maple",
  "nectar",
  "onyx",
  "pebble",
  "quartz",
  "raven",
  "sable",
  "tundra",
  "umber",
  "velvet",
  "willow",
  "xenon",
  "yarrow",
  "zephyr",
  "anchor",
  "beacon",
  "cobalt",
  "dune",
  "ember2",
  "falcon",
  "garnet",
  "hollow",
  "iris",
  "juniper",
  "kestrel",
  "lotus",
  "meadow",
  "nimbus",
  "orchid",
  "prairie",
  "quill",
  "ridge",
  "saffron",
  "thistle",
  "upland",
  "vortex",
];

/** An inclusive integer range for {@link drawInt}. */
export interface IntRange {
  /** Smallest value. */
  min: number;
  /** Largest value. */
  max: number;
}

/**
 * A uniform integer in [min, max]. O(1).
 *
 * @param random the template's seeded stream (one draw)
 * @param range the inclusive bounds `min` and `max`
 * @returns the integer
 */
export function drawInt(random: Random, range: IntRange): number {
  const { min, max } = range;
  return min + randomIndex(random, max - min + 1);
}

/** One uniform element of `items`. O(1). */
export function drawOne<T>(random: Random, items: readonly T[]): T {
  return items[randomIndex(random, items.length)];
}

/**
 * `count` distinct elements of `items` in random order: a partial
 * Fisher–Yates shuffle of a copy. O(items).
 *
 * @param random the template's seeded stream (`count` draws)
 * @param sample the `items` to draw from and the `count` to draw
 * @returns the drawn elements, in drawing order
 */
export function drawDistinct<T>(
  random: Random,
  sample: { items: readonly T[]; count: number },
): T[] {
  const { items, count } = sample;
  const copy = [...items];
  for (let i = 0; i < count; i++) {
    const j = i + randomIndex(random, copy.length - i);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, count);
}
