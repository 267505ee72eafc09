import { deepEqual } from "node:assert/strict";
import { swappedVerdict } from "./swapped_verdict.ts";
import type { PairWinner } from "../schema/records.ts";

Deno.test("swappedVerdict() follows the full 3 x 3 table", () => {
  // Hand table: the second run's label maps back A -> B, B -> A, tie -> tie; the verdict
  // counts only when it equals the first run's (seed 000 §06, Zheng et al. 2023).
  const table: [PairWinner, PairWinner, PairWinner, boolean][] = [
    ["A", "A", "tie", false], // position bias towards the first slot
    ["A", "B", "A", true], // X won both runs
    ["A", "tie", "tie", false],
    ["B", "A", "B", true], // Y won both runs
    ["B", "B", "tie", false], // position bias towards the second slot
    ["B", "tie", "tie", false],
    ["tie", "A", "tie", false],
    ["tie", "B", "tie", false],
    ["tie", "tie", "tie", true], // a consistent tie
  ];
  for (const [first, second, winner, consistent] of table) {
    deepEqual(swappedVerdict(first, second), { winner, consistent }, `${first} then ${second}`);
  }
});

Deno.test("swappedVerdict() keeps its keys in the documented order", () => {
  deepEqual(Object.keys(swappedVerdict("A", "B")), ["winner", "consistent"]);
});
