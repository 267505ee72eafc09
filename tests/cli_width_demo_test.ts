/**
 * `show` of a runner episode fits 80 and 100 columns (the rest of
 * `tests/cli_width_test.ts`): the demo's episode logs are not kept by git,
 * so without them the demo runs once into a temporary directory, on the
 * engine (`demoLedger`).
 *
 * @module
 */
import { ROOT } from "./_cli_run.ts";
import { checkCases } from "./_cli_width.ts";
import { demoLedger } from "./_demo_ledger.ts";
import { requireDockerEngine } from "./_docker_engine.ts";

const demoArtifacts = await Deno.stat(`${ROOT}ledgers/demo/artifacts/sha256`).then(
  () => true,
  () => false,
);
Deno.test({
  name: "show of a runner episode fits 80 and 100 columns",
  ignore: !demoArtifacts && !(await requireDockerEngine("tests/cli_width_demo_test.ts")).available,
}, async () => {
  const ledger = await demoLedger();
  await checkCases([{
    name: "show demo",
    args: () => ["show", "demo/solver-strong/a1-locate/1", "--ledger", ledger],
    json: false,
  }]);
});
