import { deepEqual, equal, throws } from "node:assert/strict";
import { Episode, Plan } from "../analysis/schema/records.ts";
import { BatchState, type PlannedEpisode } from "./batch_state.ts";

function plan(fields: Record<string, unknown> = {}): Plan {
  return Plan.parse({
    plan_id: "p",
    tasks: [{ task_id: "t0" }, { task_id: "t1" }, { task_id: "t2" }],
    agents: [{ agent_id: "a" }, { agent_id: "b" }],
    ...fields,
  });
}

function row(episode: PlannedEpisode, outcome: "pass" | "fail" | "invalid"): Episode {
  return Episode.parse({
    run_id: episode.run_id,
    agent_id: episode.agent_id,
    task_id: episode.task_id,
    seed: 1,
    episode_id: episode.episode_id,
    attempt: episode.attempt,
    status: outcome === "invalid" ? "invalid" : "scored",
    resolved: outcome === "invalid" ? null : outcome === "pass",
    invalid_reason: outcome === "invalid" ? "provider_fault" : null,
    prompt_tokens: 3,
    completion_tokens: 2,
    tool_calls: 1,
    wall_ms: 10,
    price_table_id: "p",
  });
}

function drain(state: BatchState): PlannedEpisode[] {
  const out: PlannedEpisode[] = [];
  for (let e = state.next(); e !== null; e = state.next()) out.push(e);
  return out;
}

Deno.test("BatchState schedules task-major with deterministic episode ids", () => {
  const state = new BatchState(plan(), "run1");
  // Hand-derived: lowest pending position first, ties in plan agent order.
  deepEqual(drain(state).map((e) => e.episode_id), [
    "run1/a/t0/1",
    "run1/b/t0/1",
    "run1/a/t1/1",
    "run1/b/t1/1",
    "run1/a/t2/1",
    "run1/b/t2/1",
  ]);
  equal(state.inFlight, 6);
  equal(state.remaining, 6);
});

Deno.test("BatchState halts on the first invalid row under policy halt (seed 000)", () => {
  const state = new BatchState(plan(), "run1");
  const [a0, b0] = [state.next()!, state.next()!];
  state.record(row(a0, "invalid"));
  equal(state.next(), null);
  deepEqual(state.halted, {
    kind: "invalid_episode",
    episode_id: "run1/a/t0/1",
    invalid_reason: "provider_fault",
  });
  // The episode already in flight is still recorded.
  state.record(row(b0, "pass"));
  deepEqual(state.tally, { rows: 2, passes: 1, fails: 0, invalid: 1, tokens: 10 });
});

Deno.test("BatchState reruns an invalid task before the agent's later tasks, up to max_attempts", () => {
  const state = new BatchState(
    plan({ invalid_policy: "rerun-task", max_attempts: 2, agents: [{ agent_id: "a" }] }),
    "r",
  );
  const first = state.next()!;
  state.record(row(first, "invalid"));
  const rerun = state.next()!;
  deepEqual([rerun.task_id, rerun.attempt, rerun.episode_id], ["t0", 2, "r/a/t0/2"]);
  const next = state.next()!;
  equal(next.task_id, "t1");
  state.record(row(rerun, "invalid"));
  deepEqual(state.halted, { kind: "attempt_cap", episode_id: "r/a/t0/2", attempts: 2 });
  equal(state.next(), null);
});

Deno.test("BatchState stops an SPRT agent at its decision and keeps one episode in flight", () => {
  // p_adopt 0.9 vs p_drop 0.1, alpha = beta = 0.1: ln(9) per pass = ln(0.9/0.1) = upper boundary, so one pass adopts.
  const sprt = {
    kind: "sprt",
    params: { p_adopt: 0.9, p_drop: 0.1, alpha: 0.1, beta: 0.1, n_cap: 60 },
  };
  const state = new BatchState(plan({ stopping: sprt }), "r");
  const a0 = state.next()!;
  const b0 = state.next()!;
  equal(state.next(), null); // each agent has one in flight
  state.record(row(a0, "pass"));
  state.record(row(b0, "fail"));
  deepEqual(state.decisions(), { a: "adopt", b: "drop" });
  equal(state.next(), null);
  equal(state.remaining, 0);
});

Deno.test("BatchState.replay() rebuilds the state and refuses rows that do not fit the plan", () => {
  const fresh = new BatchState(plan({ invalid_policy: "rerun-task" }), "r");
  const a0 = fresh.next()!;
  fresh.record(row(a0, "invalid"));
  // The rerun a/t0/2 is scheduled before b/t0/1 (same position, a first in plan order).
  const rows = [row(a0, "invalid"), row(fresh.next()!, "pass")];
  const resumed = new BatchState(plan({ invalid_policy: "rerun-task" }), "r");
  rows.forEach((r, i) => resumed.replay(r, i + 1));
  // a/t0 is done after its second attempt; everything else is still to run.
  deepEqual(drain(resumed).map((e) => e.episode_id), [
    "r/b/t0/1",
    "r/a/t1/1",
    "r/b/t1/1",
    "r/a/t2/1",
    "r/b/t2/1",
  ]);
  const other = new BatchState(plan(), "other-run");
  throws(
    () => other.replay(rows[0], 1),
    /ledger line 1: field "run_id" is "r", this run is "other-run"/,
  );
  const skipping = new BatchState(plan({ invalid_policy: "rerun-task" }), "r");
  throws(() => skipping.replay(rows[1], 1), /ledger line 1: field "attempt" is 2, expected 1/);
  const halting = new BatchState(plan(), "r");
  halting.replay(rows[0], 1);
  equal(halting.halted?.kind, "invalid_episode");
});
