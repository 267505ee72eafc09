/**
 * Every command block of README.md and docs/*.md runs: each fenced `sh`
 * block is run as a newcomer would paste it, with `set -e`, in a fresh
 * scratch copy of the repository (the files git tracks or would track, as
 * they are in the working tree, plus a `node_modules` link to this checkout's),
 * and must exit 0. Nothing runs in the real tree, and the test checks that
 * `git status` of the real tree is the same after the blocks as before.
 *
 * A block's info string says what it is, visibly, after `sh`:
 *
 * - nothing: a command block, run everywhere.
 * - `needs=docker`, `needs=jupyter` (`needs=docker,jupyter` for both): run
 *   when that is reachable (a Docker engine; `jupyter` with the `deno`
 *   kernel). Under `CI=true` a missing one is a failure, as in the other
 *   tests: CI installs both (`.ci/run`).
 * - `illustrative reason="..."`: not run, for a stated reason (your own suite,
 *   a paid API key, a server that runs until stopped); keep these few.
 * - `covered-by="FILE ..."`: run by the named files (the README's two
 *   commands are `.ci/run`'s and the demo test's, not run again here); each
 *   file must exist.
 * - `file=NAME`: not a command but a file's contents (a `verify.sh`, an
 *   agent's start script), shown as `sh` for its highlighting.
 *
 * Any other shell fence (`bash`, `shell`, `console`...) or marker is an
 * error, so no command block escapes the run. Every block not run is listed
 * in the test's output with its file, line and reason.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { docFiles, DOCS_ROOT, type FencedBlock, fencedBlocks } from "./_markdown.ts";
import { requireDockerEngine } from "./_docker_engine.ts";

/** How long one block may run: generous (the longest here, the analysis examples, take about 25 s). */
const BLOCK_TIMEOUT_MS = 10 * 60_000;

/** Fences that would hold shell commands under another name than `sh`. */
const OTHER_SHELLS = new Set(["bash", "shell", "console", "zsh", "shell-session", "sh-session"]);

/** What a block's markers say to do with it. */
type Plan =
  | { run: true; needs: string[] }
  | { run: false; why: string };

/** The needs a block may declare, each with a probe saying why it is unmet (null: met). */
const NEEDS: Record<string, () => Promise<string | null>> = {
  docker: async () => {
    const engine = await requireDockerEngine("tests/doc_commands_test.ts");
    return engine.available ? null : "no Docker engine";
  },
  jupyter: async () => {
    const specs = await output("jupyter", ["kernelspec", "list", "--json"]);
    if (specs === null) return "no jupyter on PATH (bash .ci/install_jupyter.sh)";
    const argv: string[] = JSON.parse(specs).kernelspecs?.deno?.spec?.argv ?? [];
    if (argv.length === 0) return 'jupyter has no "deno" kernel (bash .ci/install_jupyter.sh)';
    const started = await Deno.stat(argv[0]).then(() => true, () => false);
    return started
      ? null
      : `the "deno" kernel starts ${argv[0]}, which is gone (bash .ci/install_jupyter.sh)`;
  },
};

/** A program's stdout when it exits 0, else null (also when it is not installed). */
async function output(program: string, args: string[]): Promise<string | null> {
  try {
    const result = await new Deno.Command(program, { args, stdout: "piped", stderr: "null" })
      .output();
    return result.success ? new TextDecoder().decode(result.stdout) : null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * What to do with one `sh` block, by its markers (module doc).
 *
 * @throws {Error} naming the block on an unknown marker, a marker without
 *   its value, an `illustrative` block without a reason, or a covered-by
 *   file that does not exist
 */
async function planOf(block: FencedBlock): Promise<Plan> {
  const where = `${block.file}:${block.line}`;
  const { needs, illustrative, reason, file, ...rest } = block.attributes;
  const coveredBy = rest["covered-by"];
  delete rest["covered-by"];
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new Error(`${where}: unknown marker "${unknown[0]}"`);
  const kinds = [needs, illustrative, file, coveredBy].filter((value) => value !== undefined);
  if (kinds.length > 1) {
    throw new Error(`${where}: more than one of needs, illustrative, file, covered-by`);
  }
  if (illustrative !== undefined) {
    if (!reason) throw new Error(`${where}: an illustrative block needs reason="..."`);
    return { run: false, why: `illustrative: ${reason}` };
  }
  if (reason !== undefined) throw new Error(`${where}: reason= belongs to an illustrative block`);
  if (file !== undefined) {
    if (file === "") throw new Error(`${where}: file= needs the file's name`);
    return { run: false, why: `the contents of ${file}, not commands` };
  }
  if (coveredBy !== undefined) {
    const files = coveredBy.split(/\s+/).filter((name) => name !== "");
    if (files.length === 0) throw new Error(`${where}: covered-by= needs the files that run it`);
    for (const name of files) {
      await Deno.stat(join(DOCS_ROOT, name)).catch(() => {
        throw new Error(`${where}: covered-by names "${name}", which does not exist`);
      });
    }
    return { run: false, why: `run by ${files.join(" and ")}` };
  }
  const needed = needs === undefined ? [] : needs.split(",");
  for (const need of needed) {
    if (!Object.hasOwn(NEEDS, need)) throw new Error(`${where}: unknown need "${need}"`);
  }
  return { run: true, needs: needed };
}

/** Every `sh` block of the guides; any other shell fence fails here. */
async function shellBlocks(): Promise<FencedBlock[]> {
  const blocks: FencedBlock[] = [];
  for (const file of await docFiles()) {
    for (const block of fencedBlocks(await Deno.readTextFile(join(DOCS_ROOT, file)), file)) {
      if (OTHER_SHELLS.has(block.lang)) {
        throw new Error(
          `${file}:${block.line}: a "${block.lang}" block: write commands as "sh" (with a marker)`,
        );
      }
      if (block.lang === "sh") blocks.push(block);
    }
  }
  return blocks;
}

/** The paths git tracks or would track (untracked, not ignored), as in the working tree. */
async function repositoryFiles(): Promise<string[]> {
  const listed = await output("git", [
    "-C",
    DOCS_ROOT,
    "ls-files",
    "-z",
    "--cached",
    "--others",
    "--exclude-standard",
  ]);
  assert.ok(listed !== null, "git ls-files failed: the test copies a git checkout's files");
  return listed.split("\0").filter((path) => path !== "");
}

/** `git status --porcelain` of the real tree, to show the blocks changed nothing in it. */
async function gitStatus(): Promise<string> {
  const status = await new Deno.Command("git", {
    args: ["status", "--porcelain", "--untracked-files=no"],
    cwd: DOCS_ROOT,
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(status.stdout);
}

/** A fresh copy of the repository's files (modes kept), with this checkout's node_modules linked in. */
async function scratchCopy(files: string[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-doc-commands-" });
  for (const path of files) {
    if (path === "node_modules") continue;
    await Deno.mkdir(join(dir, dirname(path)), { recursive: true });
    try {
      await Deno.copyFile(join(DOCS_ROOT, path), join(dir, path));
    } catch (error) {
      // A tracked file deleted in the working tree is not part of what is tested.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  await Deno.symlink(
    await Deno.realPath(join(DOCS_ROOT, "node_modules")),
    join(dir, "node_modules"),
  );
  return dir;
}

const blocks = await shellBlocks();
const plans = await Promise.all(blocks.map(planOf));

Deno.test("the guides' command blocks are marked, and every block not run is listed", () => {
  const notRun = blocks.flatMap((block, i) => {
    const plan = plans[i];
    return plan.run ? [] : [`  ${block.file}:${block.line}: ${plan.why}`];
  });
  console.log(
    `sh blocks not run here (${notRun.length} of ${blocks.length}):\n${notRun.join("\n")}`,
  );
  const run = plans.filter((plan) => plan.run).length;
  assert.ok(run >= 8, `only ${run} blocks run`);
});

Deno.test("every command block of README.md and docs/*.md exits 0 in a scratch copy", async (t) => {
  const files = await repositoryFiles();
  const before = await gitStatus();
  const unmet = new Map<string, string | null>();
  for (const [i, block] of blocks.entries()) {
    const plan = plans[i];
    if (!plan.run) continue;
    const where = `${block.file}:${block.line}`;
    for (const need of plan.needs) {
      if (!unmet.has(need)) unmet.set(need, await NEEDS[need]());
    }
    const missing = plan.needs.map((need) => unmet.get(need)).find((why) => why !== null);
    if (missing !== undefined) {
      assert.notEqual(Deno.env.get("CI"), "true", `${where} cannot run under CI=true: ${missing}`);
      console.warn(`${where} skipped: ${missing}`);
      continue;
    }
    await t.step(where, async () => {
      const dir = await scratchCopy(files);
      try {
        const result = await new Deno.Command("sh", {
          args: ["-c", `set -e\n${block.text}`],
          cwd: dir,
          env: { NO_COLOR: "1" },
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(BLOCK_TIMEOUT_MS),
        }).output();
        const decoder = new TextDecoder();
        const tail = (bytes: Uint8Array) => decoder.decode(bytes).slice(-4000);
        assert.equal(
          result.code,
          0,
          `${where} exited ${result.code}:\n${block.text}\nstdout:\n${tail(result.stdout)}\n` +
            `stderr:\n${tail(result.stderr)}`,
        );
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
  assert.equal(await gitStatus(), before, "a block changed the real tree");
});
