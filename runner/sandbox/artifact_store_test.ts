import assert from "node:assert/strict";
import { artifactEntries, openArtifact, storeArtifact } from "./artifact_store.ts";
import { digestTree } from "./digest_tree.ts";
import { removeTree } from "./remove_tree.ts";
import { SandboxError } from "./sandbox_error.ts";

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
