import assert from "node:assert/strict";
import { type Notebook, notebookText, stripNotebookOutputs } from "./strip_notebook_outputs.ts";

/** A notebook as nbconvert leaves it after executing (outputs, counts, timestamps, version). */
function executed(): Notebook {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      language_info: { name: "typescript", version: "6.0.3" },
      kernelspec: { name: "deno", display_name: "Deno", language: "typescript" },
    },
    cells: [
      { cell_type: "markdown", id: "m", metadata: {}, source: ["# Title"] },
      {
        cell_type: "code",
        id: "c",
        execution_count: 4,
        metadata: { tags: ["parameters"], execution: { "iopub.status.idle": "2026-01-01" } },
        outputs: [{ output_type: "stream", name: "stdout", text: ["hi\n"] }],
        source: ['const LEDGER = "x";'],
      },
    ],
  };
}

Deno.test("stripNotebookOutputs() clears outputs, counts, timestamps and the kernel version", () => {
  const input = executed();
  const stripped = stripNotebookOutputs(input);
  assert.deepEqual(stripped.cells[1], {
    cell_type: "code",
    id: "c",
    execution_count: null,
    metadata: { tags: ["parameters"] },
    outputs: [],
    source: ['const LEDGER = "x";'],
  });
  assert.deepEqual(stripped.cells[0], input.cells[0]);
  assert.deepEqual(stripped.metadata.language_info, { name: "typescript" });
  // The input is not modified, and stripping twice changes nothing.
  assert.equal(input.cells[1].execution_count, 4);
  assert.deepEqual(stripNotebookOutputs(stripped), stripped);
});

Deno.test("stripNotebookOutputs() rejects what is not an nbformat 4 notebook", () => {
  assert.throws(() => stripNotebookOutputs({ nbformat: 3 } as unknown as Notebook), {
    name: "RangeError",
    message: 'Cannot strip notebook: expected nbformat 4 with a "cells" array, found nbformat "3"',
  });
});

Deno.test("notebookText() writes sorted keys with a one-space indent, as nbformat does", () => {
  const text = notebookText({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { b: 1, a: "é" },
    cells: [],
  });
  // json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n" gives these bytes.
  assert.equal(
    text,
    '{\n "cells": [],\n "metadata": {\n  "a": "é",\n  "b": 1\n },\n "nbformat": 4,\n "nbformat_minor": 5\n}\n',
  );
});

Deno.test("strip_notebook_outputs.ts --check fails on an executed notebook and the tool fixes it", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/n.ipynb`;
  try {
    await Deno.writeTextFile(file, JSON.stringify(executed()));
    const tool = new URL("./strip_notebook_outputs.ts", import.meta.url).pathname;
    const run = (...args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-read", "--allow-write", tool, ...args],
        stdout: "piped",
        stderr: "piped",
      }).output();
    const check = await run("--check", file);
    assert.equal(check.code, 1);
    assert.match(new TextDecoder().decode(check.stderr), /1 notebook\(s\) need stripping/);
    const strip = await run(file);
    assert.equal(strip.code, 0);
    assert.equal(await Deno.readTextFile(file), notebookText(stripNotebookOutputs(executed())));
    assert.equal((await run("--check", file)).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
