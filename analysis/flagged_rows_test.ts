import { deepEqual, equal } from "node:assert/strict";
import { episode, inMemoryLedger } from "./_ledger_for_test.ts";
import { flaggedSummary } from "./flagged_rows.ts";
import { assessClaims } from "./agent_standing.ts";
import { CensoringPolicy, type Episode } from "./schema/records.ts";

const POLICY = CensoringPolicy.parse({});

/** A shared-mode row of `agent` at task `t<i>`, flagged when `flags` names any. */
function row(agent: string, i: number, resolved: boolean | null, flags: string[] = []): Episode {
  return episode(agent, `t${i}`, resolved, {
    ...(resolved === null ? { status: "invalid", invalid_reason: "harness_error" } : {}),
    verification: {
      mode: "shared",
      reward: null,
      reward_file: null,
      decided_by: null,
      hijacks: flags.map((flag) => ({ flag, path: `/x/${flag}` })),
    },
  });
}

Deno.test("flaggedSummary(): flagged resolved rows over scored rows, held to seed 003's bands", () => {
  // clean: 50 scored, 40 resolved, none flagged (0%: headline).
  // few: 50 scored, 3 of its 40 resolved flagged (3 / 50 = 6%: both labelled).
  // many: 50 scored, 6 resolved flagged (12%: budget adequacy only); a flagged failure is not held.
  // An invalid row counts nowhere.
  const rows = [
    ...Array.from({ length: 50 }, (_, i) => row("clean", i, i < 40)),
    ...Array.from({ length: 50 }, (_, i) => row("few", i, i < 40, i < 3 ? ["conftest"] : [])),
    ...Array.from(
      { length: 50 },
      (_, i) => row("many", i, i < 40, i < 6 || i === 45 ? ["path_shadow"] : []),
    ),
    row("many", 99, null, ["conftest"]),
  ];
  const summary = flaggedSummary(rows, POLICY);
  deepEqual(
    summary.agents.map((
      a,
    ) => [a.agent_id, a.scored, a.shared, a.flagged_resolved, a.flagged_rate, a.claim]),
    [
      ["clean", 50, 50, 0, 0, "headline"],
      ["few", 50, 50, 3, 0.06, "both_labelled"],
      ["many", 50, 50, 6, 0.12, "budget_adequacy_only"],
    ],
  );
  deepEqual(
    [summary.overall.scored, summary.overall.flagged_resolved, summary.overall.flagged_rate],
    [150, 9, 0.06],
  );
});

Deno.test("assessClaims(): an agent whose resolved rows are flagged cannot carry a headline", () => {
  const rows = [
    ...Array.from({ length: 50 }, (_, i) => row("few", i, i < 40, i < 3 ? ["conftest"] : [])),
    ...Array.from({ length: 50 }, (_, i) => row("many", i, i < 40, i < 6 ? ["loader_config"] : [])),
    ...Array.from(
      { length: 50 },
      (_, i) => ({ ...row("sealed", i, i < 40), verification: undefined }),
    ),
  ];
  const assessment = assessClaims({
    recorded: inMemoryLedger(rows),
    rows,
    plan: null,
    taskList: null,
    policy: POLICY,
  });
  const standing = (id: string) => assessment.standings.find((s) => s.agent_id === id)!;
  deepEqual(
    [standing("few").flagged_claim, standing("few").claim, standing("few").withheld],
    ["both_labelled", "both_labelled", null],
  );
  deepEqual(
    [standing("many").flagged_claim, standing("many").withheld],
    ["budget_adequacy_only", "flagged"],
  );
  // No shared or flagged rows: the standing keeps its bytes (no flagged_claim key).
  equal("flagged_claim" in standing("sealed"), false);
  equal(standing("sealed").claim, "headline");
  deepEqual(assessment.pooled.withheld, "flagged");
});
