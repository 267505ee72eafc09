import { equal, ok } from "node:assert/strict";
import { layerBytes } from "./_layer_bytes.ts";

Deno.test("layerBytes: allocated blocks of every file, sparse holes not counted", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/a/b`, { recursive: true });
    await Deno.writeFile(`${dir}/a/b/dense`, new Uint8Array(1024 * 1024).fill(7));
    const sparse = await Deno.open(`${dir}/sparse`, { write: true, create: true });
    await sparse.truncate(1024 ** 3);
    sparse.close();
    const bytes = await layerBytes(dir);
    // 1 MiB of data plus the directories' blocks; the 1 GiB hole takes none
    ok(bytes >= 1024 * 1024 && bytes < 1024 * 1024 + 64 * 1024, `${bytes}`);
    equal(await layerBytes(dir, 2), Infinity);
    equal(await layerBytes(`${dir}/gone`), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
