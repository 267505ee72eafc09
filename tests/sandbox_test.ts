/**
 * The sandbox against the real Docker engine (seed 000, sections 02–04, and
 * issue 3's "Tests" list): what a candidate can and cannot do from inside
 * its container, and how verifier faults are classified.
 *
 * Skipped, with a message saying why, only when no engine answers. Needs the
 * images of `containers/build_images.sh` (built here, about 1 s when cached)
 * and root for the `nsenter` forwarder test.
 */
import assert from "node:assert/strict";
import { buildImages } from "../runner/docker/build_images.ts";
import { dockerAvailable } from "../runner/docker/docker_available.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { dockerClient } from "../runner/docker/docker_client.ts";
import type { SandboxSession } from "../runner/sandbox/sandbox_session.ts";
import {
  type Artifact,
  CANDIDATE_LIMITS,
  type CandidateResult,
  digestTree,
  runCandidate,
  runVerifier,
  SandboxError,
  storeArtifact,
  type VerifierOutcome,
} from "../runner/sandbox/mod.ts";

const engine = await requireDockerEngine("tests/sandbox_test.ts");
const images = engine.available ? await buildImages() : null;
/** nsenter needs root; the owner of a fresh temp dir is this process's uid (no --allow-sys). */
const isRoot = await (async () => {
  const dir = await Deno.makeTempDir();
  const uid = (await Deno.stat(dir)).uid;
  await Deno.remove(dir);
  return uid === 0;
})();
const TESTDATA = new URL("../runner/sandbox/testdata/", import.meta.url).pathname;

/** A key shaped like a real one, present on the host only. */
const SECRET = `sk-ledgerbench-test-${crypto.randomUUID().replaceAll("-", "")}`;
Deno.env.set("LEDGERBENCH_TEST_UPSTREAM_KEY", SECRET);
/** A run id that labels every container of this file. */
const RUN_LABEL = { "ledgerbench.test": `sandbox-${crypto.randomUUID().slice(0, 8)}` };

const root = engine.available
  ? await Deno.makeTempDir({ prefix: "ledgerbench-sandbox-test-" })
  : "";
globalThis.addEventListener("unload", () => {
  if (root === "") return;
  new Deno.Command("chmod", { args: ["-R", "u+rwX", root] }).outputSync();
  Deno.removeSync(root, { recursive: true });
});

const options = {
  ignore: !engine.available,
  // dockerode keeps pooled HTTP connections to the engine between tests.
  sanitizeOps: false,
  sanitizeResources: false,
};

/** A task on the host: workspace (what the candidate gets) and hidden verifier files. */
async function makeTask(name: string, prompt: string): Promise<string> {
  const dir = `${root}/tasks/${name}`;
  await Deno.mkdir(`${dir}/workspace`, { recursive: true });
  await Deno.mkdir(`${dir}/verifier`, { recursive: true });
  await Deno.writeTextFile(`${dir}/workspace/TASK.md`, prompt);
  await Deno.writeTextFile(`${dir}/verifier/verify.sh`, "echo '{\"resolved\":true}'\n");
  await Deno.writeTextFile(`${dir}/verifier/expected_answer_${name}.txt`, "the hidden answer\n");
  // The key sits on the host beside the task, never inside the workspace.
  await Deno.writeTextFile(`${dir}/.env`, `OPENAI_API_KEY=${SECRET}\n`);
  return dir;
}

/** What `containers/agents/attacker.ts` writes (only the probes it ran are present). */
interface AttackReport {
  modes: string[];
  network: {
    connects: Probe[];
    unix: Probe[];
    dns: { resolved: unknown };
    interfaces: string[];
    any_reached: boolean;
  };
  rootfs: {
    attempts: Array<{ path: string; written: boolean; error?: string }>;
    any_written: boolean;
  };
  caps: Record<"CapEff" | "CapPrm" | "CapBnd" | "NoNewPrivs", string | null>;
  hidden: { roots: Record<string, boolean>; suspicious: string[] };
  secrets: { env: Record<string, string>; files_scanned: number; key_like_strings: string[] };
  fork: { spawned: number; refused: boolean; error: string | null; own_threads: number };
  forkbomb: { started: boolean };
  memory: { allocated_mb: number; survived: boolean };
}
interface Probe {
  target: string;
  reached: boolean;
  error?: string;
}

async function readReport(result: CandidateResult): Promise<AttackReport> {
  assert.ok(result.artifact, `no artifact: ${result.artifactError}`);
  return JSON.parse(await Deno.readTextFile(`${result.artifact.dir}/attack_report.json`));
}

async function attack(
  name: string,
  modes: string,
  extra: { wallMs?: number; env?: Record<string, string> } = {},
): Promise<CandidateResult> {
  const task = await makeTask(name, `Try to escape.\nattack: ${modes}\n`);
  return await runCandidate(images!["ledgerbench/agent-attacker"], {
    workspace: `${task}/workspace`,
    artifactsRoot: `${root}/artifacts`,
  }, {
    env: { OPENAI_API_KEY: "sandbox", LEDGERBENCH_ATTACK_CALLS: "0", ...extra.env },
    forbiddenValues: [SECRET],
    wallMs: extra.wallMs ?? 60_000,
    labels: RUN_LABEL,
  });
}

/** The default probes, run once with a listener on the host the attacker must not reach. */
let probes:
  | Promise<
    {
      result: CandidateResult;
      report: AttackReport;
      hostTargets: string[];
      hostConnections: number;
    }
  >
  | undefined;
function defaultProbes() {
  probes ??= (async () => {
    const listener = Deno.listen({ hostname: "0.0.0.0", port: 0 });
    let hostConnections = 0;
    const accepting = (async () => {
      for await (const conn of listener) {
        hostConnections += 1;
        conn.close();
      }
    })();
    const port = listener.addr.port;
    // The host's own addresses (`hostname -I`), IPv6 ones in brackets, and loopback.
    const hostIps = new TextDecoder().decode(
      (await new Deno.Command("hostname", { args: ["-I"], stdout: "piped" }).output()).stdout,
    ).trim().split(/\s+/).filter((ip) => ip !== "").map((ip) => ip.includes(":") ? `[${ip}]` : ip);
    const hostTargets = [...hostIps, "127.0.0.1"].map((ip) => `${ip}:${port}`);
    try {
      const result = await attack("probes", "network,rootfs,caps,hidden,secrets,fork", {
        env: { LEDGERBENCH_ATTACK_TARGETS: hostTargets.join(",") },
      });
      return { result, report: await readReport(result), hostTargets, hostConnections };
    } finally {
      listener.close();
      await accepting.catch(() => {});
    }
  })();
  return probes;
}

Deno.test({
  name: "runCandidate() leaves the attacker no route to outside addresses or the host",
  ...options,
}, async () => {
  const { result, report, hostTargets, hostConnections } = await defaultProbes();
  assert.equal(result.exitCode, 0, result.stderrTail);
  assert.equal(result.stopReason, "completed");
  const network = report.network;
  assert.equal(network.any_reached, false);
  // Only the loopback interface exists (seed 000: --network none).
  assert.deepEqual(network.interfaces, ["lo"]);
  assert.equal(network.dns.resolved, null);
  // The probes include a port listening on the host, at each of the host's addresses.
  const probed = network.connects.map((c) => c.target);
  for (const target of hostTargets) assert.ok(probed.includes(target), target);
  for (const probe of [...network.connects, ...network.unix]) assert.equal(probe.reached, false);
  assert.equal(hostConnections, 0);
});

Deno.test({ name: "runCandidate() gives the candidate a read-only root", ...options }, async () => {
  const { report } = await defaultProbes();
  assert.equal(report.rootfs.any_written, false);
  const byPath = Object.fromEntries(
    report.rootfs.attempts.map((a) => [a.path, a.error ?? ""]),
  );
  assert.match(byPath["/pwned"], /Read-only file system/);
  assert.match(byPath["/etc/pwned"], /Read-only file system/);
});

Deno.test(
  { name: "runCandidate() runs with zero effective capabilities", ...options },
  async () => {
    const { report } = await defaultProbes();
    assert.equal(report.caps.CapEff, "0000000000000000");
    assert.equal(report.caps.CapPrm, "0000000000000000");
    assert.equal(report.caps.CapBnd, "0000000000000000");
    assert.equal(report.caps.NoNewPrivs, "1");
  },
);

Deno.test({
  name: "runCandidate() keeps the key out of the sandbox's environment and files",
  ...options,
}, async () => {
  const { result, report } = await defaultProbes();
  const env = report.secrets.env;
  assert.equal(env.OPENAI_API_KEY, "sandbox");
  // Nothing of the runner's environment is passed (this process holds the key).
  assert.equal(env.LEDGERBENCH_TEST_UPSTREAM_KEY, undefined);
  assert.ok(report.secrets.files_scanned > 10);
  assert.deepEqual(report.secrets.key_like_strings, []);
  const everything = JSON.stringify(report) + result.stdoutTail + result.stderrTail;
  assert.equal(everything.includes(SECRET), false);
});

Deno.test({
  name: "runCandidate() hides the verifier's files while the candidate runs",
  ...options,
}, async () => {
  const { report } = await defaultProbes();
  // The hidden files exist on the host during the run ...
  await Deno.stat(`${root}/tasks/probes/verifier/expected_answer_probes.txt`);
  // ... and nowhere in the sandbox.
  assert.deepEqual(report.hidden.roots, {
    "/verifier": false,
    "/hidden": false,
    "/opt/ledgerbench/verifier": false,
  });
  assert.deepEqual(report.hidden.suspicious, []);
});

Deno.test(
  { name: "runCandidate() holds process creation at the pids limit", ...options },
  async () => {
    const { report } = await defaultProbes();
    assert.equal(report.fork.refused, true);
    assert.match(report.fork.error ?? "", /Resource temporarily unavailable/);
    // Processes and threads share the 128 slots (seed 000: --pids-limit 128).
    assert.ok(report.fork.spawned + report.fork.own_threads <= CANDIDATE_LIMITS.pidsLimit);
    assert.ok(report.fork.spawned > 0);
  },
);

Deno.test({
  name: "runCandidate() survives a fork bomb and records how the candidate ended",
  ...options,
}, async () => {
  const result = await attack("forkbomb", "forkbomb", { wallMs: 3000 });
  // The wall cap kills it, unless the bomb, holding every pid the limit allows, first
  // starves the attacker's own Deno of threads (about 1 run in 4): then it dies on its own.
  if (result.wallCapHit) {
    assert.equal(result.stopReason, "wall_cap");
    assert.equal(result.exitCode, 137);
  } else {
    assert.equal(result.stopReason, "error");
    assert.notEqual(result.exitCode, 0);
  }
  assert.deepEqual((await readReport(result)).forkbomb, { started: true });
  // The cgroup counted refused forks (when the host lets us read pids.events).
  if (result.pidsLimitHits !== null) assert.ok(result.pidsLimitHits > 0);
  // The engine still answers and the container is gone.
  assert.equal((await dockerAvailable()).available, true);
  await assert.rejects(
    () => dockerClient().getContainer(result.containerId!).inspect(),
    (e: { statusCode?: number }) => e.statusCode === 404,
  );
});

Deno.test({
  name: "runCandidate() records a memory hog's OOM kill with stop reason error",
  ...options,
}, async () => {
  const result = await attack("memory", "memory");
  assert.equal(result.oomKilled, true);
  assert.equal(result.wallCapHit, false);
  assert.equal(result.exitCode, 137);
  assert.equal(result.stopReason, "error");
  const report = await readReport(result);
  assert.equal(report.memory.survived, false);
  assert.match(result.stderrTail, /holding \d+ MiB/);
});

Deno.test(
  { name: "runCandidate() kills a candidate at its wall-clock cap", ...options },
  async () => {
    const task = await makeTask("sleeper", "Sleep.\n");
    const result = await runCandidate(images!["ledgerbench/base"], {
      workspace: `${task}/workspace`,
      artifactsRoot: `${root}/artifacts`,
    }, {
      command: ["sleep", "30"],
      wallMs: 1000,
      labels: RUN_LABEL,
    });
    assert.equal(result.wallCapHit, true);
    assert.equal(result.stopReason, "wall_cap");
    assert.equal(result.exitCode, 137);
    // The kill is sent 1000 ms after start, so the episode lasted at least that long.
    assert.ok(result.wallMs >= 1000);
    assert.equal(result.artifact!.digest, (await digestTree(`${task}/workspace`)).digest);
  },
);

Deno.test({
  name: "runCandidate() kills on abort and when the started hook fails, removing the container",
  ...options,
}, async () => {
  const task = await makeTask("aborted", "Sleep.\n");
  const job = { workspace: `${task}/workspace`, artifactsRoot: `${root}/artifacts` };
  const base = {
    command: ["sleep", "30"],
    wallMs: 60_000,
    labels: { ...RUN_LABEL, "ledgerbench.case": "aborted" },
  };
  const controller = new AbortController();
  const result = await runCandidate(images!["ledgerbench/base"], job, {
    ...base,
    signal: controller.signal,
    onStarted: () => {
      setTimeout(() => controller.abort(), 200);
    },
  });
  assert.equal(result.aborted, true);
  assert.equal(result.wallCapHit, false);
  assert.equal(result.stopReason, "error");
  assert.equal(result.exitCode, 137);
  await assert.rejects(
    () =>
      runCandidate(images!["ledgerbench/base"], job, {
        ...base,
        onStarted: () => {
          throw new Error("the forwarder did not start");
        },
      }),
    (e: unknown) =>
      e instanceof SandboxError && e.code === "hook_failed" &&
      /the forwarder did not start/.test(e.message),
  );
  const left = await dockerClient().listContainers({
    all: true,
    filters: { label: ["ledgerbench.case=aborted"] },
  });
  assert.equal(left.length, 0);
});

Deno.test({
  name: "runCandidate() refuses to start with the key in its environment or workspace",
  ...options,
}, async () => {
  const task = await makeTask("leaky", "Leak.\n");
  const run = (env: Record<string, string>) =>
    runCandidate(images!["ledgerbench/agent-nocall"], {
      workspace: `${task}/workspace`,
      artifactsRoot: `${root}/artifacts`,
    }, {
      env,
      forbiddenValues: [SECRET],
      labels: { ...RUN_LABEL, "ledgerbench.case": "leaky" },
    });
  const forbidden = (e: unknown) => e instanceof SandboxError && e.code === "forbidden_value";
  await assert.rejects(() => run({ OPENAI_API_KEY: SECRET }), forbidden);
  await assert.rejects(() => run({ EXTRA: `Bearer ${SECRET}` }), forbidden);
  await Deno.writeTextFile(`${task}/workspace/config.txt`, `key = ${SECRET}\n`);
  await assert.rejects(() => run({ OPENAI_API_KEY: "sandbox" }), forbidden);
  const created = await dockerClient().listContainers({
    all: true,
    filters: { label: ["ledgerbench.case=leaky"] },
  });
  assert.equal(created.length, 0);
});

Deno.test({
  name: "runCandidate() refuses an image that is not present instead of pulling it",
  ...options,
}, async () => {
  const task = await makeTask("noimage", "Nothing.\n");
  await assert.rejects(
    () =>
      runCandidate("ledgerbench/does-not-exist:never", {
        workspace: `${task}/workspace`,
        artifactsRoot: `${root}/artifacts`,
      }),
    (e: unknown) => e instanceof SandboxError && e.code === "image_missing",
  );
});

/** A scripted model on a host unix socket, reached through the sandbox's forwarded port. */
async function withModel(
  answer: (call: number) => { status: number; content: string },
  fn: (
    hook: (session: SandboxSession) => Promise<void>,
    env: Record<string, string>,
  ) => Promise<void>,
): Promise<Array<{ model: string; messages: unknown[]; authorization: string | null }>> {
  const socketPath = `${root}/model-${crypto.randomUUID().slice(0, 8)}.sock`;
  const calls: Array<{ model: string; messages: unknown[]; authorization: string | null }> = [];
  const server = Deno.serve({ path: socketPath, onListen() {} }, async (request) => {
    const body = await request.json();
    calls.push({
      model: body.model,
      messages: body.messages,
      authorization: request.headers.get("authorization"),
    });
    const { status, content } = answer(calls.length);
    return Response.json({
      id: `call-${calls.length}`,
      model: "scripted-model",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    }, { status });
  });
  const forwarders: Array<{ close(): Promise<void> }> = [];
  try {
    await fn(async (session) => {
      forwarders.push(await session.forwardPort(8080, socketPath));
    }, {
      OPENAI_BASE_URL: "http://127.0.0.1:8080/v1",
      OPENAI_API_KEY: "sandbox",
      LEDGERBENCH_MODEL: "scripted",
    });
  } finally {
    for (const forwarder of forwarders) await forwarder.close();
    await server.shutdown();
  }
  return calls;
}

Deno.test({
  name: "runCandidate() hands the session to onStarted so the agents reach the model",
  ...options,
  ignore: !engine.available || !isRoot,
}, async (t) => {
  const run = (
    image: string,
    task: string,
    hook: (session: SandboxSession) => Promise<void>,
    env = {},
  ) =>
    runCandidate(image, { workspace: `${task}/workspace`, artifactsRoot: `${root}/artifacts` }, {
      env,
      forbiddenValues: [SECRET],
      wallMs: 60_000,
      labels: RUN_LABEL,
      onStarted: hook,
    });

  await t.step("solver applies the file blocks of the answer", async () => {
    const task = await makeTask("solver", "Write out/answer.txt containing 42.\n");
    let result: CandidateResult | undefined;
    const calls = await withModel(
      () => ({ status: 200, content: "Done.\n```file:out/answer.txt\n42\n```\n" }),
      async (hook, env) => {
        result = await run(images!["ledgerbench/agent-solver"], task, hook, env);
      },
    );
    assert.equal(result!.exitCode, 0, result!.stderrTail);
    assert.equal(result!.stopReason, "completed");
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].messages, [
      { role: "user", content: "Write out/answer.txt containing 42.\n" },
    ]);
    assert.equal(calls[0].model, "scripted");
    assert.equal(calls[0].authorization, "Bearer sandbox");
    assert.equal(await Deno.readTextFile(`${result!.artifact!.dir}/out/answer.txt`), "42");
    // The task's own workspace is untouched.
    await assert.rejects(() => Deno.stat(`${task}/workspace/out`), Deno.errors.NotFound);
  });

  await t.step("nocall exits without a model call", async () => {
    const task = await makeTask("nocall", "Anything.\n");
    let result: CandidateResult | undefined;
    const calls = await withModel(() => ({ status: 200, content: "" }), async (hook, env) => {
      result = await run(images!["ledgerbench/agent-nocall"], task, hook, env);
    });
    assert.equal(calls.length, 0);
    assert.equal(result!.exitCode, 0);
    assert.equal(result!.stopReason, "completed");
  });

  await t.step("crasher dies with exit code 70 after one call", async () => {
    const task = await makeTask("crasher", "Anything.\n");
    let result: CandidateResult | undefined;
    const calls = await withModel(() => ({ status: 200, content: "ok" }), async (hook, env) => {
      result = await run(images!["ledgerbench/agent-crasher"], task, hook, env);
    });
    assert.equal(calls.length, 1);
    assert.equal(result!.exitCode, 70);
    assert.equal(result!.stopReason, "error");
  });

  await t.step("looper calls until the relay refuses", async () => {
    const task = await makeTask("looper", "Loop.\n");
    let result: CandidateResult | undefined;
    // Three answers, then a refusal (as the relay's cap would answer).
    const calls = await withModel(
      (n) => ({ status: n <= 3 ? 200 : 429, content: `step ${n}` }),
      async (hook, env) => {
        result = await run(images!["ledgerbench/agent-looper"], task, hook, env);
      },
    );
    assert.equal(calls.length, 4);
    // The conversation grows: call 4 carries 3 answers and 4 user turns.
    assert.equal(calls[3].messages.length, 7);
    assert.equal(result!.exitCode, 0);
    const log = JSON.parse(await Deno.readTextFile(`${result!.artifact!.dir}/looper.log`));
    assert.deepEqual(log, { agent: "looper", calls: 4, last_status: 429, stopped: "refused" });
  });
});

/** Stores one of the incident fixtures' answers as an artifact (no model call). */
async function storedAnswer(name: "answer_good" | "answer_bad"): Promise<Artifact> {
  return await storeArtifact(`${TESTDATA}incident_89/${name}`, `${root}/artifacts`);
}

async function verify(artifact: Artifact, verifierDir: string, expected?: string) {
  return await runVerifier(images!["ledgerbench/verifier"], {
    artifact,
    verifierDir,
    expectedVerifierDigest: expected,
  }, { labels: RUN_LABEL });
}

function assertFault(outcome: VerifierOutcome, code: string): string {
  assert.equal(outcome.kind, "fault", JSON.stringify(outcome));
  if (outcome.kind !== "fault") return "";
  assert.equal(outcome.fault, code, outcome.detail);
  return outcome.detail;
}

Deno.test({
  name: "runVerifier() reports the 89-point incident's setup fault as a fault, not a failure",
  ...options,
}, async () => {
  const good = await storedAnswer("answer_good");
  // Seed 000: "rm 删除旧输出时报 Permission denied，尚未执行生成器的 allowlist 断言".
  const buggy = await verify(good, `${TESTDATA}incident_89/verifier_buggy`);
  const detail = assertFault(buggy, "setup_failed");
  assert.match(detail, /setup failed with exit code 1 before any check ran/);
  assert.match(detail, /Permission denied/);
  assert.equal(buggy.exitCode, 97);
  // The same bug inside verify.sh: exit code 1, which the old runner scored as a failure.
  const inline = await verify(good, `${TESTDATA}incident_89/verifier_inline`);
  assert.match(
    assertFault(inline, "crashed"),
    /exited with code 1 without a verdict.*Permission denied/,
  );
  assert.equal(inline.exitCode, 1);
});

Deno.test({
  name: "runVerifier() with the one-line fix resolves the good answer and fails the bad one",
  ...options,
}, async () => {
  const fixed = `${TESTDATA}incident_89/verifier_fixed`;
  const frozen = (await digestTree(fixed)).digest;
  const good = await verify(await storedAnswer("answer_good"), fixed, frozen);
  assert.equal(good.kind, "verdict", JSON.stringify(good));
  if (good.kind === "verdict") {
    assert.equal(good.verdict.resolved, true);
    assert.deepEqual(good.verdict.checks.map((c) => [c.name, c.passed]), [
      ["generator_ran", true],
      ["report_matches", true],
      ["allowlist", true],
    ]);
  }
  assert.equal(good.verifierDigest, frozen);
  const bad = await verify(await storedAnswer("answer_bad"), fixed, frozen);
  assert.equal(bad.kind, "verdict", JSON.stringify(bad));
  if (bad.kind === "verdict") {
    assert.equal(bad.verdict.resolved, false);
    assert.deepEqual(bad.verdict.checks.find((c) => c.name === "allowlist")?.passed, false);
  }
});

Deno.test({
  name: "runVerifier() turns malformed, missing and post-crash verdicts into faults",
  ...options,
}, async () => {
  const good = await storedAnswer("answer_good");
  const dir = `${TESTDATA}verifiers`;
  assert.match(
    assertFault(await verify(good, `${dir}/malformed`), "verdict_malformed"),
    /not JSON: "all checks passed"/,
  );
  assertFault(await verify(good, `${dir}/silent`), "verdict_missing");
  assert.match(
    assertFault(await verify(good, `${dir}/crash_after_verdict`), "crashed"),
    /exited with code 3/,
  );
  assertFault(await verify(good, `${dir}/no_entry`), "entry_missing");
});

Deno.test({
  name: "runVerifier() refuses hidden files that differ from the frozen digest",
  ...options,
}, async () => {
  const good = await storedAnswer("answer_good");
  const fixed = `${TESTDATA}incident_89/verifier_fixed`;
  const buggyDigest = (await digestTree(`${TESTDATA}incident_89/verifier_buggy`)).digest;
  const outcome = await verify(good, fixed, buggyDigest);
  assert.match(assertFault(outcome, "hidden_files_changed"), /the plan froze/);
  assert.equal(outcome.containerId, null);
});

Deno.test({
  name: "runVerifier() copies and digests under a deadline, and missing it is a harness error",
  ...options,
}, async () => {
  // 300 files: the walk is past its first await long after a 1 ms deadline has fired.
  const dir = await Deno.makeTempDir({ dir: root, prefix: "many-" });
  for (let i = 0; i < 300; i++) await Deno.writeTextFile(`${dir}/f${i}.txt`, `${i}\n`);
  const artifact = await storeArtifact(dir, `${root}/artifacts`);
  await assert.rejects(
    () =>
      runVerifier(images!["ledgerbench/verifier"], {
        artifact,
        verifierDir: `${TESTDATA}incident_89/verifier_fixed`,
      }, { labels: RUN_LABEL, filesDeadlineMs: 1 }),
    (error: unknown) =>
      error instanceof SandboxError && error.code === "store_deadline" &&
      /within 1 ms/.test(error.message),
  );
});

Deno.test({
  name: "runVerifier() faults a verifier killed by its 256 MB limit",
  ...options,
}, async () => {
  const outcome = await verify(await storedAnswer("answer_good"), `${TESTDATA}verifiers/oom`);
  assertFault(outcome, "out_of_memory");
});

Deno.test({
  name:
    "runVerifier() runs with a read-only workspace, seed 000's limits and candidate code as nobody",
  ...options,
}, async () => {
  const outcome = await verify(
    await storedAnswer("answer_good"),
    `${TESTDATA}verifiers/sandbox_probe`,
  );
  assert.equal(outcome.kind, "verdict", JSON.stringify(outcome));
  if (outcome.kind !== "verdict") return;
  const checks = Object.fromEntries(outcome.verdict.checks.map((c) => [c.name, c]));
  assert.equal(checks.workspace_read_only.passed, true);
  assert.equal(checks.root_read_only.passed, true);
  // The verifier keeps CAP_KILL (bit 5), CAP_SETGID (bit 6) and CAP_SETUID (bit 7) only, to run
  // candidate code as nobody and stop it; nobody has none and cannot read the hidden files.
  assert.equal(checks.cap_eff.detail, "00000000000000e0");
  assert.equal(checks.candidate_uid.detail, "65534");
  assert.equal(checks.candidate_cap_eff.detail, "0000000000000000");
  assert.equal(checks.candidate_reads_hidden.passed, false);
  assert.equal(checks.interfaces.detail, "lo");
  // 256 MiB = 268435456 bytes; half a CPU = a 50000 µs quota per 100000 µs period.
  assert.equal(checks.memory_limit.detail, "268435456");
  assert.equal(checks.cpu_quota.detail, "50000 100000");
});

Deno.test({ name: "the sandbox leaves no container behind", ...options }, async () => {
  const left = await dockerClient().listContainers({
    all: true,
    filters: { label: [`ledgerbench.test=${RUN_LABEL["ledgerbench.test"]}`] },
  });
  assert.deepEqual(left.map((c) => c.Id), []);
});
