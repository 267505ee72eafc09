/**
 * A Terminal-Bench-2-style task naming a prebuilt `docker_image` (and
 * shipping the Dockerfile it was built from, as every TB2 task does) runs in
 * the prebuilt image, as Harbor runs it: `suite import harbor` takes the
 * image (`--force-build` the Dockerfile), `suite check` and `freeze` pull it
 * from a registry (Debian's docker-registry on loopback, standing in for the
 * public registry these machines cannot reach), the plan pins it by its
 * registry digest beside its image ID, and `run` refuses the task once the
 * image under the pinned digest is gone (the tag moved to other content).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { buildImages } from "../runner/docker/build_images.ts";
import { buildImage } from "../runner/docker/build_image.ts";
import { imageDigest } from "../runner/docker/image_digest.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli } from "./_cli_run.ts";
import { BASH_STAND_IN, importHarborSuite, writeSuite } from "./_python_toolchain.ts";
import { LOCAL_REGISTRY, requireLocalRegistry } from "./_local_registry.ts";

const ENGINE = await requireDockerEngine("tests/prebuilt_image_test.ts");
const REGISTRY = ENGINE.available && await requireLocalRegistry("tests/prebuilt_image_test.ts");

/** Runs the Docker CLI; returns its stdout, failing the test on a non-zero exit. */
async function docker(...args: string[]): Promise<string> {
  const out = await new Deno.Command("docker", { args, stdout: "piped", stderr: "piped" })
    .output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  equal(out.code, 0, `docker ${args.join(" ")}: ${text(out.stderr)}`);
  return text(out.stdout);
}

/** Builds an image whose `/marker` says `marker`, pushes it as `ref`; returns its registry digest. */
async function pushMarkerImage(ref: string, marker: string): Promise<string> {
  const context = await Deno.makeTempDir({ prefix: "ledgerbench-prebuilt-" });
  try {
    await Deno.writeTextFile(
      `${context}/Dockerfile`,
      `FROM ledgerbench/base:latest\n${BASH_STAND_IN}\nRUN echo ${marker} > /marker\nWORKDIR /app\n`,
    );
    const built = await buildImage({
      context,
      dockerfile: "Dockerfile",
      tag: ref,
      network: "none",
    });
    ok(built.ok, built.ok ? "" : built.failure);
  } finally {
    await removeTree(context);
  }
  const pushed = await docker("push", ref);
  return /digest: (sha256:[0-9a-f]{64})/.exec(pushed)![1];
}

Deno.test({
  name: "a task's prebuilt docker_image is pulled from the registry at check and freeze, pinned " +
    "by digest in the plan, and refused at run once the pinned image is gone",
  ignore: !REGISTRY,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const repository = `${LOCAL_REGISTRY}/ledgerbench-test/tb2-prebuilt-${
      crypto.randomUUID().slice(0, 8)
    }`;
    const ref = `${repository}:2.0`;
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-prebuilt-" });
    try {
      const digest = await pushMarkerImage(ref, "prebuilt");
      const prebuiltId = (await imageDigest(ref))!;
      await docker("rmi", ref);
      equal(await imageDigest(ref), null, "the engine no longer has the image");

      await writeSuite(`${dir}/harbor`, {
        "prebuilt/instruction.md": "Copy /marker to /app/out.txt.\n",
        "prebuilt/task.toml": [
          'version = "1.0"',
          "[verifier]",
          "timeout_sec = 60.0",
          "[agent]",
          "timeout_sec = 60.0",
          "[environment]",
          "allow_internet = false",
          `docker_image = "${ref}"`,
          "",
        ].join("\n"),
        // What the image was built from, as TB2 tasks ship it; the marker tells which ran.
        "prebuilt/environment/Dockerfile":
          `FROM ledgerbench/base:latest\n${BASH_STAND_IN}\nRUN echo built-here > /marker\n` +
          "WORKDIR /app\n",
        "prebuilt/solution/solve.sh": "#!/bin/sh\ncp /marker /app/out.txt\n",
        "prebuilt/tests/test.sh": "#!/bin/bash\n" +
          'if [ "$(cat /app/out.txt)" = prebuilt ]; then r=1; else r=0; fi\n' +
          "echo $r > /logs/verifier/reward.txt\n",
      });
      await importHarborSuite(dir);
      const manifest = JSON.parse(await Deno.readTextFile(`${dir}/suite/suite.json`));
      deepEqual(manifest.tasks[0].environment, { image: ref });
      await importHarborSuite(dir, { out: "forced", importArgs: ["--force-build"] });
      deepEqual(
        JSON.parse(await Deno.readTextFile(`${dir}/forced/suite.json`)).tasks[0].environment,
        { dockerfile: "environment/Dockerfile" },
      );

      // The oracle passes only in the prebuilt image (its /marker), pulled by the check.
      const check = await cli("suite", "check", `${dir}/suite`);
      equal(check.code, 0, check.stderr + check.stdout);
      match(check.stderr, new RegExp(`pulling the environment image "${ref}" of task "prebuilt"`));
      const checkDir = /written: (.+)\n/.exec(check.stdout)![1];
      const rows = (await loadLedger(`${checkDir}/tasks/prebuilt/ledger.jsonl`)).rows;
      deepEqual(
        rows.map((row) => [row.resolved, row.environment?.task_image_digest]),
        [[true, prebuiltId], [false, prebuiltId]],
      );

      const freeze = await cli(
        "freeze",
        "--without-agent-check",
        "the test freezes plans without an agent check",
        "--suite",
        `${dir}/suite`,
        "--out",
        `${dir}/plan.json`,
        "--agent",
        "solver=ledgerbench/agent-solver:latest",
      );
      equal(freeze.code, 0, freeze.stderr);
      const plan = (await loadPlan(`${dir}/plan.json`, { frozen: true })).value;
      deepEqual(plan.tasks[0].environment, {
        image: `${repository}@${digest}`,
        image_digest: prebuiltId,
      });

      // The tag moves to other content; the pinned image is gone from the engine.
      const movedDigest = await pushMarkerImage(ref, "moved");
      ok(movedDigest !== digest);
      await docker("rmi", "--force", prebuiltId);
      await Deno.writeTextFile(`${dir}/script.json`, JSON.stringify({ default: { content: "" } }));
      const run = await cli(
        "run",
        "--plan",
        `${dir}/plan.json`,
        "--suite",
        `${dir}/suite`,
        "--ledger",
        `${dir}/ledger.jsonl`,
        "--provider-script",
        `solver=${dir}/script.json`,
      );
      equal(run.code, 3, run.stderr);
      match(
        run.stderr,
        new RegExp(
          `task "prebuilt" environment "${repository}@${digest}" is not present ` +
            `\\(the plan froze "${prebuiltId}"\\)`,
        ),
      );
    } finally {
      await new Deno.Command("docker", { args: ["rmi", "--force", ref], stderr: "null" }).output();
      await removeTree(dir);
    }
  },
});
