import { deepEqual, match } from "node:assert/strict";
import { tempDir } from "../_temp_dir_for_test.ts";
import { storeArtifact } from "./artifact_store.ts";
import { digestTree } from "./digest_tree.ts";
import { createHostSandbox } from "./host_sandbox.ts";

const EPISODE = {
  run_id: "r",
  agent_id: "h",
  task_id: "t",
  lane: "A",
  position: 0,
  attempt: 1,
  episode_id: "r/h/t/1",
};

/** The sealed verifier's record (`sealedVerification(null)`): what every host verification keeps. */
const SEALED = {
  mode: "sealed",
  reward: null,
  reward_file: null,
  decided_by: null,
  hijacks: [],
  egress_allowed: 0,
  egress_denied: 0,
};

/** A stored answer, hidden files with `verify.sh` as given, and the request to verify them. */
async function hostJob(dir: string, verifyScript: string | null, setupScript?: string) {
  await Deno.mkdir(`${dir}/workspace`);
  await Deno.writeTextFile(`${dir}/workspace/answer.txt`, "42\n");
  await Deno.mkdir(`${dir}/verifier`);
  if (verifyScript !== null) await Deno.writeTextFile(`${dir}/verifier/verify.sh`, verifyScript);
  if (setupScript !== undefined) await Deno.writeTextFile(`${dir}/verifier/setup.sh`, setupScript);
  await Deno.writeTextFile(`${dir}/verifier/expected.txt`, "42\n");
  return {
    episode: EPISODE,
    artifact: await storeArtifact(`${dir}/workspace`, `${dir}/artifacts`),
    verifierDir: `${dir}/verifier`,
    expectedVerifierDigest: (await digestTree(`${dir}/verifier`)).digest,
    signal: new AbortController().signal,
  };
}

// The verdict is the last stdout line; the artifact's view and the hidden copy come by environment.
const ANSWER_CHECK = 'read a < "$LEDGERBENCH_ARTIFACT/answer.txt"\n' +
  'if [ "$a" = "$(cat "$LEDGERBENCH_HIDDEN/expected.txt")" ]; then r=true; else r=false; fi\n' +
  'echo "{\\"resolved\\": $r, \\"checks\\": [{\\"name\\": \\"answer\\", \\"passed\\": $r}]}"\n';

Deno.test("createHostSandbox() verifies against the digest frozen for the run, hidden files copied only now", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const request = await hostJob(dir, ANSWER_CHECK);
  const sandbox = createHostSandbox({ commands: {}, tempDir: dir });
  const verdict = '{"resolved": true, "checks": [{"name": "answer", "passed": true}]}\n';
  deepEqual(await sandbox.runVerifier(request), {
    kind: "verdict",
    resolved: true,
    failedChecks: [],
    verification: SEALED,
    output: { stdout_tail: verdict, stderr_tail: "" },
  });
  // Hidden files changed since the run froze them: a verifier fault, never a verdict.
  await Deno.writeTextFile(`${dir}/verifier/expected.txt`, "41\n");
  const changed = await sandbox.runVerifier(request);
  deepEqual(changed.kind === "fault" && changed.fault, "hidden_files_changed");
  match(changed.kind === "fault" ? changed.detail : "", /have digest "sha256:.*the plan froze/);
  // Each run's copies and scratch are gone.
  const left = (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name).sort();
  deepEqual(left, ["artifacts", "verifier", "workspace"]);
});

Deno.test("createHostSandbox() checks the artifact as the Docker sandbox does: stored, and during the run", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  // A verifier that writes to the artifact's view it was given.
  const request = await hostJob(
    dir,
    'chmod u+w "$LEDGERBENCH_ARTIFACT/answer.txt"\n' +
      'echo 41 > "$LEDGERBENCH_ARTIFACT/answer.txt"\n' +
      'echo \'{"resolved": true, "checks": []}\'\n',
  );
  const sandbox = createHostSandbox({ commands: {}, tempDir: dir });
  const during = await sandbox.runVerifier(request);
  deepEqual(during.kind === "fault" && during.fault, "artifact_changed");
  match(during.kind === "fault" ? during.detail : "", /^The artifact changed during the run: /);
  // The stored file altered after storing: the view no longer matches the artifact's manifest.
  const stored = request.artifact.dir;
  await Deno.chmod(stored, 0o755);
  await Deno.chmod(`${stored}/answer.txt`, 0o644);
  await Deno.writeTextFile(`${stored}/answer.txt`, "41\n");
  await Deno.chmod(`${stored}/answer.txt`, 0o444);
  await Deno.chmod(stored, 0o555);
  const altered = await sandbox.runVerifier(request);
  deepEqual(altered.kind === "fault" && altered.fault, "artifact_changed");
  match(
    altered.kind === "fault" ? altered.detail : "",
    /^The verifier's view of artifact "sha256:[0-9a-f]{64}" has digest "sha256:[0-9a-f]{64}", expected /,
  );
  deepEqual(altered.verification, SEALED);
});

Deno.test("createHostSandbox() faults a missing entry and a failing setup by the driver's stages", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const sandbox = createHostSandbox({ commands: {}, tempDir: dir });
  await Deno.mkdir(`${dir}/a`);
  const missing = await sandbox.runVerifier(await hostJob(`${dir}/a`, null));
  deepEqual(missing.kind === "fault" && [missing.fault, missing.detail], [
    "entry_missing",
    "The hidden verifier files hold no entry point: driver: the hidden files hold neither verify.sh nor verify.ts",
  ]);
  // Setup's stdout goes to stderr with its own, as driver.sh sends it; the detail is Docker's.
  await Deno.mkdir(`${dir}/b`);
  const setup = await sandbox.runVerifier(
    await hostJob(`${dir}/b`, ANSWER_CHECK, 'echo preparing\necho "cannot prepare" >&2\nexit 3\n'),
  );
  deepEqual(setup.kind === "fault" && [setup.fault, setup.detail], [
    "setup_failed",
    "The verifier's setup failed with exit code 3 before any check ran: preparing | cannot prepare",
  ]);
  deepEqual(setup.output, { stdout_tail: "", stderr_tail: "preparing\ncannot prepare\n" });
  // A setup that passes, and a verify.sh that exits non-zero: crashed.
  await Deno.mkdir(`${dir}/c`);
  const crashed = await sandbox.runVerifier(
    await hostJob(`${dir}/c`, 'echo "no luck" >&2\nexit 4\n', "true\n"),
  );
  deepEqual(crashed.kind === "fault" && [crashed.fault, crashed.detail], [
    "crashed",
    "The verifier exited with code 4 without a verdict: no luck",
  ]);
});

Deno.test("createHostSandbox() kills the verifier and what it started at the wall cap: timeout", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const sandbox = createHostSandbox({ commands: {}, tempDir: dir, verifierWallMs: 300 });
  const started = performance.now();
  const slow = await sandbox.runVerifier(await hostJob(dir, "sleep 30 &\nsleep 30\n"));
  deepEqual(slow.kind === "fault" && slow.fault, "timeout");
  // The background sleep held the pipes too: it was killed with its parent.
  deepEqual(performance.now() - started < 10_000, true);
});

Deno.test("createHostSandbox() stores a workspace by the Docker sandbox's rule: unstorable is the candidate's doing", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  await Deno.mkdir(`${dir}/workspace`);
  await Deno.writeTextFile(`${dir}/workspace/TASK.md`, "Do it.\n");
  // 70 nested directories: deeper than CANDIDATE_LIMITS.workspaceDepth (64).
  const deep = Array.from({ length: 70 }, () => "d").join("/");
  const sandbox = createHostSandbox({
    commands: { h: ["sh", "-c", `mkdir -p ${deep}`] },
    tempDir: dir,
  });
  let exited = 0;
  const run = await sandbox.startCandidate({
    episode: EPISODE,
    agent: { agent_id: "h", image: null, image_digest: null, model: null },
    model: "default",
    workspace: `${dir}/workspace`,
    artifactsRoot: `${dir}/artifacts`,
    relaySocket: `${dir}/relay.sock`,
    forbiddenValues: [],
    wallMs: 30_000,
    verifier: { dir: `${dir}/verifier`, expectedDigest: "" },
    signal: new AbortController().signal,
    onExited: () => {
      exited++;
      return Promise.resolve();
    },
  });
  deepEqual([run.stopReason, run.artifact, exited], ["completed", null, 1]);
  deepEqual(run.artifactError?.includes("deeper than 64"), true, run.artifactError ?? "");
});
