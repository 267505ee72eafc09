import { deepEqual } from "node:assert/strict";
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

Deno.test("createHostSandbox() verifies against the digest frozen for the run, hidden files copied only now", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  await Deno.mkdir(`${dir}/workspace`);
  await Deno.writeTextFile(`${dir}/workspace/answer.txt`, "42\n");
  await Deno.mkdir(`${dir}/verifier`);
  // The verdict is the last stdout line; the artifact and the hidden copy come by environment.
  await Deno.writeTextFile(
    `${dir}/verifier/verify.sh`,
    'read a < "$LEDGERBENCH_ARTIFACT/answer.txt"\n' +
      'if [ "$a" = "$(cat "$LEDGERBENCH_HIDDEN/expected.txt")" ]; then r=true; else r=false; fi\n' +
      'echo "{\\"resolved\\": $r, \\"checks\\": [{\\"name\\": \\"answer\\", \\"passed\\": $r}]}"\n',
  );
  await Deno.writeTextFile(`${dir}/verifier/expected.txt`, "42\n");
  const artifact = await storeArtifact(`${dir}/workspace`, `${dir}/artifacts`);
  const frozen = (await digestTree(`${dir}/verifier`)).digest;
  const sandbox = createHostSandbox({ commands: {}, tempDir: dir });
  const request = {
    episode: EPISODE,
    artifact,
    verifierDir: `${dir}/verifier`,
    signal: new AbortController().signal,
  };
  deepEqual(await sandbox.runVerifier({ ...request, expectedVerifierDigest: frozen }), {
    kind: "verdict",
    resolved: true,
    failedChecks: [],
  });
  // Hidden files changed since the run froze them: a verifier fault, never a verdict.
  await Deno.writeTextFile(`${dir}/verifier/expected.txt`, "41\n");
  deepEqual(await sandbox.runVerifier({ ...request, expectedVerifierDigest: frozen }), {
    kind: "fault",
    fault: "hidden_files_changed",
    detail: "the copy of the hidden files differs",
  });
  // Each run's copy of the hidden files is gone.
  const left = (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name).sort();
  deepEqual(left, ["artifacts", "verifier", "workspace"]);
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
    signal: new AbortController().signal,
    onExited: () => {
      exited++;
      return Promise.resolve();
    },
  });
  deepEqual([run.stopReason, run.artifact, exited], ["completed", null, 1]);
  deepEqual(run.artifactError?.includes("deeper than 64"), true, run.artifactError ?? "");
});
