import { deepEqual, equal, notEqual, ok, rejects } from "node:assert/strict";
import { generateSuite } from "./generate_suite.ts";
import { loadSuite } from "../inputs/suite.ts";
import { listFileDigests, suiteSha256 } from "../inputs/suite_sha256.ts";
import { checkSeed, createSeedFile, readSeedFile } from "./suite_seed.ts";
import { DEMO_SEED, DEMO_SUITE } from "../suites/demo_suite.ts";
import { tempDir } from "./_temp_dir_for_test.ts";

const OTHER_SEED = "0123456789abcdef".repeat(4);

/**
 * Pinned: the demo suite generated from the public DEMO_SEED (computed when
 * every generated task gained its oracle, `solution/solve.sh`, for `suite
 * check`, issue 12). Byte-identical generation on every machine keeps it;
 * editing a template changes it, on purpose.
 */
const DEMO_SUITE_SHA256 = "f4d42dc3c4e99097183e6a4849ded9595fcc9b9ecf83ca7cb03f1799b0565581";

Deno.test("generateSuite() is byte-identical for one seed (seed 000) and pinned for the demo seed", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const a = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/a`, publicSeed: true });
  const b = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/b`, publicSeed: true });
  equal(a.sha256, b.sha256);
  deepEqual(await listFileDigests(a.dir), await listFileDigests(b.dir));
  equal(a.sha256, DEMO_SUITE_SHA256);
  equal((await loadSuite(a.dir)).sha256, a.sha256);
});

Deno.test("generateSuite() changes every task's variant with another seed", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const a = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/a` });
  const b = await generateSuite(DEMO_SUITE, { seed: OTHER_SEED, dir: `${dir}/b` });
  for (const task of a.manifest.tasks) {
    const left = await suiteSha256(`${a.dir}/tasks/${task.task_id}/workspace`);
    const right = await suiteSha256(`${b.dir}/tasks/${task.task_id}/workspace`);
    notEqual(left, right, `task "${task.task_id}" has the same workspace under both seeds`);
    // The whole variant (workspace, hidden verifier, answers) differs too; a
    // hidden part alone may coincide (a2-callers' expected count is a small integer).
    notEqual(
      await suiteSha256(`${a.dir}/tasks/${task.task_id}`),
      await suiteSha256(`${b.dir}/tasks/${task.task_id}`),
    );
  }
});

Deno.test("generateSuite() writes weights, limits and owner-only files, and refuses a non-empty directory", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const suite = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/s` });
  // Seed 000's lane weights A 8, B 24, C 12 over 2, 3 and 2 tasks.
  deepEqual(
    suite.manifest.tasks.map((t) => [t.task_id, t.lane, t.weight]),
    [
      ["a1-locate", "A", 4],
      ["a2-callers", "A", 4],
      ["b1-range", "B", 8],
      ["b2-column", "B", 8],
      ["b3-report", "B", 8],
      ["c1-counts", "C", 6],
      ["c2-filter-sum", "C", 6],
    ],
  );
  equal(suite.manifest.public_seed, false);
  equal((await Deno.stat(`${suite.dir}/tasks/b3-report/verifier/verify.sh`)).mode! & 0o777, 0o600);
  equal((await Deno.stat(suite.dir)).mode! & 0o777, 0o700);
  ok(
    (await Deno.readTextFile(`${suite.dir}/tasks/b3-report/workspace/TASK.md`)).includes(
      "ledgerbench-task: b3-report\n",
    ),
  );
  await rejects(generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/s` }), /is not empty/);
  await rejects(
    generateSuite(DEMO_SUITE, { seed: "abc", dir: `${dir}/t` }),
    /must be 64 lower-case hex digits/,
  );
});

Deno.test("faultyVerifierSetup drops exactly seed 000's chmod line from b3-report's setup", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const fixed = await generateSuite(DEMO_SUITE, { seed: DEMO_SEED, dir: `${dir}/fixed` });
  const faulty = await generateSuite(DEMO_SUITE, {
    seed: DEMO_SEED,
    dir: `${dir}/faulty`,
    faultyVerifierSetup: true,
  });
  const read = (root: string) => Deno.readTextFile(`${root}/tasks/b3-report/verifier/setup.sh`);
  equal((await read(fixed.dir)).replace('chmod -R u+rwX "$work"\n', ""), await read(faulty.dir));
  notEqual(await read(fixed.dir), await read(faulty.dir));
  // Every other task is identical.
  for (const task of fixed.manifest.tasks.filter((t) => t.task_id !== "b3-report")) {
    equal(
      await suiteSha256(`${fixed.dir}/tasks/${task.task_id}`),
      await suiteSha256(`${faulty.dir}/tasks/${task.task_id}`),
    );
  }
});

Deno.test("Seed files hold 64 hex digits, are created 0600 and never overwritten", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const seed = await createSeedFile(`${dir}/seed`);
  equal(checkSeed(seed, "test"), seed);
  equal(await readSeedFile(`${dir}/seed`), seed);
  equal((await Deno.stat(`${dir}/seed`)).mode! & 0o777, 0o600);
  await rejects(createSeedFile(`${dir}/seed`), /the file exists/);
  await Deno.writeTextFile(`${dir}/bad`, "XYZ\n");
  await rejects(readSeedFile(`${dir}/bad`), /must be 64 lower-case hex digits/);
});
