import { deepEqual, equal } from "node:assert/strict";
import { Episode } from "./schema/records.ts";
import { sharedModeNote, verificationModes } from "./verification_modes.ts";

const verified = (mode: string | null) =>
  Episode.parse({
    run_id: "r",
    agent_id: "a",
    task_id: "t",
    seed: 1,
    resolved: true,
    prompt_tokens: 1,
    completion_tokens: 1,
    tool_calls: 1,
    wall_ms: 1,
    price_table_id: "p",
    ...(mode === null
      ? {}
      : { verification: { mode, reward: null, reward_file: null, decided_by: null } }),
  });

Deno.test("verificationModes() counts the rows by their recorded mode; absent is not recorded", () => {
  const rows = [
    ...Array(12).fill("shared"),
    ...Array(20).fill("sealed"),
    "separate",
    ...Array(7).fill(null),
  ].map(verified);
  // 12 + 20 + 1 + 7 = 40 rows, 33 of them recorded
  deepEqual(verificationModes(rows), {
    rows: 40,
    recorded: 33,
    by_mode: { sealed: 20, shared: 12, separate: 1 },
  });
  deepEqual(verificationModes([]), {
    rows: 0,
    recorded: 0,
    by_mode: { sealed: 0, shared: 0, separate: 0 },
  });
});

Deno.test("sharedModeNote() states the shared rows, singular and plural, and nothing without them", () => {
  const counts = (shared: number, rows: number) => ({
    rows,
    recorded: rows,
    by_mode: { sealed: rows - shared, shared, separate: 0 },
  });
  equal(
    sharedModeNote(counts(12, 40)),
    "12 of 40 rows were verified in Harbor's shared mode: the verifier ran in the candidate's " +
      "own container, so these verdicts are not sealed",
  );
  equal(
    sharedModeNote(counts(1, 1)),
    "1 of 1 row was verified in Harbor's shared mode: the verifier ran in the candidate's own " +
      "container, so this verdict is not sealed",
  );
  equal(sharedModeNote(counts(0, 40)), null);
});
