import { deepEqual, equal } from "node:assert/strict";
import { writeReport } from "./write_report.ts";

Deno.test("writeReport() writes every file and removes only stale figure files", async () => {
  const dir = await Deno.makeTempDir({ prefix: "write_report_" });
  try {
    await Deno.mkdir(`${dir}/figures`);
    // Left by an earlier report with other figures, and a file that is not a figure.
    await Deno.writeTextFile(`${dir}/figures/old.svg`, "<svg/>");
    await Deno.writeTextFile(`${dir}/figures/old.png`, "png");
    await Deno.writeTextFile(`${dir}/figures/notes.txt`, "mine");
    await Deno.writeTextFile(`${dir}/README.txt`, "mine too");
    const encoder = new TextEncoder();
    const removed = await writeReport(dir, [
      { path: "summary.json", bytes: encoder.encode("{}\n") },
      { path: "figures/forest.svg", bytes: encoder.encode("<svg></svg>") },
    ]);
    deepEqual(removed, ["figures/old.png", "figures/old.svg"]);
    const names: string[] = [];
    for await (const entry of Deno.readDir(`${dir}/figures`)) names.push(entry.name);
    deepEqual(names.sort(), ["forest.svg", "notes.txt"]);
    equal(await Deno.readTextFile(`${dir}/summary.json`), "{}\n");
    equal(await Deno.readTextFile(`${dir}/README.txt`), "mine too");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
