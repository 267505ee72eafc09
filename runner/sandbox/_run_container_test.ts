import { deepEqual, equal } from "node:assert/strict";
import { sandboxCreateOptions } from "./_run_container.ts";
import { networkIsolationCheckable } from "./network_isolation_problem.ts";

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
