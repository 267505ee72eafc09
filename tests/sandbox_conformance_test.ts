/**
 * The session seam's conformance suite (`runner/sandbox/session_conformance.ts`)
 * against the engine: Docker here, and Podman when `tests/podman_engine_test.ts`
 * runs this file under `LEDGERBENCH_TEST_ENGINE=podman`. Every check a
 * backend's capabilities declare must pass; none is reported unsupported
 * for Docker or Podman.
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
