import { equal, rejects } from "node:assert/strict";
import { readRegularFile } from "./read_regular_file.ts";

Deno.test("readRegularFile() reads a file within its bound, refuses a fifo without blocking, a link, a directory and a larger file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/log.json`, "{}\n");
    equal(new TextDecoder().decode(await readRegularFile(`${dir}/log.json`, 3)), "{}\n");
    await rejects(readRegularFile(`${dir}/log.json`, 2), /"[^"]+\/log\.json" is over 2 bytes/);
    const fifo = await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
    equal(fifo.success, true);
    // Opening a fifo for reading would block until a writer came; it is refused at once.
    await rejects(readRegularFile(`${dir}/fifo`, 1024), /"[^"]+\/fifo" is not a regular file$/);
    await Deno.symlink(`${dir}/log.json`, `${dir}/link`);
    await rejects(readRegularFile(`${dir}/link`, 1024), /is not a regular file: a symbolic link/);
    await rejects(readRegularFile(dir, 1024), /is not a regular file$/);
    await rejects(readRegularFile(`${dir}/absent`, 1024), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
