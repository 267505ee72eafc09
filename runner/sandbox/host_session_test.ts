import { deepEqual, rejects } from "node:assert/strict";
import { startHostSession } from "./host_session.ts";
import { sessionConformance } from "./session_conformance.ts";
import { runSharedVerifier } from "./harbor_verifier.ts";
import { SandboxError } from "./sandbox_error.ts";
import { tempDir } from "../_temp_dir_for_test.ts";

Deno.test({
  name:
    "the host's session passes the session seam's conformance suite where it can, and says which checks it cannot run",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using temp = await tempDir();
    const session = await startHostSession({ cwd: temp.path });
    const results = await sessionConformance({ session, tempDir: temp.path });
    deepEqual(
      results.filter((r) => r.status === "failed"),
      [],
      results.map((r) => `${r.status}: ${r.check} ${r.detail}`).join("\n"),
    );
    deepEqual(
      results.filter((r) => r.status === "unsupported").map((r) => r.detail),
      [
        'needs the capability "users"',
        'needs the capability "changes"',
        'needs the capability "changes"',
        'needs the capability "processControl"',
        'needs the capability "processControl"',
        'needs the capability "processControl"',
      ],
    );
    deepEqual(results.filter((r) => r.status === "passed").length, 8);
  },
});

Deno.test("the host's session refuses another user, and the primitives it has not, as unsupported", async () => {
  await using temp = await tempDir();
  const session = await startHostSession({ cwd: temp.path });
  const unsupported = (error: unknown) =>
    error instanceof SandboxError && error.code === "unsupported";
  await rejects(session.exec({ argv: ["true"], user: "65534", wallMs: 1000 }), unsupported);
  await rejects(session.changes(), unsupported);
  await rejects(session.stopAllBut(new Set()), unsupported);
});

Deno.test("Harbor's shared mode refuses the host's session before anything runs", async () => {
  await using temp = await tempDir();
  await rejects(
    runSharedVerifier(
      {
        session: await startHostSession({ cwd: temp.path }),
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
      error instanceof SandboxError && error.code === "unsupported" &&
      error.message ===
        `Cannot run Harbor's shared mode on this backend: its sessions lack "ownFilesystem", ` +
          `"changes", "processControl"`,
  );
});
