import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { tempDir } from "../_temp_dir_for_test.ts";
import { storeArtifact } from "./artifact_store.ts";
import { OUTSIDE_LINK_TARGET } from "./confine_links.ts";
import { digestTree } from "./digest_tree.ts";
import { SandboxError } from "./sandbox_error.ts";
import {
  runSealedVerifier,
  type SealedTarget,
  type VerifierOutcome,
  verifierResult,
} from "./sealed_verifier.ts";
import type { OpenSession, SessionExec, SessionSpec } from "./sandbox_session.ts";

/** A verdict line whose one check passed. */
const VERDICT = '{"resolved": true, "checks": [{"name": "answer", "passed": true}]}';

/** The host directories the protocol mounted, found by where they appear. */
interface Mounted {
  hidden: string;
  workspace: string;
  channel: string;
}

/** How the driver's process ends (a clean exit 0 unless told). */
interface DriverEnd {
  exitCode: number;
  oomKilled: boolean;
  wallCapHit: boolean;
  aborted: boolean;
  stderrTail: string;
}

/** What a driver leaves: its channel files and how it ended. */
interface Scenario {
  stages?: string[];
  verifyOut?: string;
  rewardTxt?: string;
  run?: Partial<DriverEnd>;
  /** Done to the directories during the run, as a misbehaving verifier would. */
  meddle?: (dirs: Mounted) => Promise<void>;
}

/** One session the protocol opened: its spec, and the driver's exec. */
interface Opened {
  spec: SessionSpec;
  exec?: SessionExec;
}

/**
 * A container backend whose session's one exec plays a scenario's driver
 * (its channel written through the channel's mount), recording each spec
 * and exec it was given.
 */
function fakeTarget(scenario: Scenario, opened: Opened[] = []): SealedTarget {
  const unused = () => Promise.reject(new Error("not used by the sealed protocol"));
  const capabilities = { ownFilesystem: true, users: true, changes: true, processControl: true };
  return {
    imageId: "sha256:fake",
    backend: {
      capabilities,
      image: unused,
      copyFromImage: unused,
      open(spec) {
        const record: Opened = { spec };
        opened.push(record);
        const host = (path: string) => spec.mounts.find((m) => m.path === path)!.host;
        const session: OpenSession = {
          id: "fake-container",
          capabilities,
          busybox: "/.ledgerbench/busybox",
          end: () => Promise.resolve(),
          async exec(request) {
            record.exec = request;
            const channel = host("/ledgerbench/channel");
            if (scenario.stages) {
              await Deno.writeTextFile(
                `${channel}/stages`,
                scenario.stages.map((s) => `${s}\n`).join(""),
              );
            }
            if (scenario.verifyOut !== undefined) {
              await Deno.writeTextFile(`${channel}/verify.out`, scenario.verifyOut);
            }
            if (scenario.rewardTxt !== undefined) {
              await Deno.writeTextFile(`${channel}/reward.txt`, scenario.rewardTxt);
            }
            await scenario.meddle?.({
              hidden: host("/verifier"),
              workspace: host("/workspace"),
              channel,
            });
            const { oomKilled: _, ...end } = scenario.run ?? {};
            return {
              exitCode: 0,
              wallCapHit: false,
              aborted: false,
              wallMs: 5,
              startedAt: "2026-12-04T00:00:00.000Z",
              finishedAt: "2026-12-04T00:00:00.005Z",
              stdoutTail: "",
              stderrTail: "",
              ...end,
            };
          },
          oomKilled: () => Promise.resolve(scenario.run?.oomKilled ?? false),
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
          pidsLimitHits: unused,
          writableBytes: unused,
        };
        return Promise.resolve(session);
      },
    },
  };
}

/** A stored artifact with one answer and one link that leaves the workspace, and hidden files. */
async function fixture(dir: string) {
  await Deno.mkdir(`${dir}/workspace`);
  await Deno.writeTextFile(`${dir}/workspace/answer.txt`, "42\n");
  await Deno.symlink("/etc/passwd", `${dir}/workspace/outside`);
  await Deno.mkdir(`${dir}/verifier`);
  await Deno.writeTextFile(`${dir}/verifier/verify.sh`, "echo never run here\n");
  await Deno.writeTextFile(`${dir}/verifier/expected.txt`, "42\n");
  const artifact = await storeArtifact(`${dir}/workspace`, `${dir}/artifacts`);
  const frozen = (await digestTree(`${dir}/verifier`)).digest;
  return {
    job: { artifact, verifierDir: `${dir}/verifier`, expectedVerifierDigest: frozen },
    options: { tempDir: dir },
  };
}

function fault(outcome: VerifierOutcome): [string, string] {
  return outcome.kind === "fault" ? [outcome.fault, outcome.detail] : ["verdict", ""];
}

Deno.test("runSealedVerifier() gives the driver a private hidden copy, the confined view and an empty channel", async () => {
  await using temp = await tempDir();
  const { job, options } = await fixture(temp.path);
  const seen: string[] = [];
  const opened: Opened[] = [];
  const outcome = await runSealedVerifier(
    job,
    fakeTarget({
      stages: ["verify", "verify-exited 0"],
      verifyOut: `checking\n${VERDICT}\n`,
      meddle: async ({ hidden, workspace, channel }) => {
        seen.push(await Deno.readTextFile(`${hidden}/expected.txt`));
        seen.push(await Deno.readLink(`${workspace}/outside`));
        seen.push(((await Deno.stat(`${workspace}/answer.txt`)).mode! & 0o777).toString(8));
        seen.push(((await Deno.stat(hidden)).mode! & 0o777).toString(8));
        seen.push(((await Deno.stat(channel)).mode! & 0o777).toString(8));
      },
      run: { stderrTail: "diagnostics\n" },
    }, opened),
    { ...options, env: { A: "1" }, task: { workdir: "/app" } },
  );
  equal(outcome.kind, "verdict", JSON.stringify(outcome));
  if (outcome.kind !== "verdict") return;
  // Parsed by `Verdict`, whose defaults fill the rest.
  deepEqual(outcome.verdict, {
    schema_version: 1,
    resolved: true,
    checks: [{ name: "answer", passed: true, detail: "" }],
  });
  // The link to /etc/passwd is neutralised; the copies are read-only, the channel owner-only.
  deepEqual(seen, ["42\n", OUTSIDE_LINK_TARGET, "444", "500", "700"]);
  // The verifier's sandbox: seed 000's verifier flags, the directories at the driver's paths.
  const { spec, exec } = opened[0];
  deepEqual(
    [spec.role, spec.image, spec.user, spec.cwd, spec.keepCapabilities, spec.pidsLimit],
    ["verifier", "sha256:fake", "0:0", "/app", ["SETUID", "SETGID", "KILL"], 64],
  );
  deepEqual(
    spec.mounts.map((m) => [m.path, m.readOnly]),
    [["/verifier", true], ["/workspace", true], ["/app", true], ["/ledgerbench/channel", false]],
  );
  deepEqual(Object.keys(spec.scratch ?? {}), ["/scratch"]);
  deepEqual([exec?.argv, exec?.env, exec?.wallMs], [
    ["/bin/sh", "/opt/ledgerbench/verifier/driver.sh"],
    {
      A: "1",
      LEDGERBENCH_HIDDEN: "/verifier",
      LEDGERBENCH_ARTIFACT: "/workspace",
      LEDGERBENCH_SCRATCH: "/scratch",
      LEDGERBENCH_CHANNEL: "/ledgerbench/channel",
      LEDGERBENCH_AS_CANDIDATE: "/opt/ledgerbench/verifier/as_candidate.sh",
    },
    120_000,
  ]);
  deepEqual(
    [outcome.imageId, outcome.containerId, outcome.exitCode, outcome.verifierDigest],
    ["sha256:fake", "fake-container", 0, job.expectedVerifierDigest],
  );
  // The row's record and the episode log's output: the channel's stdout, the driver's stderr.
  deepEqual(verifierResult(outcome), {
    kind: "verdict",
    resolved: true,
    failedChecks: [],
    verification: {
      mode: "sealed",
      reward: null,
      reward_file: null,
      decided_by: null,
      hijacks: [],
      egress_allowed: 0,
      egress_denied: 0,
    },
    output: { stdout_tail: `checking\n${VERDICT}\n`, stderr_tail: "diagnostics\n" },
  });
  // The temporary copies are gone.
  const left = (await Array.fromAsync(Deno.readDir(temp.path))).map((e) => e.name).sort();
  deepEqual(left, ["artifacts", "verifier", "workspace"]);
});

Deno.test("runSealedVerifier() classifies each way a driver ends", async () => {
  await using temp = await tempDir();
  const { job, options } = await fixture(temp.path);
  const stderrTail = "line 1\nline 2\n\nline 3\nlast line\n";
  const cases: [string, Scenario, [string, string | RegExp]][] = [
    [
      "a failing setup",
      { stages: ["setup", "setup-failed 2"], run: { exitCode: 97, stderrTail } },
      [
        "setup_failed",
        "The verifier's setup failed with exit code 2 before any check ran: " +
        "line 2 | line 3 | last line",
      ],
    ],
    ["no entry", { stages: ["missing-entry"], run: { exitCode: 98, stderrTail } }, [
      "entry_missing",
      "The hidden verifier files hold no entry point: last line",
    ]],
    ["a crash after a verdict", {
      stages: ["verify", "verify-exited 3"],
      verifyOut: VERDICT,
      run: { exitCode: 3, stderrTail },
    }, [
      "crashed",
      "The verifier exited with code 3 without a verdict: line 2 | line 3 | last line",
    ]],
    ["the OOM killer without a verdict", {
      stages: ["verify"],
      run: { exitCode: 137, oomKilled: true },
    }, [
      "out_of_memory",
      "The verifier was killed by its 256 MB memory limit",
    ]],
    ["the wall cap", { stages: ["verify"], run: { exitCode: 137, wallCapHit: true, stderrTail } }, [
      "timeout",
      "The verifier was killed at its wall-clock cap: line 2 | line 3 | last line",
    ]],
    ["an abort, even after a verdict", {
      stages: ["verify", "verify-exited 0"],
      verifyOut: VERDICT,
      run: { aborted: true },
    }, ["timeout", "The verifier was killed at its wall-clock cap: "]],
    ["an empty stdout", { stages: ["verify", "verify-exited 0"], verifyOut: "" }, [
      "verdict_missing",
      "The verifier printed nothing on stdout",
    ]],
    ["no verify.out at all", { stages: ["verify", "verify-exited 0"] }, [
      "verdict_missing",
      "The verifier printed nothing on stdout",
    ]],
    ["a line that is not JSON", {
      stages: ["verify", "verify-exited 0"],
      verifyOut: "all passed\n",
    }, [
      "verdict_malformed",
      `The verifier's last stdout line is not JSON: "all passed"`,
    ]],
    ["a JSON line that is no verdict", { verifyOut: '{"resolved": "yes"}\n' }, [
      "verdict_malformed",
      /^The verifier's verdict is invalid: field "resolved"/,
    ]],
    ["a hidden file changed during the run", {
      stages: ["verify", "verify-exited 0"],
      verifyOut: VERDICT,
      meddle: async ({ hidden }) => {
        await Deno.chmod(hidden, 0o700);
        await Deno.writeTextFile(`${hidden}/planted.txt`, "x");
      },
    }, ["hidden_files_changed", /^The hidden verifier files changed during the run: "sha256:/]],
    ["the workspace view changed during the run", {
      stages: ["verify", "verify-exited 0"],
      verifyOut: VERDICT,
      meddle: async ({ workspace }) => {
        await Deno.chmod(`${workspace}/answer.txt`, 0o644);
        await Deno.writeTextFile(`${workspace}/answer.txt`, "41\n");
      },
    }, [
      "artifact_changed",
      /^The artifact changed during the run: "sha256:[0-9a-f]{64}" before, /,
    ]],
  ];
  for (const [name, scenario, [code, detail]] of cases) {
    const outcome = await runSealedVerifier(job, fakeTarget(scenario), options);
    const [got, text] = fault(outcome);
    equal(got, code, `${name}: ${JSON.stringify(outcome)}`);
    if (typeof detail === "string") equal(text, detail, name);
    else match(text, detail, name);
    // Every fault after the run keeps the run's facts; the channel's faults keep the sealed record
    // too (a changed file has none: `verifierResult` gives it the bare one).
    equal(outcome.containerId, "fake-container", name);
    equal(outcome.verification?.mode, /changed/.test(code) ? undefined : "sealed", name);
  }
});

Deno.test("runSealedVerifier() accepts a verdict after exit 0 even when the OOM killer ended some process", async () => {
  await using temp = await tempDir();
  const { job, options } = await fixture(temp.path);
  const outcome = await runSealedVerifier(
    job,
    fakeTarget({
      stages: ["verify", "verify-exited 0"],
      verifyOut: VERDICT,
      run: { oomKilled: true },
    }),
    options,
  );
  equal(outcome.kind, "verdict", JSON.stringify(outcome));
});

Deno.test("runSealedVerifier() reads a reward file by the task's rule and records it", async () => {
  await using temp = await tempDir();
  const { job, options } = await fixture(temp.path);
  const outcome = await runSealedVerifier(
    job,
    fakeTarget({ stages: ["verify", "verify-exited 1"], verifyOut: "", rewardTxt: "1\n" }),
    { ...options, task: { reward: { passThreshold: 1, rewardKey: "reward", rule: "key" } } },
  );
  equal(outcome.kind, "verdict", JSON.stringify(outcome));
  deepEqual(
    [outcome.verification?.reward, outcome.verification?.reward_file],
    [{ reward: 1 }, "reward.txt"],
  );
});

Deno.test("runSealedVerifier() refuses before the run what the frozen digest or the manifest does not vouch for", async () => {
  await using temp = await tempDir();
  const { job, options } = await fixture(temp.path);
  const opened: Opened[] = [];
  const driver = fakeTarget({ verifyOut: VERDICT }, opened);
  // Hidden files changed since the plan froze them.
  await Deno.writeTextFile(`${temp.path}/verifier/expected.txt`, "41\n");
  const changed = await runSealedVerifier(job, driver, options);
  deepEqual(fault(changed)[0], "hidden_files_changed");
  match(fault(changed)[1], /the plan froze "sha256:/);
  await Deno.writeTextFile(`${temp.path}/verifier/expected.txt`, "42\n");
  // A stored file altered after storing: the view no longer matches the manifest.
  await Deno.chmod(job.artifact.dir, 0o755);
  await Deno.chmod(`${job.artifact.dir}/answer.txt`, 0o644);
  await Deno.writeTextFile(`${job.artifact.dir}/answer.txt`, "41\n");
  await Deno.chmod(`${job.artifact.dir}/answer.txt`, 0o444);
  await Deno.chmod(job.artifact.dir, 0o555);
  const altered = await runSealedVerifier(job, driver, options);
  deepEqual(fault(altered)[0], "artifact_changed");
  match(fault(altered)[1], /^The verifier's view of artifact "sha256:[0-9a-f]{64}" has digest /);
  // The driver never ran; the outcome has no run facts and no record yet.
  deepEqual([opened.length, altered.containerId, altered.verification], [0, null, undefined]);
  // The skeleton still gets the bare sealed record.
  equal(verifierResult(altered).verification?.mode, "sealed");
});

Deno.test("runSealedVerifier() copies and digests under a deadline, and missing it is a harness error", async () => {
  await using temp = await tempDir();
  const { options } = await fixture(temp.path);
  // 300 files: the walk is past its first await long after a 1 ms deadline has fired.
  await Deno.mkdir(`${temp.path}/many`);
  for (let i = 0; i < 300; i++) await Deno.writeTextFile(`${temp.path}/many/f${i}.txt`, `${i}\n`);
  const artifact = await storeArtifact(`${temp.path}/many`, `${temp.path}/artifacts`);
  await rejects(
    () =>
      runSealedVerifier(
        { artifact, verifierDir: `${temp.path}/verifier` },
        fakeTarget({ verifyOut: VERDICT }),
        { ...options, filesDeadlineMs: 1 },
      ),
    (error: unknown) =>
      error instanceof SandboxError && error.code === "store_deadline" &&
      /within 1 ms/.test(error.message),
  );
});
