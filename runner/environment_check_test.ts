import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { DEMO_SEED, MINI_SUITE } from "../suites/demo_suite.ts";
import {
  checkEnvironment,
  EnvironmentMismatchError,
  imageDriftCheck,
} from "./environment_check.ts";
import { freezePlan } from "./freeze_plan.ts";
import { generateSuite } from "./generate_suite.ts";
import { tempDir } from "./_temp_dir_for_test.ts";
import { loadSuite } from "../inputs/suite.ts";

const A = `sha256:${"a".repeat(64)}`;
const B = `sha256:${"b".repeat(64)}`;
const V = `sha256:${"c".repeat(64)}`;

async function setup() {
  const temp = await tempDir();
  const dir = temp.path;
  const suite = await generateSuite(MINI_SUITE, { seed: DEMO_SEED, dir: `${dir}/suite` });
  const plan = freezePlan(suite, {
    plan_id: "p",
    created_at: "2026-11-30T00:00:00.000Z",
    agents: [{ agent_id: "solver", image: "img/solver:1", image_digest: A }],
    order_seed: 1,
    price_table_id: "x",
    runner_version: "0.1.0+src.frozen",
    verifier_image: "img/verifier:1",
    verifier_image_digest: V,
  });
  return { dir, suite, plan, [Symbol.asyncDispose]: () => temp[Symbol.asyncDispose]() };
}

Deno.test("checkEnvironment() lists every mismatch with the frozen plan before refusing", async () => {
  await using fixture = await setup();
  const { dir, suite, plan } = fixture;
  const images: Record<string, string | null> = { "img/solver:1": B, "img/verifier:1": null };
  await Deno.writeTextFile(`${suite.dir}/tasks/a1-locate/verifier/expected.txt`, "changed\n");
  await rejects(
    checkEnvironment(plan, {
      suiteDir: `${dir}/suite`,
      runnerVersion: "0.1.0+src.other",
      resolveImage: (ref) => Promise.resolve(images[ref] ?? null),
    }),
    (error: unknown) => {
      if (!(error instanceof EnvironmentMismatchError)) return false;
      equal(error.mismatches.length, 4);
      deepEqual(
        error.mismatches[0],
        'runner version is "0.1.0+src.other", the plan froze "0.1.0+src.frozen"',
      );
      equal(error.mismatches[1].startsWith(`suite "${suite.dir}" hashes to "`), true);
      equal(
        error.mismatches[2],
        `agent "solver" image "img/solver:1" resolves to "${B}", the plan froze "${A}"`,
      );
      equal(
        error.mismatches[3],
        `verifier image "img/verifier:1" is not present (the plan froze "${V}")`,
      );
      return true;
    },
  );
});

Deno.test("checkEnvironment() resolves a matching environment; imageDriftCheck() catches a later re-tag", async () => {
  await using fixture = await setup();
  const { dir, plan } = fixture;
  const images: Record<string, string> = { "img/solver:1": A, "img/verifier:1": V };
  const resolveImage = (ref: string) => Promise.resolve(images[ref] ?? null);
  const resolved = await checkEnvironment(plan, {
    suiteDir: `${dir}/suite`,
    runnerVersion: "0.1.0+src.frozen",
    resolveImage,
  });
  deepEqual(resolved.agentImages, { solver: A });
  equal(resolved.verifierImage, V);
  deepEqual(Object.keys(resolved.verifierDigests).sort(), [
    "a1-locate",
    "b2-column",
    "c2-filter-sum",
  ]);
  const check = imageDriftCheck(plan, { resolveImage });
  const episode = {
    run_id: "p",
    agent_id: "solver",
    task_id: "a1-locate",
    lane: "A",
    position: 0,
    attempt: 1,
    episode_id: "p/solver/a1-locate/1",
  };
  equal(await check(episode), null);
  images["img/verifier:1"] = B;
  equal(
    await check(episode),
    `verifier image "img/verifier:1" resolves to "${B}", the plan froze "${V}"`,
  );
});

Deno.test("checkEnvironment() refuses an engine that does not honour a sandbox flag, before the batch", async () => {
  await using fixture = await setup();
  const { dir, plan } = fixture;
  const images: Record<string, string> = { "img/solver:1": A, "img/verifier:1": V };
  const probed: string[] = [];
  const refusal =
    'the Podman 4.3.1 engine does not give the sandbox its flags: --read-only: mount "/run" ' +
    "(tmpfs) is writable";
  await rejects(
    checkEnvironment(plan, {
      suiteDir: `${dir}/suite`,
      runnerVersion: "0.1.0+src.frozen",
      resolveImage: (ref) => Promise.resolve(images[ref] ?? null),
      engineFlags: (image) => {
        probed.push(image);
        return Promise.resolve([refusal]);
      },
    }),
    (error: unknown) => {
      if (!(error instanceof EnvironmentMismatchError)) return false;
      deepEqual(error.mismatches, [refusal]);
      return true;
    },
  );
  // The probe runs the verifier image, resolved to its frozen ID.
  deepEqual(probed, [V]);
});

Deno.test("checkEnvironment() with host commands resolves no image and needs a command per agent", async () => {
  await using fixture = await setup();
  const { dir, plan } = fixture;
  const resolveImage = (ref: string) => Promise.reject(new Error(`resolved "${ref}"`));
  await rejects(
    checkEnvironment(plan, {
      suiteDir: `${dir}/suite`,
      runnerVersion: "0.1.0+src.other",
      resolveImage,
      hostCommands: {},
    }),
    (error: unknown) => {
      if (!(error instanceof EnvironmentMismatchError)) return false;
      deepEqual(error.mismatches, [
        'runner version is "0.1.0+src.other", the plan froze "0.1.0+src.frozen"',
        'no host command for agent "solver"',
      ]);
      return true;
    },
  );
  const resolved = await checkEnvironment(plan, {
    suiteDir: `${dir}/suite`,
    runnerVersion: "0.1.0+src.frozen",
    resolveImage,
    hostCommands: { solver: ["true"] },
  });
  deepEqual([resolved.agentImages, resolved.verifierImage], [{}, null]);
  deepEqual(Object.keys(resolved.verifierDigests).sort(), [
    "a1-locate",
    "b2-column",
    "c2-filter-sum",
  ]);
});

Deno.test("checkEnvironment() checks a task's own environment; --unsandboxed cannot give it", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const files: Record<string, string> = {
    "suite.json": JSON.stringify({
      suite_id: "env",
      tasks: [{ task_id: "py", environment: { image: "img/python:1" }, workdir: "/app" }],
    }),
    "tasks/py/workspace/TASK.md": "Do it.\n",
    "tasks/py/verifier/verify.sh": "echo\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/suite/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/suite/${path}`, text);
  }
  const E = `sha256:${"e".repeat(64)}`;
  const suite = await loadSuite(`${dir}/suite`);
  const frozenWith = {
    plan_id: "p",
    created_at: "2026-11-30T00:00:00.000Z",
    agents: [{ agent_id: "solver", image: "img/solver:1", image_digest: A, bundle_digest: B }],
    order_seed: 1,
    price_table_id: "x",
    task_environments: { py: { image: "img/python:1", image_digest: E } },
    runner_version: "0.1.0+src.frozen",
    verifier_image: "img/verifier:1",
    verifier_image_digest: V,
  };
  const plan = freezePlan(suite, frozenWith);
  deepEqual(plan.tasks[0].environment, { image: "img/python:1", image_digest: E });
  throws(
    () => freezePlan(suite, { ...frozenWith, task_environments: {} }),
    new Error('Cannot freeze plan: task "py" names an environment that was not prepared'),
  );
  const images: Record<string, string> = {
    "img/solver:1": A,
    "img/verifier:1": V,
    "img/python:1": B,
  };
  const resolveImage = (ref: string) => Promise.resolve(images[ref] ?? null);
  const options = { suiteDir: `${dir}/suite`, runnerVersion: "0.1.0+src.frozen", resolveImage };
  await rejects(checkEnvironment(plan, options), (error: unknown) => {
    deepEqual((error as EnvironmentMismatchError).mismatches, [
      `task "py" environment "img/python:1" resolves to "${B}", the plan froze "${E}"`,
    ]);
    return true;
  });
  await rejects(
    checkEnvironment(plan, { ...options, hostCommands: { solver: ["true"] } }),
    (error: unknown) => {
      deepEqual((error as EnvironmentMismatchError).mismatches, [
        'task "py" asks for its own environment, workdir, verifier or resources, which only the ' +
        "Docker sandbox gives (--unsandboxed runs verify.sh on the host)",
      ]);
      return true;
    },
  );
  const drift = imageDriftCheck(plan, { resolveImage });
  equal(
    await drift({
      run_id: "p",
      agent_id: "solver",
      task_id: "py",
      lane: "default",
      position: 0,
      attempt: 1,
      episode_id: "p/solver/py/1",
    }),
    `task "py" environment "img/python:1" resolves to "${B}", the plan froze "${E}"`,
  );
});
