import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import Docker from "dockerode";
import { runContainer, sandboxCreateOptions } from "./_run_container.ts";
import { networkIsolationCheckable } from "./network_isolation_problem.ts";
import { SandboxError } from "./sandbox_error.ts";
import { tempDir } from "../_temp_dir_for_test.ts";

Deno.test("sandboxCreateOptions() carries seed 000's isolation flags and the spec's limits", () => {
  const request = sandboxCreateOptions({
    image: "sha256:abc",
    env: { A: "1", B: "x=y" },
    user: "1000:1000",
    workingDir: "/tmp",
    labels: { "ledgerbench.role": "verifier" },
    pidsLimit: 64,
    memoryBytes: 256 * 1024 ** 2,
    nanoCpus: 500_000_000,
    tmpfsBytes: 64 * 1024 ** 2,
    binds: ["/h/v:/verifier:ro"],
  });
  // Seed 000: --network none --read-only --cap-drop ALL --security-opt no-new-privileges:true,
  // the verifier's 256 MB (268435456 bytes, no swap) and half a CPU; 64 MiB tmpfs = 67108864.
  deepEqual(request.HostConfig, {
    NetworkMode: "none",
    ReadonlyRootfs: true,
    CapDrop: ["ALL"],
    SecurityOpt: ["no-new-privileges:true"],
    PidsLimit: 64,
    Memory: 268435456,
    MemorySwap: 268435456,
    NanoCpus: 500_000_000,
    Tmpfs: { "/tmp": "rw,nosuid,nodev,noexec,size=67108864" },
    Binds: ["/h/v:/verifier:ro"],
    LogConfig: { Type: "json-file", Config: { "max-size": "1m", "max-file": "2" } },
    AutoRemove: false,
    Privileged: false,
  });
  deepEqual(request.Env, ["A=1", "B=x=y"]);
  equal(request.Image, "sha256:abc");
  equal("Cmd" in request, false); // the image's CMD is kept
  equal(request.OpenStdin, false);
  equal(request.Tty, false);
  equal(request.NetworkDisabled, networkIsolationCheckable());
});

Deno.test("sandboxCreateOptions() sets no CPU limit without nanoCpus and replaces CMD when given", () => {
  const request = sandboxCreateOptions({
    image: "sha256:abc",
    command: ["sh", "-c", "true"],
    env: {},
    user: "0",
    workingDir: "/workspace",
    labels: {},
    pidsLimit: 128,
    memoryBytes: 1024 ** 3,
    tmpfsBytes: 1,
    binds: [],
  });
  equal("NanoCpus" in request.HostConfig!, false);
  deepEqual(request.Cmd, ["sh", "-c", "true"]);
  // Seed 000's --memory 1g = 1073741824 bytes, swap equal.
  equal(request.HostConfig!.MemorySwap, 1073741824);
});

Deno.test("runContainer() ends with engine_error when the engine never reports the exit after the wall-cap kill, and still removes the container", async () => {
  await using temp = await tempDir();
  const socketPath = `${temp.path}/docker.sock`;
  // A fake engine: version, create, start, inspect, kill and remove answer; the wait never does.
  const calls: string[] = [];
  const waits: ((response: Response) => void)[] = [];
  const server = Deno.serve({ path: socketPath, onListen() {} }, (request) => {
    const { pathname } = new URL(request.url);
    calls.push(`${request.method} ${pathname}`);
    if (pathname === "/containers/create") {
      return Response.json({ Id: "c0ffee".repeat(10) }, { status: 201 });
    }
    if (pathname === "/version") return Response.json({ Version: "20.10.24", ApiVersion: "1.41" });
    if (pathname.endsWith("/wait")) return new Promise<Response>((resolve) => waits.push(resolve));
    if (pathname.endsWith("/json")) return Response.json({ State: { Pid: 0, OOMKilled: false } });
    return new Response(null, { status: 204 });
  });
  try {
    const run = runContainer({ Image: "sha256:abc" }, {
      docker: new Docker({ socketPath }),
      wallMs: 50,
      engineDeadlineMs: 200,
    });
    await rejects(run, (error: unknown) => {
      ok(error instanceof SandboxError);
      equal(error.code, "engine_error");
      equal(
        error.message,
        'Cannot wait for container "c0ffeec0ffee": The Docker engine did not answer ' +
          '"wait for container c0ffeec0ffee after its kill" within 200 ms: the engine is lost or stalled',
      );
      return true;
    });
    const id = "c0ffee".repeat(10);
    // Identified, created, started, killed at the wall cap, then removed (the HTTP client may
    // resend the wait).
    deepEqual(calls.slice(0, 3), [
      "GET /version",
      "POST /containers/create",
      `POST /containers/${id}/start`,
    ]);
    ok(calls.includes(`POST /containers/${id}/kill`), calls.join(", "));
    equal(calls.at(-1), `DELETE /containers/${id}`);
  } finally {
    for (const resolve of waits) resolve(new Response(null, { status: 500 }));
    await server.shutdown();
  }
});
