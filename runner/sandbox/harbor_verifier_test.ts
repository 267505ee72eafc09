import { rejects } from "node:assert/strict";
import { runSharedVerifier } from "./harbor_verifier.ts";
import { SandboxError } from "./sandbox_error.ts";
import type { SandboxSession } from "./sandbox_session.ts";

/** A session that has the primitives every session has, and none of the capabilities. */
function bareSession(): SandboxSession {
  const unused = () => Promise.reject(new Error("not reached"));
  return {
    capabilities: { changes: false, processControl: false },
    exec: unused,
    copyIn: unused,
    archiveOut: unused,
    archiveIn: unused,
    readFile: unused,
    changes: unused,
    processes: unused,
    listeners: unused,
    stopAllBut: unused,
    resume: unused,
    forwardPort: unused,
    oomKilled: unused,
  };
}

Deno.test("runSharedVerifier() refuses a backend that cannot stop the candidate's processes or read its diff, before anything runs", async () => {
  await rejects(
    runSharedVerifier(
      {
        session: bareSession(),
        workdir: "/app",
        path: "/usr/bin:/bin",
        processesBefore: [],
        changesAfterAgent: [],
        workspaceBefore: new Set(),
        workspaceAfter: new Set(),
      },
      {
        verifierDir: "/nonexistent",
        expectedVerifierDigest: "sha256:0",
        reward: { passThreshold: 1, rewardKey: "reward", rule: "key" },
        wallMs: 1000,
      },
    ),
    (error: unknown) =>
      error instanceof SandboxError && error.code === "engine_error" &&
      /this backend cannot read the container's diff or stop the candidate's processes/.test(
        error.message,
      ),
  );
});
