import assert from "node:assert/strict";
import { assessView } from "../analysis/agent_standing.ts";
import { ledgerView } from "../analysis/ledger_view.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { loadTaskList } from "../inputs/task_list.ts";
import { scoresWithheld } from "./figure_inputs.ts";

const EXAMPLE = new URL("../ledgers/examples/imported/", import.meta.url).pathname;

Deno.test("scoresWithheld() names each agent withheld for a cause the figure cannot see", async () => {
  const ledger = await loadLedger(`${EXAMPLE}ledger.jsonl`);
  const taskList = (await loadTaskList(`${EXAMPLE}ledger.tasks.json`)).value;
  const assessment = assessView(ledgerView(ledger.rows, null), ledger, { plan: null, taskList });
  // The shipped imported example: table-agent-b has 1 invalid attempt of 2 (50%, above 10%).
  assert.deepEqual([...scoresWithheld(assessment, null).keys()], ["table-agent-b"]);
  assert.match(
    scoresWithheld(assessment, null).get("table-agent-b")!,
    /^1 of its 2 attempts is invalid/,
  );
});
