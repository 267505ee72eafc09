import assert from "node:assert/strict";
import { digestTree } from "./digest_tree.ts";
import { removeTree } from "./remove_tree.ts";
import { SandboxError } from "./sandbox_error.ts";

/** a.txt ("a\n"), sub/run.sh ("#!/bin/sh\n", 0755), link -> a.txt */
async function makeTree(order: "forward" | "reverse", fileMode = 0o644): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "digest-tree-test-" });
  const steps = [
    async () => await Deno.writeTextFile(`${dir}/a.txt`, "a\n", { mode: fileMode }),
    async () => {
      await Deno.mkdir(`${dir}/sub`);
      await Deno.writeTextFile(`${dir}/sub/run.sh`, "#!/bin/sh\n");
      await Deno.chmod(`${dir}/sub/run.sh`, 0o755);
    },
    async () => await Deno.symlink("a.txt", `${dir}/link`),
  ];
  for (const step of order === "forward" ? steps : steps.reverse()) await step();
  await Deno.chmod(`${dir}/a.txt`, fileMode);
  return dir;
}

Deno.test("digestTree() pins the digest of a hand-written manifest", async () => {
  const dir = await makeTree("forward");
  try {
    const tree = await digestTree(dir);
    // The manifest below was written by hand with printf; its digest and the
    // file digests come from coreutils `sha256sum` (printf 'a\n' | sha256sum ...).
    const expected = [
      '{"path":"a.txt","type":"file","exec":false,"size":2,' +
      '"sha256":"87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7"}',
      '{"path":"link","type":"symlink","target":"a.txt"}',
      '{"path":"sub","type":"dir"}',
      '{"path":"sub/run.sh","type":"file","exec":true,"size":10,' +
      '"sha256":"a8076d3d28d21e02012b20eaf7dbf75409a6277134439025f282e368e3305abf"}',
    ].map((line) => line + "\n").join("");
    assert.deepEqual(tree.manifest, expected);
    assert.deepEqual(
      tree.digest,
      "sha256:cc9ad820428232f86c94c3c299f8cb78793ad6e3354269bc9b5e9f745691f261",
    );
    assert.deepEqual(tree.files, 2);
    assert.deepEqual(tree.bytes, 12);
    // Independent path: WebCrypto over the same manifest bytes.
    const hex = Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(expected))),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    assert.deepEqual(tree.digest, `sha256:${hex}`);
  } finally {
    await removeTree(dir);
  }
});

Deno.test("digestTree() ignores creation order and non-executable permission bits", async () => {
  const a = await makeTree("forward", 0o644);
  const b = await makeTree("reverse", 0o400);
  try {
    assert.deepEqual((await digestTree(a)).digest, (await digestTree(b)).digest);
    // The executable bit is content: flipping it changes the digest.
    await Deno.chmod(`${b}/a.txt`, 0o755);
    const changed = await digestTree(b);
    assert.notEqual(changed.digest, (await digestTree(a)).digest);
  } finally {
    await removeTree(a);
    await removeTree(b);
  }
});

Deno.test("digestTree() skips a fifo without opening it", async () => {
  const dir = await makeTree("forward");
  try {
    const before = await digestTree(dir);
    const mkfifo = await new Deno.Command("mkfifo", { args: [`${dir}/pipe`] }).output();
    assert.deepEqual(mkfifo.success, true);
    const after = await digestTree(dir);
    assert.deepEqual(after.digest, before.digest);
    assert.deepEqual(after.skipped, ["pipe"]);
  } finally {
    await removeTree(dir);
  }
});

Deno.test("digestTree() refuses trees over the byte budget", async () => {
  const dir = await makeTree("forward");
  try {
    // 12 bytes of files: a budget of 11 is exceeded, 12 is not.
    assert.deepEqual((await digestTree(dir, { maxBytes: 12 })).bytes, 12);
    await assert.rejects(
      () => digestTree(dir, { maxBytes: 11 }),
      (error) => error instanceof SandboxError && error.code === "too_large",
    );
  } finally {
    await removeTree(dir);
  }
});

/** Runs a shell script on `dir` (names that are not UTF-8 cannot be made through Deno's strings). */
async function sh(script: string, dir: string): Promise<void> {
  const out = await new Deno.Command("sh", { args: ["-c", script, "sh", dir] }).output();
  assert.equal(out.success, true, new TextDecoder().decode(out.stderr));
}

Deno.test("digestTree() refuses a name or a link target that is not UTF-8", async () => {
  const dir = await makeTree("forward");
  try {
    // Byte 0xff is never UTF-8; Deno.readDir reports it as U+FFFD, a name no call can open.
    await sh(`touch "$1/bad$(printf '\\377')name"`, dir);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names, ["a.txt", "bad\uFFFDname", "link", "sub"]);
    await assert.rejects(
      () => digestTree(dir),
      (error) =>
        error instanceof SandboxError && error.code === "unstorable" &&
        error.message.endsWith('the name of "bad\uFFFDname" is not valid UTF-8 (or holds U+FFFD)'),
    );
    await sh(`rm "$1"/bad*name && ln -s "x$(printf '\\377')" "$1/sub/odd"`, dir);
    await assert.rejects(
      () => digestTree(dir),
      (error) =>
        error instanceof SandboxError && error.code === "unstorable" &&
        /the target of link "sub\/odd" is not valid UTF-8/.test(error.message),
    );
  } finally {
    await removeTree(dir);
  }
});

Deno.test("digestTree() refuses paths deeper or longer than their budget", async () => {
  const dir = await makeTree("forward");
  try {
    // Deepest entry: sub/run.sh at depth 2; longest path: "sub/run.sh", 10 bytes.
    assert.equal((await digestTree(dir, { maxDepth: 2, maxPathBytes: 10 })).files, 2);
    await assert.rejects(
      () => digestTree(dir, { maxDepth: 1 }),
      (error) =>
        error instanceof SandboxError && error.code === "unstorable" &&
        error.message.endsWith('"sub/run.sh" is nested deeper than 1 levels'),
    );
    await assert.rejects(
      () => digestTree(dir, { maxPathBytes: 9 }),
      (error) =>
        error instanceof SandboxError && error.code === "unstorable" &&
        /the path "sub\/run.sh\.\.\." is longer than 9 bytes/.test(error.message),
    );
    // 100 nested directories: refused by rule at level 65 (tests/filler_test.ts nests 2,100).
    await Deno.mkdir(`${dir}/${Array(100).fill("d").join("/")}`, { recursive: true });
    await assert.rejects(
      () => digestTree(dir, { maxDepth: 64 }),
      (error) =>
        error instanceof SandboxError && error.code === "unstorable" &&
        error.message.endsWith(
          `"${Array(65).fill("d").join("/")}" is nested deeper than 64 levels`,
        ),
    );
  } finally {
    await removeTree(dir);
  }
});

Deno.test("digestTree() stops with the reason of an aborted signal", async () => {
  const dir = await makeTree("forward");
  try {
    const controller = new AbortController();
    controller.abort(new Error("the deadline passed"));
    await assert.rejects(
      () => digestTree(dir, { signal: controller.signal }),
      /the deadline passed/,
    );
  } finally {
    await removeTree(dir);
  }
});
