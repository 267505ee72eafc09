import assert from "node:assert/strict";
import { episode } from "../analysis/_ledger_for_test.ts";
import { lineText } from "../analysis/untrusted_text.ts";
import { staticDataScript } from "./static_table.ts";
import { handLedger } from "./_ledger_for_test.ts";

Deno.test("staticDataScript(): hostile ids stay JSON strings of one call, as the table shows them", () => {
  const task = `");globalThis.__pwned=1;("</script>\u2028\u202e`;
  const agent = `<img src=x onerror="a()">`;
  const ledger = handLedger([
    { row: episode(agent, task, true) },
    { row: episode("b", "t", null, { status: "invalid", invalid_reason: "harness_error" }) },
  ]);
  const script = staticDataScript(7, [0, 1].map((i) => ledger.index.tableRow(i)));
  const call = /^ledgerbenchRows\(7,(.*)\);\n$/s.exec(script);
  assert.ok(call !== null, script);
  // The whole argument is one JSON value: no string ends early.
  const rows = JSON.parse(call[1]);
  assert.equal(rows.length, 2);
  assert.deepEqual(rows[0].slice(0, 3), [1, 0, lineText(`r/${agent}/${task}/1`)]);
  assert.equal(rows[0][4], agent);
  assert.equal(rows[0][6], lineText(task));
  assert.ok(!rows[0][6].includes("\u202e"));
  assert.deepEqual(rows[1].slice(8, 15), [
    "invalid",
    "",
    "completed",
    "harness_error",
    "1,500",
    "10.00 s",
    "not recorded",
  ]);
});
