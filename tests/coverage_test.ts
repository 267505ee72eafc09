/**
 * `ledgerbench coverage` (issue 13: the tool reports its own error) through
 * the real CLI: on the demo ledger (7 scored episodes per agent) the exact
 * coverage of each interval, as the analysis computes it independently of
 * the CLI's plumbing; byte-identical on a second run; a warning where the
 * interval the tool prints covers less than 90% at some true rate; bad
 * options answered with one line.
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { coverageProfile } from "../analysis/interval_coverage.ts";
import { badInputTests } from "./_bad_input_table.ts";
import { cliInProcess } from "./_cli_run.ts";

const DEMO = "ledgers/demo/ledger.jsonl";

Deno.test("coverage: the demo's agents, exact and replayable, with the warning n = 7 deserves", async () => {
  const json = await cliInProcess("coverage", DEMO, "--json");
  equal(json.code, 0, json.stderr);
  const again = await cliInProcess("coverage", DEMO, "--json");
  equal(again.stdout, json.stdout);
  const payload = JSON.parse(json.stdout);
  deepEqual(payload.parameters, {
    level: 0.95,
    rates: [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99],
    rounds: 2000,
    seed: 7,
    interval_method: "percentile-bootstrap",
    interval_method_source: "default",
  });
  const weak = payload.agents.find((a: { agent_id: string }) => a.agent_id === "solver-weak");
  deepEqual([weak.scored, weak.resolved], [7, 5]);
  // The CLI's numbers are the analysis's (canonical JSON rounds to 12 digits).
  for (const profile of weak.methods) {
    const expected = coverageProfile(profile.method, 5, 7);
    equal(Math.abs(profile.at_observed - expected.at_observed!) < 1e-11, true, profile.method);
    equal(profile.lowest.rate, expected.lowest!.rate);
  }
  const text = await cliInProcess("coverage", DEMO, "--width", "200");
  equal(text.code, 0, text.stderr);
  match(
    text.stdout,
    /- "solver-weak": at n = 7 the interval the verdicts use covers \d+\.\d% at a true rate of \d+\.\d%, not 95%/,
  );
});

badInputTests("coverage", [
  {
    name: "a rate outside [0, 1]",
    args: ["coverage", DEMO, "--rates", "0.5,2"],
    code: 1,
    stderr: /^error: Option "--rates": each rate must be a number in \[0, 1\], got "2"\n/,
  },
  {
    name: "a ledger that does not exist",
    args: ["coverage", "{dir}/none.jsonl"],
    code: 2,
    stderr: /^error: \S+none\.jsonl: No such file or directory \(os error 2\)\n$/,
  },
]);
