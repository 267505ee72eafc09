/**
 * Offline stand-ins for public base images and the build network (issue
 * 22), on the engine: `standInBase()` builds `ubuntu:24.04` from the
 * machine's Debian mirror with the test CA in place and apt working, and
 * reuses it (or a real image under the tag); `freeze --build-network`
 * builds a task whose Dockerfile runs `apt-get install python3` with a
 * network, and with `none` fails naming the task, the network and apt's
 * error.
 *
 * Which network reaches the mirror depends on the engine: with a default
 * bridge it is `default` (what `docker build` gives without `--network`);
 * the engine `.ci/install_docker.sh` starts has none (`dockerd
 * --bridge=none --iptables=false`: `default` gets only loopback, and a
 * user-defined bridge has no NAT), so there it is `host`.
 *
 * @module
 */
import { equal, match, notEqual, rejects } from "node:assert/strict";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { loadPlan } from "../inputs/plan.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { prepareTaskEnvironments, TaskEnvironmentError } from "../runner/task_environments.ts";
import type { Suite } from "../analysis/schema/suite_manifest.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli, freezeCli } from "./_cli_run.ts";
import { writeSuite } from "./_python_toolchain.ts";
import {
  requireStandInTools,
  STAND_IN_CA_LABEL,
  STAND_IN_CA_PATH,
  STAND_IN_LABEL,
  standInBase,
} from "./_stand_in_bases.ts";
import { testCa } from "./_test_ca.ts";

const ENGINE = await requireDockerEngine("tests/stand_in_base_test.ts");
const TOOLS = ENGINE.available && await requireStandInTools("tests/stand_in_base_test.ts");
const decoder = new TextDecoder();

/** Runs `docker args...` to its end. */
async function docker(...args: string[]) {
  const out = await new Deno.Command("docker", { args, stdout: "piped", stderr: "piped" }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** The image's labels (`{}` for none). */
async function labels(ref: string): Promise<Record<string, string>> {
  const out = await docker("image", "inspect", "--format", "{{json .Config.Labels}}", ref);
  equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout) ?? {};
}

/** The build network that reaches the mirror on this engine (see the module doc). */
async function engineBuildNetwork(): Promise<string> {
  return (await docker("network", "inspect", "bridge")).code === 0 ? "default" : "host";
}

Deno.test({
  name: "standInBase() is ubuntu:24.04 from the Debian mirror, trusting the test CA, reused",
  ignore: !TOOLS,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const started = performance.now();
    const id = await standInBase();
    console.error(`standInBase(): ${((performance.now() - started) / 1000).toFixed(1)} s`);
    match(id, /^sha256:[0-9a-f]{64}$/);
    const found = await labels("ubuntu:24.04");
    if (found[STAND_IN_LABEL] !== "1") {
      console.warn("ubuntu:24.04 is a real image here: it is used as it is, not checked");
      return;
    }
    const ca = await testCa();
    equal(found[STAND_IN_CA_LABEL], sha256Hex(ca.caCertPem));
    // The check, then the CA's bytes, and no ca-certificates (ubuntu:24.04 has none).
    const run = await docker(
      "run",
      "--rm",
      "--network",
      "none",
      "ubuntu:24.04",
      "bash",
      "-c",
      `test -f ${STAND_IN_CA_PATH} && apt-get --version`,
    );
    equal(run.code, 0, run.stderr);
    match(run.stdout, /^apt \d+\.\d+/);
    const cert = await docker(
      "run",
      "--rm",
      "--network",
      "none",
      "ubuntu:24.04",
      "cat",
      STAND_IN_CA_PATH,
    );
    equal(cert.stdout, ca.caCertPem);
    const bare = await docker(
      "run",
      "--rm",
      "--network",
      "none",
      "ubuntu:24.04",
      "bash",
      "-c",
      "! dpkg -s ca-certificates >/dev/null 2>&1 && test ! -e /etc/ssl/certs/ca-certificates.crt " +
        '&& test -z "$(ls /var/lib/apt/lists | grep -v -x -e lock -e partial)"',
    );
    equal(bare.code, 0, `ca-certificates or apt lists in the stand-in: ${bare.stderr}`);
    equal(await standInBase(), id, "the second call reuses the image");
  },
});

Deno.test({
  name: "standInBase() uses an image under the tag without the stand-in label as it is",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tag = `ledgerbench-test/not-a-stand-in:${crypto.randomUUID().slice(0, 8)}`;
    const empty = new Deno.Command("docker", {
      args: ["import", "--change", 'CMD ["/bin/sh"]', "-", tag],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // An empty tar archive: two 512-byte zero blocks.
    const writer = empty.stdin.getWriter();
    await writer.write(new Uint8Array(1024));
    await writer.close();
    const imported = await empty.output();
    equal(imported.code, 0, decoder.decode(imported.stderr));
    try {
      equal(await standInBase(tag), decoder.decode(imported.stdout).trim());
      equal((await labels(tag))[STAND_IN_LABEL], undefined);
    } finally {
      await docker("rmi", tag);
    }
  },
});

/** A one-task suite whose Dockerfile installs python3 from the mirror over `ubuntu:24.04`. */
const APT_SUITE = {
  "suite.json": JSON.stringify({
    suite_id: "apt-suite",
    tasks: [{ task_id: "apt-py", environment: { dockerfile: "environment/Dockerfile" } }],
  }),
  "tasks/apt-py/environment/Dockerfile": [
    "FROM ubuntu:24.04",
    "RUN apt-get update && apt-get install -y --no-install-recommends python3",
    "",
  ].join("\n"),
  "tasks/apt-py/workspace/TASK.md": "ledgerbench-task: apt-py\nNothing to do.\n",
  "tasks/apt-py/verifier/verify.sh":
    '#!/bin/sh\necho \'{"resolved": true, "checks": [{"name": "noop", "passed": true}]}\'\n',
};

Deno.test({
  name: "freeze --build-network: apt-get install works with the engine's network, not with none",
  ignore: !TOOLS,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await standInBase();
    await buildImages();
    const network = await engineBuildNetwork();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-build-network-" });
    const built: string[] = [];
    try {
      await writeSuite(`${dir}/suite`, APT_SUITE);
      const agents = { solver: "ledgerbench/agent-solver:latest" };
      const started = performance.now();
      const online = await freezeCli(
        `${dir}/suite`,
        `${dir}/online.json`,
        agents,
        "--build-network",
        network,
      );
      console.error(
        `freeze with --build-network ${network}: ${
          ((performance.now() - started) / 1000).toFixed(1)
        } s`,
      );
      equal(online.code, 0, online.stderr);
      match(online.stderr, new RegExp(`\\(build network "${network}"\\)\n`));
      const plan = (await loadPlan(`${dir}/online.json`, { frozen: true })).value;
      const image = plan.tasks[0].environment!.image;
      built.push(image);
      match(image, /^ledgerbench-env\/apt-py:[0-9a-f]{16}$/);
      const python = await docker(
        "run",
        "--rm",
        "--network",
        "none",
        image,
        "python3",
        "-c",
        "print(6 * 7)",
      );
      equal(python.stdout, "42\n", python.stderr);

      const offline = await freezeCli(
        `${dir}/suite`,
        `${dir}/offline.json`,
        agents,
        "--build-network",
        "none",
      );
      equal(offline.code, 2, offline.stderr);
      const lines = offline.stderr.trimEnd().split("\n");
      // The build's line names its own tag: the network is in the key, so nothing is reused.
      const tag = lines.find((line) => line.startsWith("building the environment"))
        ?.match(/ as (ledgerbench-env\/apt-py:[0-9a-f]{16}) \(build network "none"\)$/)?.[1];
      notEqual(tag, undefined, offline.stderr);
      built.push(tag!);
      notEqual(tag, image);
      match(
        lines.at(-1)!,
        /^error: Cannot freeze plan: task "apt-py": building \S+\/Dockerfile with build network "none" failed: .*E: Unable to locate package python3.*exit code: 100$/,
      );
      equal(await Deno.stat(`${dir}/offline.json`).then(() => true, () => false), false);
    } finally {
      for (const image of built) await docker("rmi", image);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("freeze --build-network with a value that is no network is a usage error naming it", async () => {
  const out = await cli(
    "freeze",
    "--without-agent-check",
    "the test freezes plans without an agent check",
    "--suite",
    "/nonexistent/suite",
    "--out",
    "/nonexistent/plan.json",
    "--agent",
    "a=img",
    "--build-network",
    "container:abc",
  );
  equal(out.code, 1);
  equal(
    out.stderr.split("\n")[0],
    'error: Option "--build-network" must be "default" (the engine\'s default network), "none", ' +
      '"host" or the name of a Docker network: "container:abc"',
  );
});

Deno.test("prepareTaskEnvironments() refuses a build network that is no network", async () => {
  const suite = { dir: "/nonexistent", manifest: { suite_id: "s", tasks: [] }, sha256: "" };
  await rejects(
    () =>
      prepareTaskEnvironments(suite as unknown as Suite, () => Promise.resolve(null), undefined, {
        buildNetwork: "bad network",
      }),
    (error) => error instanceof TaskEnvironmentError && /"bad network"$/.test(error.message),
  );
});
