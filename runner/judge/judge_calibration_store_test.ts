import { deepEqual, equal } from "node:assert/strict";
import { loadJudgeSettings } from "../../inputs/judge_settings.ts";
import { loadSuite } from "../../inputs/suite.ts";
import { copyTree } from "../sandbox/copy_tree.ts";
import { JUDGE_EXAMPLE } from "../../suites/judge_example.ts";
import { calibrationsDir, judgeSettingsSha256, planJudge } from "./judge_calibration_store.ts";
import { JUDGE_PROMPT_VERSION } from "./judge_prompt.ts";

/** The example suite copied to a temporary directory, and its judge settings. */
async function example() {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-store-" });
  await copyTree(JUDGE_EXAMPLE.suite, `${dir}/suite`);
  const suite = await loadSuite(`${dir}/suite`);
  const settings = (await loadJudgeSettings(JUDGE_EXAMPLE.judge)).value;
  return { dir, suite, settings };
}

async function writeSummary(suiteDir: string, time: string, summary: unknown): Promise<void> {
  const at = `${calibrationsDir(suiteDir)}/${time}`;
  await Deno.mkdir(at, { recursive: true });
  await Deno.writeTextFile(`${at}/summary.json`, JSON.stringify(summary));
}

Deno.test("planJudge() skips a calibration of the earlier prompt, without its probes, unread", async () => {
  const { dir, suite, settings } = await example();
  try {
    // The prompt changed with issue 21 (128-bit fence tags, the probes): a summary written
    // before it has another settings digest and no "probes" field; freeze must not refuse it.
    equal(JUDGE_PROMPT_VERSION, "ledgerbench-judge/2");
    await writeSummary(suite.dir, "2026-12-01T10-00-00-000Z", {
      schema_version: 1,
      judge_settings_sha256: "9".repeat(64),
      suite_sha256: suite.sha256,
      prompt_version: "ledgerbench-judge/1",
      passed: true,
    });
    deepEqual(await planJudge(suite, settings), { ...settings, calibration: { state: "not_run" } });
    // A summary of these settings is held to the whole schema: one line naming the field.
    await writeSummary(suite.dir, "2026-12-01T11-00-00-000Z", {
      schema_version: 1,
      judge_settings_sha256: judgeSettingsSha256(settings),
      suite_sha256: suite.sha256,
    });
    let message = "";
    try {
      await planJudge(suite, settings);
    } catch (error) {
      message = (error as Error).message;
    }
    equal(/summary\.json: field "judge": missing/.test(message), true, message);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
