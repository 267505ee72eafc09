import { deepEqual, equal, ok } from "node:assert/strict";
import {
  ALONE,
  configExcludes,
  excluded,
  fileStarting,
  laneFiles,
  LANES,
  laneTimes,
  layerArguments,
  layerOf,
  LAYERS,
  ROOT,
  SYSTEM,
  SYSTEM_MARKS,
  TEST_FILE,
  testFiles,
  UNIT_DESPITE_MARKS,
  unitLaneFiles,
} from "./test_layer.ts";

/** A module that serves tests only: under tests/, a `testdata/` directory, or `*_for_test.ts`. */
function isTestHelper(path: string): boolean {
  return path.startsWith("tests/") || path.includes("/testdata/") || path.endsWith("_for_test.ts");
}

/** The source of `path` and of every test helper it imports, transitively, by path. */
async function withHelpers(path: string): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  const pending = [path];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (sources.has(file)) continue;
    const text = await Deno.readTextFile(`${ROOT}/${file}`);
    sources.set(file, text);
    for (const [, specifier] of text.matchAll(/(?:from|import\()\s*["'](\.\.?\/[^"']+)["']/g)) {
      const target = new URL(specifier, `file://${ROOT}/${file}`).pathname.slice(ROOT.length + 1);
      if (isTestHelper(target)) pending.push(target);
    }
  }
  return sources;
}

/** The first mark of a system need in the file or its helpers, as `file: /mark/`, or null. */
async function systemMark(path: string): Promise<string | null> {
  for (const [file, text] of await withHelpers(path)) {
    const mark = SYSTEM_MARKS.find((pattern) => pattern.test(text));
    if (mark !== undefined) return `${file}: ${mark}`;
  }
  return null;
}

Deno.test("every test file is in exactly one layer, and the layers are the whole suite", async () => {
  const files = await testFiles();
  ok(files.length > 200, `only ${files.length} test files found`);
  const byLayer = LAYERS.map((layer) => files.filter((file) => layerOf(file) === layer));
  deepEqual(byLayer.flat().sort(), files);
  equal(byLayer.reduce((n, layer) => n + layer.length, 0), files.length);
  for (const layer of byLayer) ok(layer.length > 0);
});

Deno.test("every system file is a test file deno test runs", async () => {
  const files = new Set(await testFiles());
  for (const path of Object.keys(SYSTEM)) {
    ok(files.has(path), `${path} is listed in SYSTEM but is not a test file deno test runs`);
  }
});

Deno.test("no unit file shows a mark of the engine, Slurm, Jupyter or a browser", async () => {
  const marked: string[] = [];
  for (const file of await testFiles()) {
    if (layerOf(file) !== "unit" || Object.hasOwn(UNIT_DESPITE_MARKS, file)) continue;
    const mark = await systemMark(file);
    if (mark !== null) marked.push(`${file} (${mark})`);
  }
  deepEqual(
    marked,
    [],
    `add to SYSTEM in tools/test_layer.ts, with what they need:\n${marked.join("\n")}`,
  );
});

Deno.test("every file kept in unit despite a mark is a unit test file that shows one", async () => {
  const files = new Set(await testFiles());
  for (const file of Object.keys(UNIT_DESPITE_MARKS)) {
    ok(files.has(file) && layerOf(file) === "unit", file);
    ok(await systemMark(file) !== null, `${file} shows no mark: drop it from UNIT_DESPITE_MARKS`);
  }
});

Deno.test("every system file shows the mark of what it needs", async () => {
  const unmarked: string[] = [];
  for (const file of Object.keys(SYSTEM)) {
    if (await systemMark(file) === null) unmarked.push(file);
  }
  deepEqual(unmarked, [], `no longer need the engine? move to unit:\n${unmarked.join("\n")}`);
});

Deno.test("the unit layer ignores deno.json's exclusions and the system files; system names them", async () => {
  const excludes = await configExcludes();
  const unit = await layerArguments("unit");
  equal(unit.slice(0, 3).join(" "), "test --allow-all --doc");
  const ignore = unit.find((arg) => arg.startsWith("--ignore="))!.slice("--ignore=".length);
  deepEqual(ignore.split(","), [...excludes, ...Object.keys(SYSTEM)]);
  deepEqual((await layerArguments("system")).slice(3), Object.keys(SYSTEM));
  for (const lane of [...LANES, ALONE] as const) {
    deepEqual((await layerArguments("system", lane)).slice(3), laneFiles(lane));
  }
});

Deno.test("the unit lanes split the unit layer: lane 2 names its files, lane 1 ignores them too", async () => {
  const excludes = await configExcludes();
  const unit = (await testFiles()).filter((file) => layerOf(file) === "unit");
  const second = await unitLaneFiles();
  equal(second.length, unit.length - Math.ceil(unit.length / 3));
  for (const file of second) ok(unit.includes(file), file);
  deepEqual((await layerArguments("unit", 2)).slice(3), second);
  const first = await layerArguments("unit", 1);
  deepEqual(first.length, 4);
  deepEqual(
    first[3].slice("--ignore=".length).split(","),
    [...excludes, ...Object.keys(SYSTEM), ...second],
  );
});

Deno.test("the system lanes hold every system file once, and what shares the Slurm queue never runs at once", () => {
  const lanes = [...LANES, ALONE].map((lane) => laneFiles(lane));
  for (const files of lanes) ok(files.length > 0);
  deepEqual(lanes.flat().sort(), Object.keys(SYSTEM).sort());
  const slurm = Object.entries(SYSTEM).filter(([, file]) => /Slurm/.test(file.needs));
  ok(slurm.length >= 3, slurm.map(([path]) => path).join(", "));
  // Files alone run after both lanes; the others that use the queue share one lane.
  const beside = new Set(slurm.map(([, file]) => file.lane).filter((lane) => lane !== ALONE));
  deepEqual(beside.size, 1, "the Slurm files' lanes");
  equal(SYSTEM["tests/podman_engine_test.ts"].lane, ALONE);
});

Deno.test("excluded() and TEST_FILE follow deno's rules", () => {
  const excludes = ["tests/fixtures/", "suites/*.judge/", "out/"];
  ok(excluded("tests/fixtures/a/b_test.ts", excludes));
  ok(excluded("suites/x.judge/a_test.ts", excludes));
  ok(!excluded("suites/x.judged/a_test.ts", excludes));
  ok(!excluded("tests/fixtures_test.ts", excludes));
  ok(!excluded("bench/out/a_test.ts", excludes));
  for (const name of ["a_test.ts", "a.test.ts", "test.ts", "a_test.mjs"]) ok(TEST_FILE.test(name));
  for (const name of ["a_test.json", "atest.ts", "a_tests.ts", "_test_ca.ts"]) {
    ok(!TEST_FILE.test(name), name);
  }
});

Deno.test("a lane's last line says where its time went, from deno test's own lines", () => {
  // deno test's line as a file's tests start, with and without its colours (CI's log has them).
  const coloured = "\x1b[0m\x1b[38;5;245mrunning 2 tests from ./tests/suite_check_test.ts\x1b[0m";
  equal(fileStarting(coloured), "tests/suite_check_test.ts");
  equal(fileStarting("running 1 test from ./tools/test_layer_test.ts"), "tools/test_layer_test.ts");
  equal(fileStarting("a test ... ok (2s)"), null);
  // 65 s before the first file; a 200 s, b 5 s, c to the end 3,600 s.
  const starts = [["a", 65_000], ["b", 265_000], ["c", 270_000]] as const;
  equal(
    laneTimes(starts, 0, 3_870_000, 2),
    "in 64m30s; 1m05s before the first file; longest: c 60m00s, a 3m20s",
  );
  equal(laneTimes([], 0, 1_400), "in 1s; 1s before the first file");
});
