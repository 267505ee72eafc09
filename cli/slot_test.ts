import { deepEqual, equal, match } from "node:assert/strict";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { cli } from "../tests/_cli_run.ts";

Deno.test("slot answers a request it cannot read with the reason, written where the run looks for the row", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/slot-0.json`, `{"plan": "/p.json"}`);
  const result = await cli("slot", `${dir.path}/slot-0.json`);
  equal(result.code, 3);
  match(
    result.stderr,
    /^error: The node cannot run the slot: .*slot-0\.json.*field "plan_sha256": missing/,
  );
  // Line 1: the result's authentication code (empty: this node was given no run's key);
  // line 2: the result.
  const [code, body] = (await Deno.readTextFile(`${dir.path}/slot-0.result.json`)).split("\n");
  equal(code, "");
  const written = JSON.parse(body);
  deepEqual(Object.keys(written).sort(), ["error", "node", "ok"]);
  equal(written.ok, false);
  equal(written.node, Deno.hostname());
});
