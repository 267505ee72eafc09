import assert from "node:assert/strict";
import { createGate } from "./_gate.ts";
import { removeTree } from "./remove_tree.ts";

Deno.test("createGate() holds its script at the fifo until open() writes a line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gate-test-" });
  try {
    const gate = await createGate(dir);
    assert.deepEqual(gate.binds, [
      "/usr/bin/busybox:/.ledgerbench/busybox:ro",
      `${dir}:/.ledgerbench/gate:ro`,
    ]);
    assert.deepEqual(gate.entrypoint.slice(0, 3), ["/.ledgerbench/busybox", "sh", "-c"]);
    // The script's first line, pointed at the host fifo: it blocks until open().
    const reader = new Deno.Command("sh", {
      args: ["-c", `read -r line < "${dir}/open" && echo "$line"`],
      stdout: "piped",
    }).spawn();
    await gate.open();
    assert.equal(new TextDecoder().decode((await reader.output()).stdout), "open\n");
    gate.close();
    // One gate per directory: a second fifo is refused.
    await assert.rejects(
      () => createGate(dir),
      /Cannot make the gate fifo ".*\/open": .*File exists$/,
    );
  } finally {
    await removeTree(dir);
  }
});
