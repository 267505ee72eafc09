/**
 * docs/first_run.md, the newcomer's first run, end to end on the engine:
 * its ```` ```sh covered-by="tests/first_run_test.ts" ```` blocks run in order, verbatim through
 * `sh` from the repository root (`npx deno task ledgerbench ...`, as after
 * `npm ci`), with `out/first-run` moved to a temporary directory. The suite
 * is proven, the plan frozen (with the agent check), the three episodes run
 * against `suites/first_run.provider.json`, and then: two rows resolved, one
 * failed, none invalid or censored; a report whose leaderboard states a
 * headline claim; the episode pages written; and each command's `next:`
 * line is the guide's next command.
 *
 * The build block (`containers/build_images.sh`, idempotent) runs only when
 * an image the guide uses is absent, so that the test never retags the
 * `:latest` images other runs on the same engine use.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { ROOT } from "./_cli_run.ts";

const ENGINE = await requireDockerEngine("tests/first_run_test.ts");

/** The guide, and where its commands write. */
const GUIDE = `${ROOT}docs/first_run.md`;
const OUT = "out/first-run";
/** The images the guide's run uses. */
const IMAGES = ["ledgerbench/agent-solver:latest", "ledgerbench/verifier:latest"];

/** The guide's command blocks, in order: they run in sequence, so this test is their runner. */
async function dockerBlocks(): Promise<string[]> {
  const text = await Deno.readTextFile(GUIDE);
  return [...text.matchAll(/^```sh covered-by="tests\/first_run_test\.ts"\n([\s\S]*?)^```$/gm)]
    .map((m) => m[1]);
}

/** Whether every image in `images` is on the engine. */
async function present(images: readonly string[]): Promise<boolean> {
  const inspect = new Deno.Command("docker", {
    args: ["image", "inspect", ...images],
    stdout: "null",
    stderr: "null",
  });
  return (await inspect.output()).success;
}

/** The command a `next:` line names, unfolded (continuations joined), without `deno task`'s prefix. */
function nextCommand(stdout: string): string {
  const at = stdout.lastIndexOf("next:");
  ok(at >= 0, `no next: line in\n${stdout}`);
  const [command] = stdout.slice(at + "next:".length).replaceAll("\\\n", " ").trim()
    .split(/\n/);
  return command.replace(/ \(.*\)$/, "").replace(/\s+/g, " ").trim();
}

/** A guide block's one `ledgerbench` command, unfolded, as a `next:` line would name it. */
function guideCommand(block: string): string {
  return block.replaceAll("\\\n", " ").replace(/\s+/g, " ").trim().replace(/^npx /, "");
}

Deno.test({
  name: "docs/first_run.md's commands give scored rows, a report with a claim and episode pages",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const blocks = await dockerBlocks();
    equal(blocks.length, 6, "build, suite check, freeze, run, report, view");
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-first-run-" });
    const out = `${dir}/first-run`;
    const moved = blocks.map((block) => block.replaceAll(OUT, out));
    try {
      const stdout: string[] = [];
      for (const [i, block] of moved.entries()) {
        if (block.startsWith("bash containers/build_images.sh") && await present(IMAGES)) {
          stdout.push("");
          continue;
        }
        const result = await new Deno.Command("sh", {
          args: ["-e", "-c", block],
          cwd: ROOT,
          env: { NO_COLOR: "1", COLUMNS: "100" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const decoder = new TextDecoder();
        const text = decoder.decode(result.stdout);
        equal(result.code, 0, `block ${i + 1}:\n${block}\n${text}${decoder.decode(result.stderr)}`);
        stdout.push(text);
      }
      const [, check, freeze, run, report, view] = stdout;
      // the suite's hash as the guide shows it: the shipped suite is the one the guide describes
      const proven = /^passed: 3 tasks of 3 proven; suite [0-9a-f]{64}$/m.exec(
        await Deno.readTextFile(GUIDE),
      );
      ok(proven !== null && check.includes(`${proven[0]}\n`), check);
      ok(freeze.includes("agent check: passed"), freeze);
      // each step names the next one: run its report, report the view of the same ledger
      ok(guideCommand(moved[3]).startsWith(nextCommand(freeze).replace(/ --upstream URL$/, "")));
      equal(nextCommand(run), guideCommand(moved[4]));
      ok(guideCommand(moved[5]).startsWith(nextCommand(report)), report);

      const { rows } = await loadLedger(`${out}/ledger.jsonl`);
      deepEqual(
        rows.map((r) => [r.task_id, r.status, r.resolved, r.stop_reason, r.model_calls]).sort(),
        [
          ["greet", "scored", true, "completed", 1],
          ["reverse-words", "scored", false, "completed", 1],
          ["sum-lines", "scored", true, "completed", 1],
        ],
        rows.map((r) => `${r.task_id}: ${r.notes}`).join("\n"),
      );

      const summary = JSON.parse(await Deno.readTextFile(`${out}/report/summary.json`));
      const [solver] = summary.censoring.agents;
      deepEqual(
        [solver.agent_id, solver.claim, solver.passed, solver.scored, solver.invalid],
        ["solver", "headline", 2, 3, 0],
      );
      deepEqual(
        summary.leaderboard.map((e: { agent_id: string; rank: number }) => [
          e.agent_id,
          e.rank,
        ]),
        [["solver", 1]],
      );
      ok((await Deno.stat(`${out}/report/report.html`)).size > 0);

      ok(view.includes(`wrote 3 episodes and 0 side-by-side pages in 5 files`), view);
      for (const page of ["index.html", "data/rows-0.js", "episode/0.html"]) {
        ok((await Deno.stat(`${out}/view/${page}`)).isFile, page);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("the README's first-run block is the guide's commands, in order", async () => {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const block = readme.match(/^```sh covered-by="tests\/first_run_test\.ts"\n([\s\S]*?)^```$/m);
  ok(block !== null, "README.md has no first-run block");
  equal(block[1], (await dockerBlocks()).join(""));
});
