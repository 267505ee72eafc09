import assert from "node:assert/strict";
import { copyTree } from "./copy_tree.ts";
import { removeTree } from "./remove_tree.ts";

Deno.test("removeTree() removes a read-only snapshot and tolerates a missing path", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remove-tree-test-" });
  await Deno.mkdir(`${dir}/src/a/b`, { recursive: true });
  await Deno.writeTextFile(`${dir}/src/a/b/file.txt`, "x");
  await copyTree(`${dir}/src`, `${dir}/snapshot`, { mode: "readonly" });
  await removeTree(`${dir}/snapshot`);
  await assert.rejects(() => Deno.lstat(`${dir}/snapshot`), Deno.errors.NotFound);
  await removeTree(`${dir}/snapshot`);
  await removeTree(dir);
  await assert.rejects(() => Deno.lstat(dir), Deno.errors.NotFound);
});
