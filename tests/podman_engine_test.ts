/**
 * Podman as the engine (issue 24): rootful Podman's Docker-compatible
 * service, started by `.ci/install_podman.sh`, against the same sandbox
 * flags and the same hostile attacks as Docker.
 *
 * The attack suites, and the Slurm executor's suite (a node whose engine is
 * Podman), run here as sub-runs of `deno test` with
 * `LEDGERBENCH_TEST_ENGINE=podman` (tests/_docker_engine.ts), one step per
 * file, so the README's one test command runs them under both engines (the
 * outer run has run them under Docker). Left out, and why:
 * `engine_faults_test.ts` kills and restarts a second `dockerd` of its own
 * (a Docker daemon's failure modes, not the sandbox's); the harbor and task
 * environment tests (a task's own image built by `docker build` from stand-in
 * bases, minutes each) and the runner, resume and kill-resume tests (the
 * ledger's guarantees, which do not depend on the engine) stay Docker's, to
 * keep the added time under five minutes.
 *
 * @module
 */
import assert from "node:assert/strict";
import Docker from "dockerode";
import { dockerAvailable } from "../runner/docker/docker_available.ts";
import { buildImages, IMAGE_NAMES } from "../runner/docker/build_images.ts";
import { engineIdentity } from "../runner/docker/engine_identity.ts";
import { imageDigest } from "../runner/docker/image_digest.ts";
import { dockerClient } from "../runner/docker/docker_client.ts";
import { sandboxCreateOptions } from "../runner/sandbox/_run_container.ts";
import { sandboxFlagsProblem } from "../runner/sandbox/sandbox_flags_problem.ts";
import { engineCreateOptions } from "../runner/sandbox/engine_create_options.ts";
import { engineFlagsCheck } from "../runner/sandbox/engine_flags_check.ts";
import { GATE_BUSYBOX, gateBusybox } from "../runner/sandbox/_gate.ts";
import { startForwarder } from "../runner/relay/start_forwarder.ts";
import { forwardInNamespace } from "../runner/relay/forward_in_namespace.ts";
import { demuxLogs } from "../runner/docker/demux_logs.ts";
import { PODMAN_SOCKET, requireDockerEngine, TEST_ENGINE_VARIABLE } from "./_docker_engine.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";

/**
 * The suites run under Podman: the session seam's conformance suite, the
 * attacks, and the Slurm executor's (a cluster whose node runs Podman; the
 * array tasks inherit `DOCKER_HOST`).
 */
const PODMAN_FILES = [
  "tests/sandbox_conformance_test.ts",
  "tests/verifier_integrity_test.ts",
  "tests/relay_attacks_test.ts",
  "tests/budget_attacks_test.ts",
  "tests/sandbox_test.ts",
  "tests/slurm_executor_test.ts",
] as const;

const docker = await requireDockerEngine("tests/podman_engine_test.ts");
const podmanEngine = await dockerAvailable({ socketPath: PODMAN_SOCKET });
if (!podmanEngine.available && Deno.env.get("CI") === "true") {
  throw new Error(
    `tests/podman_engine_test.ts needs Podman's service: ${podmanEngine.reason} ` +
      "(run .ci/install_podman.sh)",
  );
}
if (!podmanEngine.available) {
  console.warn(`tests/podman_engine_test.ts skipped: no Podman service: ${podmanEngine.reason}`);
}
const options = {
  // A run whose engine is already Podman's has nothing to compare or to run again.
  ignore: !docker.available || !podmanEngine.available ||
    Deno.env.get(TEST_ENGINE_VARIABLE) === "podman",
  sanitizeResources: false,
  sanitizeOps: false,
};
const podman = new Docker({ socketPath: PODMAN_SOCKET });

Deno.test(
  { name: "engineIdentity() tells Podman's service from Docker's", ...options },
  async () => {
    const [ours, theirs] = [await engineIdentity(dockerClient()), await engineIdentity(podman)];
    assert.equal(ours.name, "docker");
    assert.equal(ours.reportsOomKills, true);
    assert.equal(theirs.name, "podman");
    assert.match(theirs.label, /^Podman \d+\.\d+\.\d+/);
    // Debian 12's podman 4.3.1 serves Docker's API 1.41 and never reports OOM kills.
    assert.equal(theirs.apiVersion, "1.41");
    assert.equal(theirs.reportsOomKills, Number(theirs.version.split(".")[0]) >= 5);
  },
);

Deno.test({
  name: "the images copied into Podman (docker save | podman load) keep Docker's image IDs",
  ...options,
}, async () => {
  const built = await buildImages();
  for (const name of IMAGE_NAMES) {
    assert.equal(await imageDigest(`${name}:latest`, { docker: podman }), built[name], name);
  }
});

Deno.test({
  name: "Podman leaves /run and /var/tmp writable on a read-only root: named, then closed",
  ...options,
}, async () => {
  const built = await buildImages();
  const create = sandboxCreateOptions({
    image: built["ledgerbench/base"],
    command: [GATE_BUSYBOX, "sleep", "30"],
    env: {},
    user: "65534:65534",
    workingDir: "/tmp",
    labels: { "ledgerbench.role": "test" },
    pidsLimit: 64,
    memoryBytes: 64 * 1024 ** 2,
    tmpfsBytes: 1024 ** 2,
    binds: [`${gateBusybox()}:${GATE_BUSYBOX}:ro`],
  });
  const started = async (request: Docker.ContainerCreateOptions) => {
    const container = await podman.createContainer(request);
    try {
      await container.start();
      return { container, pid: (await container.inspect()).State.Pid };
    } catch (error) {
      await container.remove({ force: true });
      throw error;
    }
  };
  // The request as sent to Docker: Podman's compatible service adds its writable tmpfs.
  const raw = await started(create);
  try {
    assert.equal(
      sandboxFlagsProblem(create, raw.pid),
      '--read-only: mount "/run" (tmpfs) is writable; ' +
        '--read-only: mount "/var/tmp" (tmpfs) is writable',
    );
  } finally {
    await raw.container.remove({ force: true });
  }
  // With the runner's change for Podman, every flag of the request holds.
  const fixed = await started(engineCreateOptions(create, await engineIdentity(podman)));
  try {
    assert.equal(sandboxFlagsProblem(create, fixed.pid), null);
  } finally {
    await fixed.container.remove({ force: true });
  }
});

Deno.test({
  name: "engineFlagsCheck() finds every sandbox flag honoured by Docker and by Podman",
  ...options,
}, async () => {
  const built = await buildImages();
  assert.deepEqual(await engineFlagsCheck(built["ledgerbench/verifier"]), []);
  assert.deepEqual(await engineFlagsCheck(built["ledgerbench/verifier"], { docker: podman }), []);
});

Deno.test({
  name: "the relay forwarder enters a Podman container's network namespace by its pid",
  ...options,
}, async () => {
  const built = await buildImages();
  await using temp = await tempDir();
  const socketPath = `${temp.path}/relay.sock`;
  // The host side: a unix socket that answers one line per connection.
  const listener = Deno.listen({ transport: "unix", path: socketPath });
  const serving = (async () => {
    for await (const connection of listener) {
      await connection.write(new TextEncoder().encode("pong from the host\n"));
      connection.close();
    }
  })().catch(() => {});
  // Inside: busybox nc to 127.0.0.1, retried until a forwarder listens there.
  const dial = (port: number) =>
    `for i in $(seq 100); do out=$(${GATE_BUSYBOX} nc 127.0.0.1 ${port} </dev/null) && ` +
    `[ -n "$out" ] && { echo "$out"; exit 0; }; ${GATE_BUSYBOX} sleep 0.1; done; exit 1`;
  const run = async (
    port: number,
    forward: (pid: number) => Promise<{ close(): Promise<void> }>,
  ) => {
    const create = engineCreateOptions(
      sandboxCreateOptions({
        image: built["ledgerbench/base"],
        command: [GATE_BUSYBOX, "sh", "-c", dial(port)],
        env: {},
        user: "65534:65534",
        workingDir: "/tmp",
        labels: { "ledgerbench.role": "test" },
        pidsLimit: 64,
        memoryBytes: 64 * 1024 ** 2,
        tmpfsBytes: 1024 ** 2,
        binds: [`${gateBusybox()}:${GATE_BUSYBOX}:ro`],
      }),
      await engineIdentity(podman),
    );
    const container = await podman.createContainer(create);
    try {
      await container.start();
      const forwarder = await forward((await container.inspect()).State.Pid);
      try {
        assert.equal((await container.wait()).StatusCode, 0);
      } finally {
        await forwarder.close();
      }
      const { stdout } = demuxLogs(new Uint8Array(await container.logs({ stdout: true })));
      return new TextDecoder().decode(stdout).trim();
    } finally {
      await container.remove({ force: true });
    }
  };
  try {
    // The nsenter process (without FFI) and the in-process setns listener.
    assert.equal(
      await run(18080, (pid) => startForwarder({ pid, socketPath, port: 18080 })),
      "pong from the host",
    );
    assert.equal(
      await run(
        18081,
        (pid) => Promise.resolve(forwardInNamespace({ pid, socketPath, port: 18081 })),
      ),
      "pong from the host",
    );
  } finally {
    listener.close();
    await serving;
  }
});

/** One test's outcome in a sub-run's report. */
interface Outcome {
  name: string;
  outcome: "ok" | "FAILED" | "ignored";
}

/** The top-level tests of a `deno test` report (`<name> ... ok (12ms)`, steps indented). */
function outcomes(report: string): Outcome[] {
  const found: Outcome[] = [];
  for (const line of report.split("\n")) {
    const match = /^(\S.*) \.\.\. (ok|FAILED|ignored)\b/.exec(line);
    if (match) found.push({ name: match[1], outcome: match[2] as Outcome["outcome"] });
  }
  return found;
}

Deno.test({
  name: "the attack suites and the Slurm executor's pass under Podman",
  ...options,
}, async (t) => {
  for (const file of PODMAN_FILES) {
    await t.step(file, async () => {
      const run = await new Deno.Command(Deno.execPath(), {
        // Type-checked by the outer run, which holds every test file.
        args: ["test", "--allow-all", "--no-check", file],
        env: {
          [TEST_ENGINE_VARIABLE]: "podman",
          DOCKER_HOST: `unix://${PODMAN_SOCKET}`,
          CI: "true",
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const report = new TextDecoder().decode(run.stdout);
      const tests = outcomes(report);
      for (const test of tests) console.log(`podman: ${file}: ${test.name}: ${test.outcome}`);
      const failed = tests.filter((test) => test.outcome === "FAILED").map((test) => test.name);
      assert.deepEqual(failed, [], `${file} under Podman:\n${report.slice(-6000)}`);
      assert.ok(
        run.success,
        `${file} under Podman: exit code ${run.code}, signal ${run.signal}:\n` +
          `${new TextDecoder().decode(run.stderr)}\n${report.slice(-3000)}`,
      );
      assert.ok(tests.some((test) => test.outcome === "ok"), `${file}: no test ran:\n${report}`);
    });
  }
});
