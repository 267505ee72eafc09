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

/** Bytes a file takes on disk, as `du` counts them: its 512-byte blocks. */
const onDisk = async (path: string) => ((await Deno.stat(path)).blocks ?? NaN) * 512;

/** Writes `bytes` at `offset` of `path` (created when missing), leaving a hole before. */
async function writeAt(path: string, offset: number, bytes: Uint8Array): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true });
  try {
    await file.seek(offset, Deno.SeekMode.Start);
    await file.write(bytes);
  } finally {
    file.close();
  }
}

const MIB = 1024 * 1024;

Deno.test("copyTree() keeps a 500 MiB sparse file sparse: one 4 KiB block, not 500 MiB", async () => {
  const dir = await Deno.makeTempDir({ prefix: "copy-tree-sparse-" });
  try {
    await Deno.mkdir(`${dir}/src`);
    // What the issue 21 candidate wrote: 500 MiB of apparent size, 6 bytes of data.
    await writeAt(`${dir}/src/sparse.bin`, 250 * MIB, new TextEncoder().encode("middle"));
    await Deno.truncate(`${dir}/src/sparse.bin`, 500 * MIB);
    // 8 MiB of zeros written out: dense in the source, all holes in the copy.
    await Deno.writeFile(`${dir}/src/zeros.bin`, new Uint8Array(8 * MIB));
    assert.equal(await onDisk(`${dir}/src/sparse.bin`), 4096);
    assert.equal(await onDisk(`${dir}/src/zeros.bin`), 8 * MIB);

    await copyTree(`${dir}/src`, `${dir}/copy`, { mode: "readonly" });
    assert.equal((await Deno.stat(`${dir}/copy/sparse.bin`)).size, 500 * MIB);
    assert.equal((await Deno.stat(`${dir}/copy/zeros.bin`)).size, 8 * MIB);
    // Before: 524,288,000 and 8,388,608 bytes on disk (Deno.copyFile writes every byte).
    assert.equal(await onDisk(`${dir}/copy/sparse.bin`), 4096);
    assert.equal(await onDisk(`${dir}/copy/zeros.bin`), 0);
    // Same bytes, so the same digest: verification and reverify are unchanged.
    assert.equal((await digestTree(`${dir}/copy`)).digest, (await digestTree(`${dir}/src`)).digest);
  } finally {
    await removeTree(dir);
  }
});

Deno.test("copyTree() copies sparse files byte for byte at unaligned edges", async () => {
  const dir = await Deno.makeTempDir({ prefix: "copy-tree-edges-" });
  try {
    await Deno.mkdir(`${dir}/src`);
    // Small and sparse (3 of 4 blocks allocated): a data byte at 1, a hole, a block of
    // zeros written out, and a 5-byte last block ending in a data byte.
    const small = `${dir}/src/small.bin`;
    await writeAt(small, 1, new Uint8Array([7]));
    await writeAt(small, 2 * 4096, new Uint8Array(4096));
    await writeAt(small, 3 * 4096, new Uint8Array([0, 0, 0, 0, 9]));
    // 2 MiB whose data straddles the boundary of two reads (1 MiB each) and two
    // blocks, then zeros to the end: the length is set after the last write.
    const straddle = `${dir}/src/straddle.bin`;
    await writeAt(straddle, MIB - 2, new Uint8Array([1, 2, 3, 4]));
    await Deno.truncate(straddle, 2 * MIB);
    // Dense and small (one call, copied whole) and dense random data (no block is a hole).
    await Deno.writeFile(`${dir}/src/dense.bin`, new Uint8Array(4097).fill(5));
    await Deno.writeFile(`${dir}/src/random.bin`, crypto.getRandomValues(new Uint8Array(65536)));
    // One block exactly: copied whole, even all zeros.
    await Deno.writeFile(`${dir}/src/block.bin`, new Uint8Array(4096));

    await copyTree(`${dir}/src`, `${dir}/copy`);
    for (const name of ["small.bin", "straddle.bin", "dense.bin", "random.bin", "block.bin"]) {
      assert.deepEqual(
        await Deno.readFile(`${dir}/copy/${name}`),
        await Deno.readFile(`${dir}/src/${name}`),
        name,
      );
    }
    assert.equal(await onDisk(small), 3 * 4096);
    // Blocks 0 and 3: the written-out zeros of block 2 are a hole in the copy.
    assert.equal(await onDisk(`${dir}/copy/small.bin`), 2 * 4096);
    // Blocks 255 and 256, the last of the first read and the first of the second.
    assert.equal(await onDisk(`${dir}/copy/straddle.bin`), 2 * 4096);
    assert.equal(await onDisk(`${dir}/copy/dense.bin`), 2 * 4096);
    assert.equal(await onDisk(`${dir}/copy/random.bin`), 65536);
    assert.equal(await onDisk(`${dir}/copy/block.bin`), 4096);
  } finally {
    await removeTree(dir);
  }
});

Deno.test("copyTree() stops inside a large file once the signal aborts (checked each MiB)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "copy-tree-abort-" });
  try {
    await Deno.mkdir(`${dir}/src`);
    await Deno.writeFile(`${dir}/src/big.bin`, new Uint8Array(4 * MIB).fill(1));
    // Aborted at the third check: the entry's, the first MiB's, then the second MiB's.
    let checks = 0;
    const signal = {
      throwIfAborted() {
        if (++checks === 3) throw new Error("the deadline passed");
      },
    } as AbortSignal;
    await assert.rejects(
      () => copyTree(`${dir}/src`, `${dir}/copy`, { signal }),
      /the deadline passed/,
    );
    // One MiB written of four: a deadline no longer waits for a whole file.
    assert.equal((await Deno.stat(`${dir}/copy/big.bin`)).size, MIB);
  } finally {
    await removeTree(dir);
  }
});
