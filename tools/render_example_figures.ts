/**
 * Renders every figure of the shipped example ledgers to SVG and PNG, so a
 * person can look at each one as a reader would.
 *
 * Usage:
 *
 *     deno run --allow-read --allow-write tools/render_example_figures.ts --out /tmp/figures
 *     deno run --allow-read --allow-write tools/render_example_figures.ts --out /tmp/f --scale 1
 *
 * Writes `<out>/<ledger>/<figure>.svg`, `.png` and `.vl.json` (the vega-lite
 * spec as canonical JSON) for each example ledger present, and prints one line
 * per figure. Exits 1 when vega-lite or vega logged a warning for any figure.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { exampleFigures } from "../tests/_example_inputs.ts";
import { renderFigure } from "../report/render_figure.ts";

const HELP = `Render every figure of the example ledgers to SVG and PNG.

  deno run --allow-read --allow-write tools/render_example_figures.ts --out /tmp/figures

OPTIONS:
  --out DIR     Output folder (created); one subfolder per example ledger
  --scale N     PNG zoom factor (default 2)
  -h, --help    This help
`;

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      out: { type: "string" },
      scale: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.out === undefined) {
    console.error(HELP);
    return 2;
  }
  const scale = values.scale === undefined ? 2 : Number(values.scale);
  let warned = 0;
  for (const example of await exampleFigures()) {
    const dir = `${values.out}/${example.ledger}`;
    await Deno.mkdir(dir, { recursive: true });
    for (const figure of example.figures) {
      const rendered = await renderFigure(figure.spec, { scale });
      const base = `${dir}/${figure.name}`;
      await Deno.writeTextFile(`${base}.svg`, rendered.svg);
      await Deno.writeFile(`${base}.png`, rendered.png);
      await Deno.writeTextFile(`${base}.vl.json`, canonicalJson(figure.spec));
      console.log(`${base}.png (${figure.builder})`);
      for (const warning of rendered.warnings) {
        warned++;
        console.error(`warning: ${figure.name}: ${warning}`);
      }
    }
  }
  return warned > 0 ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
