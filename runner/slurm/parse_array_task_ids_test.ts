import { deepEqual, throws } from "node:assert/strict";
import { MAX_ARRAY_TASK_ID, parseArrayTaskIds } from "./parse_array_task_ids.ts";

Deno.test("parseArrayTaskIds() reads single ids, ranges, steps and lists", () => {
  deepEqual(parseArrayTaskIds("3"), [3]);
  deepEqual(parseArrayTaskIds("2-4"), [2, 3, 4]);
  // testdata/pending_gaps.txt: 0-6%1 with 0 running and 3, 5 cancelled while pending.
  deepEqual(parseArrayTaskIds("1-2,4,6%1"), [1, 2, 4, 6]);
  deepEqual(parseArrayTaskIds("1-9:4"), [1, 5, 9]);
  deepEqual(parseArrayTaskIds("5,1-2,2"), [1, 2, 5]);
});

Deno.test("parseArrayTaskIds() ignores the concurrency limit and squeue's brackets", () => {
  deepEqual(parseArrayTaskIds("2-4%2"), [2, 3, 4]);
  deepEqual(parseArrayTaskIds("[1-3%2]"), [1, 2, 3]);
});

Deno.test("parseArrayTaskIds() refuses text that is no task id expression", () => {
  for (
    const text of [
      "",
      "N/A",
      "4294967294",
      `0-${MAX_ARRAY_TASK_ID + 1}`,
      "4-2",
      "1-9:0",
      "1,,2",
      "-1",
      "1 2",
      "1%",
      "0x10",
    ]
  ) {
    throws(() => parseArrayTaskIds(text), /Cannot parse the array task ids/, text);
  }
});
