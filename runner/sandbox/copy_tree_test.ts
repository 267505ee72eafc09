import assert from "node:assert/strict";
import { copyTree } from "./copy_tree.ts";
import { digestTree } from "./digest_tree.ts";
import { removeTree } from "./remove_tree.ts";

async function source(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "copy-tree-test-" });
  await Deno.mkdir(`${dir}/src/nested`, { recursive: true });
  await Deno.writeTextFile(`${dir}/src/plain.txt`, "plain\n");
  await Deno.writeTextFile(`${dir}/src/nested/tool.sh`, "#!/bin/sh\n");
  await Deno.chmod(`${dir}/src/nested/tool.sh`, 0o700);
  await Deno.writeTextFile(`${dir}/host-secret.txt`, "never copied\n");
  // A link that points outside the tree: it must be copied as a link.
  await Deno.symlink(`${dir}/host-secret.txt`, `${dir}/src/escape`);
  return dir;
}

const mode = async (path: string) => ((await Deno.lstat(path)).mode ?? 0) & 0o777;

Deno.test("copyTree() makes a read-only snapshot with the same digest", async () => {
  const dir = await source();
  try {
    const files = await copyTree(`${dir}/src`, `${dir}/copy`, { mode: "readonly" });
    // Two regular files; the symlink is not a file.
    assert.equal(files, 2);
    assert.equal((await digestTree(`${dir}/copy`)).digest, (await digestTree(`${dir}/src`)).digest);
    // Modes: 0444 for plain files, 0555 for executables and directories.
    assert.equal(await mode(`${dir}/copy/plain.txt`), 0o444);
    assert.equal(await mode(`${dir}/copy/nested/tool.sh`), 0o555);
    assert.equal(await mode(`${dir}/copy/nested`), 0o555);
    assert.equal(await mode(`${dir}/copy`), 0o555);
    assert.equal((await Deno.lstat(`${dir}/copy/escape`)).isSymlink, true);
    assert.equal(await Deno.readLink(`${dir}/copy/escape`), `${dir}/host-secret.txt`);
  } finally {
    await removeTree(dir);
  }
});

Deno.test("copyTree() makes a writable copy and leaves the source untouched", async () => {
  const dir = await source();
  try {
    const before = await digestTree(`${dir}/src`);
    await copyTree(`${dir}/src`, `${dir}/copy`);
    assert.equal(await mode(`${dir}/copy/plain.txt`), 0o644);
    assert.equal(await mode(`${dir}/copy/nested/tool.sh`), 0o755);
    assert.equal(await mode(`${dir}/copy/nested`), 0o755);
    await Deno.writeTextFile(`${dir}/copy/plain.txt`, "changed\n");
    assert.equal((await digestTree(`${dir}/src`)).digest, before.digest);
    await assert.rejects(() => copyTree(`${dir}/src`, `${dir}/copy`), Deno.errors.AlreadyExists);
  } finally {
    await removeTree(dir);
  }
});

Deno.test("copyTree() makes an owner-only copy and rewrites link targets on request", async () => {
  const dir = await source();
  try {
    const seen: string[] = [];
    await copyTree(`${dir}/src`, `${dir}/copy`, {
      mode: "private",
      linkTarget: (path, target) => {
        seen.push(`${path} -> ${target}`);
        return "/dev/null/x";
      },
    });
    // Modes: 0400 for plain files, 0500 for executables and directories.
    assert.equal(await mode(`${dir}/copy/plain.txt`), 0o400);
    assert.equal(await mode(`${dir}/copy/nested/tool.sh`), 0o500);
    assert.equal(await mode(`${dir}/copy/nested`), 0o500);
    assert.deepEqual(seen, [`escape -> ${dir}/host-secret.txt`]);
    assert.equal(await Deno.readLink(`${dir}/copy/escape`), "/dev/null/x");
  } finally {
    await removeTree(dir);
  }
});

Deno.test("copyTree() stops with the reason of an aborted signal", async () => {
  const dir = await source();
  try {
    const controller = new AbortController();
    controller.abort(new Error("the deadline passed"));
    await assert.rejects(
      () => copyTree(`${dir}/src`, `${dir}/copy`, { signal: controller.signal }),
      /the deadline passed/,
    );
    // Checked before each entry: the target directory exists, nothing was copied into it.
    assert.deepEqual([...Deno.readDirSync(`${dir}/copy`)], []);
  } finally {
    await removeTree(dir);
  }
});
