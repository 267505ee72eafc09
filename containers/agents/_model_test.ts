import assert from "node:assert/strict";
import { fileBlocks, writeBlock } from "./_model.ts";

Deno.test("fileBlocks() extracts every file block in order", () => {
  const answer = [
    "Here is the fix.",
    "```file:src/add.ts",
    "export const add = (a: number, b: number) => a + b;",
    "```",
    "And a note:",
    "```file: NOTES.md",
    "line 1",
    "",
    "line 3",
    "```",
    "```ts",
    "not a file block",
    "```",
  ].join("\n");
  assert.deepEqual(fileBlocks(answer), [
    { path: "src/add.ts", content: "export const add = (a: number, b: number) => a + b;" },
    { path: "NOTES.md", content: "line 1\n\nline 3" },
  ]);
  assert.deepEqual(fileBlocks("no blocks at all"), []);
});

Deno.test("writeBlock() writes under the root and refuses paths that leave it", async () => {
  const root = await Deno.makeTempDir({ prefix: "model-test-" });
  try {
    const written = await writeBlock({ path: "a/b/c.txt", content: "x\n" }, root);
    assert.equal(written, `${root}/a/b/c.txt`);
    assert.equal(await Deno.readTextFile(written), "x\n");
    for (const path of ["/etc/passwd", "../escape.txt", "a/../../escape.txt", "./"]) {
      await assert.rejects(() => writeBlock({ path, content: "" }, root), /leaves the workspace/);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
