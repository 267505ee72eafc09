import { deepEqual, equal } from "node:assert/strict";
import { Episode } from "../analysis/schema/records.ts";
import { createProgress, type ProgressSnapshot } from "./progress.ts";

const row = (resolved: boolean | null, tokens: number): Episode =>
  Episode.parse({
    run_id: "r",
    agent_id: "a",
    task_id: "t",
    seed: 1,
    status: resolved === null ? "invalid" : "scored",
    resolved,
    invalid_reason: resolved === null ? "verifier_fault" : null,
    prompt_tokens: tokens,
    completion_tokens: 0,
    tool_calls: 1,
    model_calls: 1,
    wall_ms: 1500,
    price_table_id: "p",
  });

function snapshot(
  rows: number,
  passes: number,
  fails: number,
  invalid: number,
  tokens: number,
  remaining: number,
): ProgressSnapshot {
  return { tally: { rows, passes, fails, invalid, tokens }, remaining, inFlight: 1, parallel: 2 };
}

Deno.test("createProgress() prints one plain line per episode off a terminal, with ETA", () => {
  const out: string[] = [];
  let now = 0;
  const progress = createProgress({ tty: false, write: (t) => out.push(t), clock: () => now });
  now = 10_000;
  progress.episode(row(true, 1200), snapshot(1, 1, 0, 0, 1200, 3));
  now = 20_000;
  progress.episode(row(null, 800), snapshot(2, 1, 0, 1, 2000, 2));
  progress.finish(snapshot(2, 1, 0, 1, 2000, 0));
  // ETA: 10 s per episode so far x 3 remaining / parallel 2 = 15 s; then 10 s x 2 / 2 = 10 s.
  deepEqual(out, [
    "episode 1/4 r/a/t/1: pass, stop completed, 1 calls, 1200 tokens, 1.5s; pass 1 fail 0 invalid 0 tokens 1.2k; ETA 15s\n",
    "episode 2/4 r/a/t/1: invalid (verifier_fault), stop completed, 1 calls, 800 tokens, 1.5s; pass 1 fail 0 invalid 1 tokens 2.0k; ETA 10s\n",
    "batch: 2 rows, pass 1 fail 0 invalid 1 tokens 2.0k, 20s elapsed\n",
  ]);
});

Deno.test("createProgress() redraws one bar in place on a terminal", () => {
  const out: string[] = [];
  let now = 0;
  const progress = createProgress({
    tty: true,
    write: (t) => out.push(t),
    clock: () => now,
    width: 10,
  });
  now = 90_000;
  progress.episode(row(false, 500), snapshot(3, 2, 1, 0, 1_500_000, 7));
  progress.note("warning: something");
  equal(out.length, 3);
  // 3 of 10 done → 3 of 10 cells. Rows 1–2 were replayed from the ledger, so the rate counts one
  // episode in 90 s: ETA 90 s x 7 remaining / parallel 2 = 315 s = 5m15s.
  equal(out[0], "\r\x1b[2K[###.......] 3/10 pass 2 fail 1 invalid 0 tokens 1.50M ETA 5m15s");
  deepEqual(out.slice(1), ["\n", "warning: something\n"]);
});

Deno.test("createProgress() shows a harness_error's cause from its notes, on and off a terminal", () => {
  const failed = Episode.parse({
    ...row(null, 0),
    invalid_reason: "harness_error",
    stop_reason: "error",
    model_calls: null,
    notes:
      "attempt 2: rerun; harness error: Cannot store the workspace: No space left on device (os error 28)\n",
  });
  for (const tty of [false, true]) {
    const out: string[] = [];
    const progress = createProgress({ tty, write: (t) => out.push(t), clock: () => 0, width: 4 });
    progress.episode(failed, snapshot(1, 0, 0, 1, 0, 0));
    progress.episode(row(null, 0), snapshot(2, 0, 0, 2, 0, 0));
    const cause =
      "harness error: Cannot store the workspace: No space left on device (os error 28)?";
    deepEqual(
      out,
      tty
        ? [
          `\r\x1b[2Kr/a/t/1: ${cause}\n`,
          "\r\x1b[2K[####] 1/1 pass 0 fail 0 invalid 1 tokens 0 ETA 0s",
          "\r\x1b[2K[####] 2/2 pass 0 fail 0 invalid 2 tokens 0 ETA 0s",
        ]
        : [
          "episode 1/1 r/a/t/1: invalid (harness_error), stop error, ? calls, 0 tokens, 1.5s; " +
          `pass 0 fail 0 invalid 1 tokens 0; ETA 0s\n  ${cause}\n`,
          "episode 2/2 r/a/t/1: invalid (verifier_fault), stop completed, 1 calls, 0 tokens, 1.5s; " +
          "pass 0 fail 0 invalid 2 tokens 0; ETA 0s\n",
        ],
    );
  }
});
