import assert from "node:assert/strict";
import { episode } from "../analysis/_ledger_for_test.ts";
import { Episode } from "../analysis/schema/records.ts";
import { writeSyntheticLedger } from "../tools/synthetic_ledger.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { handLedger } from "../viewer/_ledger_for_test.ts";
import { EPISODES_PER_FILE, STATIC_DATA_ROWS } from "../viewer/links.ts";
import { loadViewLedger } from "./_view_rows.ts";
import { MAX_STATIC_ROWS, writeStaticView } from "./_view_static.ts";
import { InputError } from "./_command.ts";

/** Every file under `dir`, with its size. */
async function files(dir: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) { for (const [p, n] of await files(path)) found.set(p, n); }
    else found.set(path, (await Deno.stat(path)).size);
  }
  return found;
}

Deno.test("view --out writes a bounded number of files: episodes a hundred a file, table data 10,000 rows a file", async () => {
  await using dir = await tempDir();
  const rows = 12_345;
  const ledgerPath = `${dir.path}/ledger.jsonl`;
  await writeSyntheticLedger(ledgerPath, { rows, agents: 20, seed: 3 });
  const ledger = await loadViewLedger(ledgerPath);
  const place = { ledger: ledgerPath, artifacts: `${dir.path}/artifacts`, named: false };
  const wrote = await writeStaticView(`${dir.path}/site`, ledger, place);
  const written = await files(`${dir.path}/site`);
  const episodeFiles = Math.ceil(rows / EPISODES_PER_FILE);
  const dataFiles = Math.ceil(rows / STATIC_DATA_ROWS);
  // assets/view.css, assets/view.js, index.html; no pair (no row names a log)
  assert.equal(written.size, 3 + dataFiles + episodeFiles);
  assert.deepEqual(wrote, { episodes: rows, files: written.size, pairs: 0, pairs_left_out: false });
  assert.ok(written.get(`${dir.path}/site/index.html`)! < 200_000);
  // Every row once in the table's data, every episode once in an episode file.
  let dataRows = 0;
  for (let k = 0; k < dataFiles; k++) {
    const text = await Deno.readTextFile(`${dir.path}/site/data/rows-${k}.js`);
    const call = /^ledgerbenchRows\((\d+),(.*)\);\n$/s.exec(text)!;
    assert.equal(Number(call[1]), k);
    dataRows += JSON.parse(call[2]).length;
  }
  assert.equal(dataRows, rows);
  let articles = 0;
  for (let k = 0; k < episodeFiles; k++) {
    const html = await Deno.readTextFile(`${dir.path}/site/episode/${k}.html`);
    articles += (html.match(/<article class="episode" id="line-\d+">/g) ?? []).length;
  }
  assert.equal(articles, rows);
  // The rows read back from the ledger are the rows it holds.
  const lines = (await Deno.readTextFile(ledgerPath)).split("\n");
  const back = await ledger.rows(4_990, 5_010);
  assert.deepEqual(
    back.map((r) => r.row),
    lines.slice(4_990, 5_010).map((l) => Episode.parse(JSON.parse(l))),
  );
  assert.deepEqual(back.map((r) => r.line), Array.from({ length: 20 }, (_, k) => 4_991 + k));
});

Deno.test("view --out refuses a ledger of more rows than it writes, before writing, naming the option and the server", async () => {
  await using dir = await tempDir();
  const row = episode("a", "t", true);
  const ledger = handLedger(
    Array.from({ length: MAX_STATIC_ROWS + 1 }, () => ({ row })),
    "big.jsonl",
  );
  const place = { ledger: "big.jsonl", artifacts: dir.path, named: false };
  await assert.rejects(
    () => writeStaticView(`${dir.path}/site`, ledger, place),
    (error: Error) => {
      assert.ok(error instanceof InputError);
      assert.equal(
        error.message,
        'Option "--out": big.jsonl holds 200,001 rows, more than the 200,000 a static export writes: browse it with "ledgerbench view big.jsonl"',
      );
      return true;
    },
  );
  assert.equal(await files(dir.path).then((f) => f.size), 0);
});
