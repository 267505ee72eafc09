/**
 * The counts seed 002's SPRT is a function of.
 *
 * @module
 */

/**
 * Valid results so far: the pair seed 002's `Plan.llr(passes, fails)` and
 * `Plan.decide(passes, fails)` take. Invalid attempts are in neither count.
 */
export interface SprtCounts {
  /** Valid passes, a non-negative integer. */
  readonly passes: number;
  /** Valid fails, a non-negative integer. */
  readonly fails: number;
}
