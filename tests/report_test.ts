/**
 * Integration tests of `ledgerbench report` and `ledgerbench verify-report`,
 * run as real subprocesses from a scratch directory holding copies of the
 * shipped example inputs (so tampering never touches the repository).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createHash } from "node:crypto";

const ROOT = new URL("..", import.meta.url).pathname;
const EXAMPLES = `${ROOT}ledgers/examples`;
const INPUTS = [
  "synthetic_ledger.jsonl",
  "synthetic_plan.json",
  "synthetic_errata.jsonl",
  "price_table.json",
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with the `ledgerbench` task's permissions, from `cwd`. */
async function ledgerbench(cwd: string, ...args: string[]): Promise<Run> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-sys",
      "--allow-ffi",
      "--config",
      `${ROOT}deno.json`,
      `${ROOT}cli/main.ts`,
      ...args,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Every file under `dir`, relative, sorted. */
async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/${prefix}`)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) out.push(...await listFiles(dir, `${path}/`));
    else out.push(path);
  }
  return out.sort();
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const REPORT_ARGS = [
  "report",
  "inputs/synthetic_ledger.jsonl",
  "--plan",
  "inputs/synthetic_plan.json",
  "--errata",
  "inputs/synthetic_errata.jsonl",
  "--price-table",
  "inputs/price_table.json",
];

Deno.test("ledgerbench report is byte-identical across runs and verify-report catches tampering", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "ledgerbench_report_" });
  try {
    await Deno.mkdir(`${work}/inputs`);
    for (const name of INPUTS) await Deno.copyFile(`${EXAMPLES}/${name}`, `${work}/inputs/${name}`);

    await t.step("two runs write the same files, byte for byte", async () => {
      const first = await ledgerbench(work, ...REPORT_ARGS, "--out", "one");
      equal(first.code, 0, first.stderr);
      equal(first.stderr, "");
      match(first.stdout, /^Wrote one: summary\.json, report\.md, report\.html and 7 figures/);
      const second = await ledgerbench(work, ...REPORT_ARGS, "--out", "two");
      equal(second.code, 0, second.stderr);
      const files = await listFiles(`${work}/one`);
      deepEqual(await listFiles(`${work}/two`), files);
      for (const file of files) {
        const a = await Deno.readFile(`${work}/one/${file}`);
        const b = await Deno.readFile(`${work}/two/${file}`);
        equal(sha256(a), sha256(b), `${file} differs between runs`);
      }
      // The directory holds exactly what summary.json lists, and it records the paths as given.
      const summary = JSON.parse(await Deno.readTextFile(`${work}/one/summary.json`));
      deepEqual(
        files,
        [
          ...summary.figures.flatMap((f: { svg: string; png: string }) => [f.svg, f.png]),
          "report.html",
          "report.md",
          "summary.json",
        ].sort(),
      );
      equal(summary.inputs.ledger.path, "inputs/synthetic_ledger.jsonl");
      equal(
        summary.inputs.ledger.sha256,
        sha256(await Deno.readFile(`${work}/inputs/synthetic_ledger.jsonl`)),
      );
      const text = [
        await Deno.readTextFile(`${work}/one/report.md`),
        await Deno.readTextFile(`${work}/one/report.html`),
        await Deno.readTextFile(`${work}/one/summary.json`),
      ].join("");
      ok(!text.includes(work), "no absolute path of the run in the outputs");
    });

    await t.step("an untouched report verifies with exit status 0", async () => {
      const run = await ledgerbench(work, "verify-report", "one");
      equal(run.code, 0, run.stdout + run.stderr);
      match(run.stdout, /ledger: inputs\/synthetic_ledger\.jsonl \(SHA-256 matches\)/);
      match(run.stdout, /OK: one matches its inputs: 17 files identical/);
      // From elsewhere, --base resolves the recorded relative paths.
      const elsewhere = await ledgerbench(ROOT, "verify-report", `${work}/one`, "--base", work);
      equal(elsewhere.code, 0, elsewhere.stdout + elsewhere.stderr);
    });

    await t.step(
      "a tampered summary (one number changed) is caught with exit status 1",
      async () => {
        const path = `${work}/two/summary.json`;
        const text = await Deno.readTextFile(path);
        // The first "tokens" member is agents[0].tokens (canonical JSON sorts keys).
        const found = /"tokens": (\d+)/.exec(text)!;
        const tampered = text.replace(found[0], `"tokens": ${Number(found[1]) + 1}`);
        await Deno.writeTextFile(path, tampered);
        // And a figure file the report does not write.
        await Deno.writeTextFile(`${work}/two/figures/extra.svg`, "<svg/>");
        const run = await ledgerbench(work, "verify-report", "two");
        equal(run.code, 1, run.stdout + run.stderr);
        ok(
          run.stdout.includes(
            `summary.json $.agents[0].tokens: summary.json holds ${
              Number(found[1]) + 1
            }, recomputed ${found[1]}`,
          ),
          run.stdout,
        );
        match(run.stdout, /summary\.json: bytes differ from line \d+/);
        match(run.stdout, /figures\/extra\.svg: not a file this report writes/);
        match(run.stdout, /MISMATCH: two: 3 differences/);
        match(run.stdout, /ledger: inputs\/synthetic_ledger\.jsonl \(SHA-256 matches\)/);
        match(run.stderr, /^error: Report "two" does not match its inputs/);
      },
    );

    await t.step("a tampered ledger (one byte changed) is caught with exit status 1", async () => {
      const path = `${work}/inputs/synthetic_ledger.jsonl`;
      const original = await Deno.readFile(path);
      const recorded = sha256(original);
      const lines = new TextDecoder().decode(original).split("\n");
      // One digit of the last row's wall_ms: the hash chain covers earlier lines only, so the
      // ledger still reads and the report is recomputed from the changed numbers.
      const last = lines.length - 2;
      lines[last] = lines[last].replace(
        /"wall_ms":(\d*)(\d)/,
        (_, head, digit) => `"wall_ms":${head}${(Number(digit) + 1) % 10}`,
      );
      const changed = new TextEncoder().encode(lines.join("\n"));
      equal(changed.length, original.length, "one byte changed, same length");
      await Deno.writeFile(path, changed);
      const run = await ledgerbench(work, "verify-report", "one");
      equal(run.code, 1, run.stdout + run.stderr);
      match(run.stdout, /ledger: inputs\/synthetic_ledger\.jsonl \(SHA-256 DIFFERS\)/);
      ok(
        run.stdout.includes(
          `inputs/synthetic_ledger.jsonl $.inputs.ledger.sha256: the ledger has changed: ` +
            `summary.json records SHA-256 ${recorded}, the file has ${sha256(changed)}`,
        ),
        run.stdout,
      );
      // The recomputed numbers differ too: the agent's wall seconds.
      match(run.stdout, /summary\.json \$\.agents\[\d\]\.wall_seconds: summary\.json holds/);
      match(run.stdout, /report\.md: bytes differ from line \d+/);

      // A byte changed earlier breaks the hash chain: the ledger no longer reads, and both the
      // changed hash and the read error are reported.
      const early = new Uint8Array(original);
      const at = new TextDecoder().decode(original).indexOf('"wall_ms":') + 10;
      early[at] = early[at] === 0x31 ? 0x32 : 0x31;
      await Deno.writeFile(path, early);
      const broken = await ledgerbench(work, "verify-report", "one");
      equal(broken.code, 1, broken.stdout + broken.stderr);
      match(broken.stdout, /\$\.inputs\.ledger\.sha256: the ledger has changed/);
      match(
        broken.stdout,
        /cannot recompute the report: inputs\/synthetic_ledger\.jsonl:2: field "prev_sha256"/,
      );
      await Deno.writeFile(path, original);
    });

    await t.step("usage errors exit 1 with help on stderr; a missing ledger exits 2", async () => {
      const noOut = await ledgerbench(work, "report", "inputs/synthetic_ledger.jsonl");
      equal(noOut.code, 1);
      match(noOut.stderr, /^error: Missing option: "--out"\n\nWrite the replayable report/);
      const missing = await ledgerbench(work, "report", "inputs/nope.jsonl", "--out", "x");
      equal(missing.code, 2);
      match(missing.stderr, /^error: inputs\/nope\.jsonl: /);
      const noSummary = await ledgerbench(work, "verify-report", "inputs");
      equal(noSummary.code, 2);
      match(noSummary.stderr, /^error: inputs\/summary\.json: /);
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
