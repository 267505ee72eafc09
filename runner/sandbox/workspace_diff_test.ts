import assert from "node:assert/strict";
import { tempDir } from "../_temp_dir_for_test.ts";
import { storeArtifact } from "./artifact_store.ts";
import { workspaceDiff } from "./workspace_diff.ts";
import { openEpisodeLog, storeEpisodeLog } from "../episode_log_store.ts";

/** A task's start and a candidate's end, the end stored as an artifact. */
async function startAndArtifact(root: string) {
  const start = `${root}/start`;
  const end = `${root}/end`;
  for (const dir of [start, end]) {
    await Deno.mkdir(`${dir}/src`, { recursive: true });
    await Deno.writeTextFile(`${dir}/TASK.md`, "# Task\n");
  }
  await Deno.writeTextFile(`${start}/src/a.sh`, "one\ntwo\nthree\n");
  await Deno.writeTextFile(`${end}/src/a.sh`, "one\n2\nthree\n");
  await Deno.writeTextFile(`${start}/gone.txt`, "bye\n");
  await Deno.writeTextFile(`${end}/answer.txt`, "src/a.sh:2\n");
  await Deno.writeFile(`${end}/blob.bin`, new Uint8Array([0, 1, 2]));
  await Deno.symlink("/etc/passwd", `${end}/link`);
  return { start, artifact: await storeArtifact(end, `${root}/store`) };
}

Deno.test("workspaceDiff() lists every change and patches the text files, links unfollowed", async () => {
  await using dir = await tempDir();
  const { start, artifact } = await startAndArtifact(dir.path);
  const diff = await workspaceDiff(start, artifact.dir);
  assert.deepEqual(diff.files, [
    { path: "answer.txt", kind: "added" },
    { path: "blob.bin", kind: "added" },
    { path: "gone.txt", kind: "deleted" },
    { path: "link", kind: "added" },
    { path: "src/a.sh", kind: "modified" },
  ]);
  assert.equal(diff.truncated, false);
  assert.equal(
    diff.text,
    "diff --git a/answer.txt b/answer.txt\nnew file, 11 bytes\n--- /dev/null\n+++ b/answer.txt\n" +
      "@@ -0,0 +1,1 @@\n+src/a.sh:2\n" +
      "diff --git a/blob.bin b/blob.bin\nnew file, 3 bytes\n" +
      "Binary files /dev/null and b/blob.bin differ (0 -> 3 bytes)\n" +
      "diff --git a/gone.txt b/gone.txt\ndeleted file, 4 bytes\n--- a/gone.txt\n+++ /dev/null\n" +
      "@@ -1,1 +0,0 @@\n-bye\n" +
      // The link's target is text: /etc/passwd is never read.
      "diff --git a/link b/link\nnew symlink -> /etc/passwd\n" +
      "diff --git a/src/a.sh b/src/a.sh\n--- a/src/a.sh\n+++ b/src/a.sh\n" +
      "@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
  );
});

Deno.test("workspaceDiff() cuts the patch at maxBytes on a line's end and still lists every path", async () => {
  await using dir = await tempDir();
  const { start, artifact } = await startAndArtifact(dir.path);
  const diff = await workspaceDiff(start, artifact.dir, { maxBytes: 100, maxFiles: 2 });
  assert.equal(diff.truncated, true);
  assert.ok(new TextEncoder().encode(diff.text).length <= 100);
  assert.ok(diff.text.endsWith("\n"));
  assert.equal(diff.files.length, 2);
  assert.equal(diff.files_omitted, 3);
});

Deno.test("workspaceDiff() escapes a candidate's file name so it cannot forge a header line", async () => {
  await using dir = await tempDir();
  const { start, artifact } = await startAndArtifact(dir.path);
  const end = `${dir.path}/end2`;
  await Deno.mkdir(end);
  await Deno.writeTextFile(`${end}/x\n+++ forged`, "hi\n");
  const other = await storeArtifact(end, `${dir.path}/store`);
  const diff = await workspaceDiff(start, other.dir);
  assert.ok(diff.text.includes("diff --git a/x\\n+++ forged b/x\\n+++ forged\n"));
  assert.ok(!diff.text.includes("\n+++ forged"));
  assert.ok(artifact.dir !== other.dir);
});

Deno.test("storeEpisodeLog() keeps the workspace diff, and a log without one still opens", async () => {
  await using dir = await tempDir();
  const { start, artifact } = await startAndArtifact(dir.path);
  const workspace = await workspaceDiff(start, artifact.dir);
  const input = {
    episode_id: "r/a/t/1",
    stdoutTail: "",
    stderrTail: "",
    records: [],
    bodies: [],
  };
  const withDiff = await storeEpisodeLog(dir.path, { ...input, workspaceDiff: workspace });
  assert.deepEqual((await openEpisodeLog(dir.path, withDiff.digest)).workspace_diff, workspace);
  const without = await storeEpisodeLog(dir.path, input);
  assert.equal((await openEpisodeLog(dir.path, without.digest)).workspace_diff, undefined);
});
