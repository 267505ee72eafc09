/**
 * The session seam's conformance suite (`runner/sandbox/session_conformance.ts`)
 * against the engine: Docker here, and Podman when `tests/podman_engine_test.ts`
 * runs this file under `LEDGERBENCH_TEST_ENGINE=podman`. Every check a
 * backend's capabilities declare must pass; none is reported unsupported
 * for Docker or Podman. A task's pod (`task_pod.ts`: sidecars in one
 * loopback-only network namespace) works on both engines too.
 *
 * @module
 */
import { deepEqual } from "node:assert/strict";
import { buildImages } from "../runner/docker/build_images.ts";
import { dockerClient } from "../runner/docker/docker_client.ts";
import {
  inspectEnvironmentImage,
  openEnvironmentSession,
} from "../runner/sandbox/environment_session.ts";
import { containerSessionBackend } from "../runner/sandbox/docker_session.ts";
import { sessionConformance } from "../runner/sandbox/session_conformance.ts";
import { openTaskPod } from "../runner/sandbox/task_pod.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { requireDockerEngine } from "./_docker_engine.ts";

const ENGINE = await requireDockerEngine("tests/sandbox_conformance_test.ts");

Deno.test({
  name: "a task environment's session passes the session seam's conformance suite",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const built = await buildImages();
    const docker = dockerClient();
    await using temp = await tempDir();
    const backend = containerSessionBackend(docker, temp.path);
    const image = await inspectEnvironmentImage(backend, built["ledgerbench/base"], "/srv");
    const session = await openEnvironmentSession(
      backend,
      image,
      { role: "candidate", cwd: "/", mounts: [], labels: { "ledgerbench.test": "conformance" } },
    );
    try {
      const results = await sessionConformance({ session, tempDir: temp.path });
      deepEqual(
        results.filter((r) => r.status !== "passed"),
        [],
        results.map((r) => `${r.status}: ${r.check} ${r.detail}`).join("\n"),
      );
      deepEqual(session.capabilities, {
        ownFilesystem: true,
        users: true,
        changes: true,
        processControl: true,
      });
    } finally {
      await session.end();
    }
  },
});

Deno.test({
  name: "a task pod: a service reached by its name on the loopback its joiner shares, which " +
    "holds nothing else; its volume shared; all of it gone at its end",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const built = await buildImages();
    const docker = dockerClient();
    await using temp = await tempDir();
    const backend = containerSessionBackend(docker, temp.path);
    const base = built["ledgerbench/base"];
    const labels = { "ledgerbench.test": "pod" };
    const pod = await openTaskPod(backend, {
      services: [{
        name: "echo",
        environment: { image: "ledgerbench/base" },
        imageId: base,
        // A server answering "pong" on port 7000; it leaves its mark in the shared volume.
        entrypoint: [],
        command: [
          "/bin/sh",
          "-c",
          "echo up > /shared/mark; while :; do echo pong | nc -l -p 7000; done",
        ],
        healthcheck: {
          command: "nc 127.0.0.1 7000 </dev/null | grep -q pong",
          interval_ms: 200,
          timeout_ms: 2000,
          start_period_ms: 0,
          start_interval_ms: 200,
          retries: 25,
        },
        volumes: [{ volume: "shared", path: "/shared" }],
      }],
      dependsOn: { echo: "healthy" },
      volumes: [{ volume: "shared", path: "/shared" }],
      holderImage: base,
      labels,
      tempDir: temp.path,
    });
    try {
      const image = await inspectEnvironmentImage(backend, base, "/srv");
      const session = await openEnvironmentSession(backend, image, {
        role: "candidate",
        cwd: "/",
        mounts: pod.mounts,
        network: { join: pod.network },
        labels,
      });
      try {
        const run = await session.exec({
          argv: [
            "/bin/sh",
            "-c",
            "nc echo 7000 </dev/null; cat /shared/mark; " +
            "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '",
          ],
          wallMs: 30_000,
        });
        deepEqual(run.stdoutTail.trim().split("\n"), ["pong", "up", "lo"], run.stderrTail);
      } finally {
        await session.end();
      }
    } finally {
      await pod.end();
    }
    const left = await docker.listContainers({
      all: true,
      filters: { label: ["ledgerbench.test=pod"] },
    });
    deepEqual(left.map((c) => c.Id), []);
  },
});
