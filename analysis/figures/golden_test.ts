/**
 * Golden specs: the builders' output on the shipped example ledgers must match
 * the committed files `golden/<ledger>.<figure>.vl.json` byte for byte
 * (canonical JSON: sorted keys, 12 significant digits).
 *
 * After a deliberate change, regenerate with `deno task golden` (this file run
 * with `-- --update`), look at the figures (`tools/render_example_figures.ts`)
 * and commit the new goldens with the change.
 *
 * @module
 */
import assert from "node:assert/strict";
import { canonicalJson } from "../canonical_json.ts";
import { exampleFigures } from "../../tests/_example_inputs.ts";

const GOLDEN_DIR = new URL("./golden/", import.meta.url);
const UPDATE = Deno.args.includes("--update");
const REGENERATE = "deno task golden";

function goldenName(ledger: string, figure: string): string {
  return `${ledger}.${figure}.vl.json`;
}

async function committedGoldens(): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(GOLDEN_DIR)) {
      if (entry.isFile && entry.name.endsWith(".vl.json")) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

Deno.test("figure builders match the golden specs of the example ledgers", async () => {
  const examples = await exampleFigures();
  assert.ok(examples.length > 0, "no example ledger found under ledgers/examples/");
  const expected = new Set<string>();
  if (UPDATE) await Deno.mkdir(GOLDEN_DIR, { recursive: true });
  for (const example of examples) {
    for (const figure of example.figures) {
      const name = goldenName(example.ledger, figure.name);
      expected.add(name);
      const actual = canonicalJson(figure.spec);
      const file = new URL(name, GOLDEN_DIR);
      if (UPDATE) {
        await Deno.writeTextFile(file, actual);
        continue;
      }
      let golden: string;
      try {
        golden = await Deno.readTextFile(file);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) {
          assert.fail(
            `Missing golden spec "analysis/figures/golden/${name}" for ${figure.builder}() on ` +
              `"${example.ledger}": run \`${REGENERATE}\` and commit it`,
          );
        }
        throw error;
      }
      assert.ok(
        actual === golden,
        `Golden spec "analysis/figures/golden/${name}" differs from ${figure.builder}() on ` +
          `"${example.ledger}": if the change is intended, run \`${REGENERATE}\`, look at the ` +
          "figures and commit the new goldens",
      );
    }
  }
  const stale = (await committedGoldens()).filter((name) => !expected.has(name));
  if (UPDATE) {
    for (const name of stale) await Deno.remove(new URL(name, GOLDEN_DIR));
  } else {
    assert.deepEqual(stale, [], `Stale golden specs no builder produces: run \`${REGENERATE}\``);
  }
});

Deno.test("golden specs carry fixed sizes, titles, subtitles and inline data only", async () => {
  for (const example of await exampleFigures()) {
    for (const { name, spec } of example.figures) {
      const text = JSON.stringify(spec);
      assert.ok(!/"url"\s*:/.test(text), `${name}: data must be inlined, not fetched`);
      assert.ok(!/"container"/.test(text), `${name}: sizes must be fixed numbers`);
      const title = (spec as { title?: { text?: string; subtitle?: string[] } }).title;
      assert.ok(title?.text && title.subtitle && title.subtitle.length > 0, `${name}: title`);
      // Every panel has numeric width and height.
      const panels = [spec as unknown as Record<string, unknown>].flatMap((s) =>
        (s.hconcat ?? s.vconcat ?? [s]) as Record<string, unknown>[]
      );
      for (const panel of panels) {
        assert.equal(typeof panel.width, "number", `${name}: width`);
        assert.equal(typeof panel.height, "number", `${name}: height`);
      }
    }
  }
});
