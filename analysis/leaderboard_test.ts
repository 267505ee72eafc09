import { deepEqual } from "node:assert/strict";
import { byRateDescending, leaderboard } from "./leaderboard.ts";
import { comparisonMatrix } from "./compare_agents.ts";

const stated = (agent_id: string) => ({ agent_id, withheld: null });

Deno.test("leaderboard() ranks by seed 001's verdicts: overlapping agents share a rank", () => {
  // seed 001's sample: a 3/4 and b 2/4 overlap on the rate; b wins on TPR (3750 vs 7766.67)
  const agents = [
    { agent_id: "a", scored: 4, resolved: 3, tpr: 23300 / 3, spr: 43 },
    { agent_id: "b", scored: 4, resolved: 2, tpr: 3750, spr: 8.5 },
    { agent_id: "c", scored: 40, resolved: 0, tpr: null, spr: null },
  ];
  const pairs = comparisonMatrix(agents);
  const places = leaderboard(
    [{ agent_id: "a", sort_rate: 0.75 }, { agent_id: "b", sort_rate: 0.5 }, {
      agent_id: "c",
      sort_rate: 0,
    }],
    agents.map((agent) => stated(agent.agent_id)),
    pairs,
  );
  // b beats a on TPR; c resolved nothing: listed after the ranked, with no rank (seed 001)
  deepEqual(places.map((p) => [p.agent_id, p.rank, p.unranked, p.beats]), [
    ["b", 1, null, 1],
    ["a", 2, null, 0],
    ["c", null, "nothing_resolved", 0],
  ]);
});

Deno.test("leaderboard() lists withheld agents last and lets their wins count for no one", () => {
  const places = leaderboard(
    [{ agent_id: "x", sort_rate: 0.3 }, { agent_id: "y", sort_rate: 0.6 }, {
      agent_id: "z",
      sort_rate: null,
    }],
    [stated("x"), { agent_id: "y", withheld: "missing" }],
    [{ winner: "y", failed: [], a: { agent_id: "x" }, b: { agent_id: "y" } }],
  );
  deepEqual(places.map((p) => [p.agent_id, p.rank, p.unranked]), [
    ["x", 1, null],
    ["y", null, "withheld"],
    ["z", null, "withheld"],
  ]);
});

Deno.test("byRateDescending() puts unknown rates last and breaks ties by id", () => {
  deepEqual(
    byRateDescending([
      { agent_id: "b", sort_rate: 0.5 },
      { agent_id: "a", sort_rate: 0.5 },
      { agent_id: "c", sort_rate: null },
      { agent_id: "d", sort_rate: 0.9 },
    ]),
    ["d", "a", "b", "c"],
  );
});
