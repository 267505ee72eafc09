import { deepEqual, rejects } from "node:assert/strict";
import { LedgerError } from "../analysis/ledger_error.ts";
import { defaultTaskListPath, findTaskListBeside, loadTaskList } from "./task_list.ts";

const FIXTURE = new URL("../tests/fixtures/task_list/swe_ids.txt", import.meta.url).pathname;

async function problemOf(text: string | Uint8Array): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".txt" });
  if (typeof text === "string") await Deno.writeTextFile(path, text);
  else await Deno.writeFile(path, text);
  try {
    await loadTaskList(path);
    return "loaded";
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    const p = error.problems[0];
    return `${p.code} line ${p.line} ${p.field}: ${p.message}`;
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("loadTaskList() reads one id per line (CRLF or LF, no final newline needed)", async () => {
  const { value, sha256 } = await loadTaskList(FIXTURE);
  deepEqual(value.tasks.map((t) => t.task_id), ["django-1", "django-2", "django-3"]);
  deepEqual([value.attempts_per_task, value.tasks[0].lane, sha256.length], [1, "default", 64]);
});

Deno.test("loadTaskList() reads the JSON form import writes, epochs included", async () => {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(
    path,
    JSON.stringify({ tasks: [{ task_id: "a/1" }], attempts_per_task: 3 }),
  );
  const { value } = await loadTaskList(path);
  deepEqual([value.tasks[0].task_id, value.attempts_per_task], ["a/1", 3]);
  await Deno.remove(path);
});

Deno.test("loadTaskList() refuses what would change the denominator silently", async () => {
  deepEqual(await problemOf("a\n\nb\n"), "blank_line line 2 : is blank; one task id per line");
  deepEqual(
    await problemOf("a\nb \n"),
    'schema_violation line 2 task_id: task id "b " has leading or trailing spaces',
  );
  deepEqual(
    await problemOf("a\nb\na\n"),
    'schema_violation line 0 tasks.2.task_id: duplicate task "a" (first at tasks.0)',
  );
  deepEqual(await problemOf(""), "blank_line line 0 : holds no task id");
  // The inputs layer's one wording of a bad encoding, with the byte and its line.
  deepEqual(
    await problemOf(new Uint8Array([0x61, 0xff, 0x0a])),
    "bad_encoding line 1 : not valid UTF-8 at byte 2 (0xFF 0x0A)",
  );
  deepEqual(
    await problemOf(new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0a])),
    "bad_encoding line 1 : starts with a UTF-8 byte-order mark (U+FEFF); save it without one",
  );
  deepEqual(
    await problemOf('{"tasks": [{"task_id": "a"}], "epochs": 2}'),
    "schema_violation line 0 epochs: unknown key; the schema has no such field",
  );
  await rejects(() => loadTaskList("/nonexistent/tasks.txt"), LedgerError);
});

Deno.test("defaultTaskListPath() replaces a final .jsonl, else appends", () => {
  deepEqual(
    [
      defaultTaskListPath("out/runs.jsonl"),
      defaultTaskListPath("ledger.jsonl.bak"),
      defaultTaskListPath("a.jsonl/ledger.jsonl"),
    ],
    ["out/runs.tasks.json", "ledger.jsonl.bak.tasks.json", "a.jsonl/ledger.tasks.json"],
  );
});

Deno.test("findTaskListBeside() finds the list import writes beside the ledger, else null", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ledger = `${dir}/runs.jsonl`;
    deepEqual(await findTaskListBeside(ledger), null);
    // Another name beside the ledger is not its task list.
    await Deno.writeTextFile(`${dir}/runs.tasks.txt`, "a\n");
    await Deno.writeTextFile(`${dir}/ledger.tasks.json`, '{"tasks": [{"task_id": "a"}]}');
    deepEqual(await findTaskListBeside(ledger), null);
    await Deno.writeTextFile(`${dir}/runs.tasks.json`, '{"tasks": [{"task_id": "a"}]}');
    deepEqual(await findTaskListBeside(ledger), `${dir}/runs.tasks.json`);
    // Found is only a path: loadTaskList reads (or refuses) it like any task list.
    deepEqual((await loadTaskList((await findTaskListBeside(ledger))!)).value.tasks.length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("findTaskListBeside() names the path import wrote (defaultTaskListPath)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ledger = `${dir}/imported`;
    await Deno.writeTextFile(defaultTaskListPath(ledger), "a\n");
    deepEqual(await findTaskListBeside(ledger), `${dir}/imported.tasks.json`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
