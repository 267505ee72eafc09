/**
 * Rubrics shared by the judge module's tests, parsed through the schema.
 *
 * @module
 */
import { Rubric } from "../schema/records.ts";

/** Seed-style 1–5 rubric: weights 3, 2, 1. */
export const SEED_RUBRIC: Rubric = Rubric.parse({
  rubric_id: "essay",
  pass_threshold: 60,
  dimensions: [
    { name: "correctness", weight: 3, min: 1, max: 5, guidance: "Is the answer right?" },
    { name: "completeness", weight: 2, min: 1, max: 5, guidance: "Does it cover the task?" },
    { name: "clarity", weight: 1, min: 1, max: 5, guidance: "Is it easy to follow?" },
  ],
});

/** Mixed ranges: 0–10 (weight 2), 1–5 (weight 3), 0–4 (weight 1). */
export const MIXED_RUBRIC: Rubric = Rubric.parse({
  rubric_id: "mixed",
  pass_threshold: 70,
  dimensions: [
    { name: "accuracy", weight: 2, min: 0, max: 10, guidance: "How accurate?" },
    { name: "reasoning", weight: 3, min: 1, max: 5, guidance: "How sound?" },
    { name: "style", weight: 1, min: 0, max: 4, guidance: "How well written?" },
  ],
});
