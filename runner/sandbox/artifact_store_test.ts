import assert from "node:assert/strict";
import { artifactEntries, openArtifact, storeArtifact } from "./artifact_store.ts";
import { digestTree } from "./digest_tree.ts";
import { removeTree } from "./remove_tree.ts";
import { SandboxError } from "./sandbox_error.ts";
import { stagingPath } from "./store_staging.ts";
import { DiskFullError } from "../name_full_disk.ts";

async function workspace(root: string, name: string, answer: string): Promise<string> {
  const dir = `${root}/${name}`;
  await Deno.mkdir(`${dir}/out`, { recursive: true });
  await Deno.writeTextFile(`${dir}/TASK.md`, "Write the answer.\n");
  await Deno.writeTextFile(`${dir}/out/answer.txt`, answer);
  return dir;
}

Deno.test("storeArtifact() gives the same digest and directory to the same content", async () => {
  const root = await Deno.makeTempDir({ prefix: "artifact-store-test-" });
  try {
    const a = await storeArtifact(await workspace(root, "a", "42\n"), `${root}/store`);
    const b = await storeArtifact(await workspace(root, "b", "42\n"), `${root}/store`);
    const c = await storeArtifact(await workspace(root, "c", "41\n"), `${root}/store`);
    assert.equal(a.digest, b.digest);
    assert.equal(a.dir, b.dir);
    assert.notEqual(a.digest, c.digest);
    // The digest is the tree digest of the source workspace.
    assert.equal(a.digest, (await digestTree(`${root}/a`)).digest);
    assert.equal(a.dir, `${root}/store/sha256/${a.digest.slice(7)}`);
    // The stored manifest hashes to the digest (sha256 of the manifest bytes).
    const manifest = await Deno.readFile(`${a.dir}.manifest.jsonl`);
    const hex = Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", manifest)),
      (x) => x.toString(16).padStart(2, "0"),
    ).join("");
    assert.equal(`sha256:${hex}`, a.digest);
    // Two files: TASK.md (18 bytes) and out/answer.txt (3 bytes).
    assert.equal(a.files, 2);
    assert.equal(a.bytes, 21);
    // Nothing but the two artifacts and their manifests is left in the store.
    const names = [...Deno.readDirSync(`${root}/store/sha256`)].map((e) => e.name).sort();
    assert.equal(names.length, 4);
    assert.deepEqual([...Deno.readDirSync(`${root}/store`)].map((e) => e.name), ["sha256"]);
  } finally {
    await removeTree(root);
  }
});

Deno.test("openArtifact() rejects a stored artifact whose content changed", async () => {
  const root = await Deno.makeTempDir({ prefix: "artifact-store-test-" });
  try {
    const stored = await storeArtifact(await workspace(root, "a", "42\n"), `${root}/store`);
    assert.deepEqual(await openArtifact(`${root}/store`, stored.digest), stored);
    await Deno.chmod(`${stored.dir}/out`, 0o755);
    await Deno.chmod(`${stored.dir}/out/answer.txt`, 0o644);
    await Deno.writeTextFile(`${stored.dir}/out/answer.txt`, "43\n");
    await assert.rejects(() => openArtifact(`${root}/store`, stored.digest), /has digest/);
    await assert.rejects(() => openArtifact(`${root}/store`, "sha256:abc"), /is not "sha256/);
  } finally {
    await removeTree(root);
  }
});

Deno.test("storeArtifact() refuses a workspace over its byte budget", async () => {
  const root = await Deno.makeTempDir({ prefix: "artifact-store-test-" });
  try {
    const dir = await workspace(root, "a", "42\n");
    // 21 bytes of files (see above): a 20-byte budget is exceeded.
    await assert.rejects(
      () => storeArtifact(dir, `${root}/store`, { maxBytes: 20 }),
      (error) => error instanceof SandboxError && error.code === "too_large",
    );
  } finally {
    await removeTree(root);
  }
});

Deno.test("storeArtifact() refuses an unstorable workspace and stops at its deadline, staging nothing", async () => {
  const root = await Deno.makeTempDir({ prefix: "artifact-store-test-" });
  try {
    const dir = await workspace(root, "a", "42\n");
    // out/answer.txt is at depth 2.
    await assert.rejects(
      () => storeArtifact(dir, `${root}/store`, { maxDepth: 1 }),
      (error) =>
        error instanceof SandboxError && error.code === "unstorable" &&
        /"out\/answer.txt" is nested deeper than 1 levels/.test(error.message),
    );
    const controller = new AbortController();
    controller.abort(new Error("the deadline passed"));
    await assert.rejects(
      () => storeArtifact(dir, `${root}/store`, { signal: controller.signal }),
      /the deadline passed/,
    );
    await assert.rejects(() => Deno.stat(`${root}/store`), Deno.errors.NotFound);
  } finally {
    await removeTree(root);
  }
});

Deno.test("artifactEntries() reads a stored artifact's entries from its manifest, checked", async () => {
  const root = await Deno.makeTempDir({ prefix: "artifact-store-test-" });
  try {
    const source = await workspace(root, "a", "42\n");
    await Deno.symlink("/verifier/expected.txt", `${source}/link`);
    const stored = await storeArtifact(source, `${root}/store`);
    // The same entries as a walk of the files, without reading them.
    assert.deepEqual(await artifactEntries(stored), (await digestTree(stored.dir)).entries);
    // A manifest that no longer hashes to the digest is refused.
    const manifest = `${stored.dir}.manifest.jsonl`;
    await Deno.chmod(manifest, 0o644);
    await Deno.writeTextFile(manifest, '{"path":"x","type":"dir"}\n');
    await assert.rejects(() => artifactEntries(stored), /its manifest ".*" has digest "sha256:/);
  } finally {
    await removeTree(root);
  }
});

/** The names of the staging entries in a store's root and in its `sha256/`. */
function stagedIn(store: string): string[] {
  return [store, `${store}/sha256`].flatMap((dir) => {
    try {
      return [...Deno.readDirSync(dir)].map((entry) => entry.name);
    } catch {
      return [];
    }
  }).filter((name) => name.startsWith(".staging-")).sort();
}

Deno.test({
  name:
    "storeArtifact() removes the staging a runner killed between staging and rename left, not a live runner's",
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "artifact-store-test-" });
    try {
      const store = `${root}/store`;
      // 64 MiB that are not zeros (no holes, see copyTree): copying and digesting them takes a while.
      await Deno.mkdir(`${root}/big`);
      const block = new Uint8Array(1 << 20).fill(0xab);
      await Deno.writeFile(`${root}/big/data.bin`, new Uint8Array(0));
      for (let i = 0; i < 64; i++) {
        await Deno.writeFile(`${root}/big/data.bin`, block, { append: true });
      }
      await Deno.mkdir(store);
      const watcher = Deno.watchFs(store, { recursive: false });
      const module = new URL("./artifact_store.ts", import.meta.url).href;
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "eval",
          "--no-config",
          `import { storeArtifact } from "${module}"; ` +
          `await storeArtifact(${JSON.stringify(`${root}/big`)}, ${JSON.stringify(store)});`,
        ],
        stdout: "null",
        stderr: "null",
      }).spawn();
      // SIGKILLed as soon as its staging directory is made: before its rename.
      for await (const event of watcher) {
        const names = event.paths.map((path) => path.slice(path.lastIndexOf("/") + 1));
        if (event.kind === "create" && names.some((name) => name.startsWith(".staging-"))) break;
      }
      watcher.close();
      child.kill("SIGKILL");
      assert.equal((await child.status).signal, "SIGKILL");
      const left = stagedIn(store);
      assert.equal(left.length, 1, `the kill came after the rename: ${left}`);

      // This process's own staging stands for a live runner's.
      const live = stagingPath(store);
      await Deno.mkdir(live);
      await storeArtifact(await workspace(root, "a", "42\n"), store);
      assert.deepEqual(stagedIn(store), [live.slice(store.length + 1)]);
    } finally {
      await removeTree(root);
    }
  },
});

Deno.test("storeArtifact() names a full store: ENOSPC and the store's path", {
  ignore: Deno.uid() !== 0,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "artifact-store-test-" });
  const store = `${root}/store`;
  await Deno.mkdir(store);
  const mount = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", "size=4k", "ledgerbench-test-store", store],
  }).output();
  assert.equal(mount.code, 0);
  try {
    await Deno.writeTextFile(`${root}/big.txt`, "x".repeat(64 * 1024));
    const dir = await workspace(root, "a", "42\n");
    await Deno.copyFile(`${root}/big.txt`, `${dir}/big.txt`);
    await assert.rejects(
      () => storeArtifact(dir, store),
      (error) =>
        error instanceof DiskFullError && error.code === "ENOSPC" &&
        error.message.startsWith(
          `No space left on device (ENOSPC) in the artifact store "${store}": `,
        ),
    );
    // Nothing is left staged on the full store.
    assert.deepEqual(stagedIn(store), []);
  } finally {
    await new Deno.Command("umount", { args: ["--lazy", store] }).output();
    await removeTree(root);
  }
});
