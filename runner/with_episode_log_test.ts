import assert from "node:assert/strict";
import { tempDir } from "./_temp_dir_for_test.ts";
import { openEpisodeLog } from "./episode_log_store.ts";
import type { EpisodeDraft } from "./ledger_writer.ts";
import { callRecord } from "./relay/_call_record_for_test.ts";
import { withEpisodeLog } from "./with_episode_log.ts";

const DRAFT: EpisodeDraft = {
  run_id: "r1",
  agent_id: "a",
  task_id: "t1",
  seed: 7,
  episode_id: "r1/a/t1/1",
  resolved: false,
  prompt_tokens: 10,
  completion_tokens: 5,
  tool_calls: 1,
  wall_ms: 100,
  price_table_id: "none",
  notes: "candidate exit code 70",
};

Deno.test("withEpisodeLog() stores the log and names its digest in the row", async () => {
  await using dir = await tempDir();
  const row = await withEpisodeLog(DRAFT, {
    root: dir.path,
    redact: ["sk-key"],
    episode_id: "r1/a/t1/1",
    stdoutTail: "",
    stderrTail: "sk-key crashed\n",
    records: [callRecord(1)],
    bodies: [],
  });
  assert.deepEqual({ ...row, episode_log_digest: undefined }, {
    ...DRAFT,
    episode_log_digest: undefined,
  });
  const log = await openEpisodeLog(dir.path, row.episode_log_digest!);
  assert.equal(log.stderr_tail, "[redacted] crashed\n");
  assert.deepEqual(log.calls, [callRecord(1)]);
});

Deno.test("withEpisodeLog() keeps the row and notes why when the log cannot be stored", async () => {
  await using dir = await tempDir();
  const root = `${dir.path}/file`;
  await Deno.writeTextFile(root, "not a directory");
  const row = await withEpisodeLog(DRAFT, {
    root,
    redact: [],
    episode_id: "r1/a/t1/1",
    stdoutTail: null,
    stderrTail: null,
    records: null,
    bodies: null,
  });
  assert.equal(row.episode_log_digest, undefined);
  assert.match(row.notes!, /^candidate exit code 70; episode log not stored: Not a directory/);
});
