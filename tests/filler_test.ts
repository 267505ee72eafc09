/**
 * Issue 7, items 3 and 4, and issue 21, item 8, on the real Docker engine:
 * the hostile agent `containers/agents/filler.ts` fills its workspace,
 * writes a 500 MiB sparse file, floods it with files, writes a name that is
 * not UTF-8, nests 2,100 directories and squats the forwarder's port. Each
 * attack is pinned twice: in the sandbox (what the candidate hit, what was
 * stored) and in the ledger row (scored, never an invalid attempt the
 * candidate could choose).
 *
 * Skipped when no engine answers (CI has one). Needs root (the workspace's
 * tmpfs and the forwarder's namespace).
 *
 * @module
 */
import assert from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import type { SandboxSession } from "../runner/sandbox/sandbox_session.ts";
import { startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import { runPlan } from "../runner/run_plan.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { CANDIDATE_LIMITS, type CandidateResult, runCandidate } from "../runner/sandbox/mod.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import type { TaskTemplate } from "../suites/_template.ts";
import { a1Locate } from "../suites/templates/a1_locate.ts";
import { requireDockerEngine } from "./_docker_engine.ts";

const engine = await requireDockerEngine("tests/filler_test.ts");
const images = engine.available ? await buildImages() : null;
const FILLER = images?.["ledgerbench/agent-filler"] ?? "";
const RUN_LABEL = { "ledgerbench.test": `filler-${crypto.randomUUID().slice(0, 8)}` };
const options = { ignore: !engine.available, sanitizeOps: false, sanitizeResources: false };

const root = engine.available ? await Deno.makeTempDir({ prefix: "ledgerbench-filler-" }) : "";
globalThis.addEventListener("unload", () => {
  if (root === "") return;
  new Deno.Command("chmod", { args: ["-R", "u+rwX", root] }).outputSync();
  new Deno.Command("rm", { args: ["-rf", root] }).outputSync();
});

/** What the filler prints on its last stdout line. */
interface FillerReport {
  attacks: string[];
  "fill-disk"?: { written: number; error: string | null };
  "sparse-file"?: { size: number; blocks: number; error: string | null };
  "many-files"?: { created: number; error: string | null };
  "bad-name"?: { made: boolean; error: string | null };
  "deep-dirs"?: { depth: number; error: string | null };
  "port-squat"?: { port: number; bound: boolean; error: string | null };
  model_call?: { status?: number; error?: string };
}

function reportOf(result: CandidateResult): FillerReport {
  const last = result.stdoutTail.trim().split("\n").at(-1) ?? "";
  return JSON.parse(last);
}

/** Runs the filler on a one-file workspace (TASK.md: one tmpfs page, one inode). */
async function fill(
  attack: string,
  extra: {
    onStarted?: (session: SandboxSession) => Promise<void>;
    env?: Record<string, string>;
  } = {},
): Promise<CandidateResult> {
  const workspace = `${root}/tasks/${attack}`;
  await Deno.mkdir(workspace, { recursive: true });
  await Deno.writeTextFile(`${workspace}/TASK.md`, "Fill.\n");
  return await runCandidate(FILLER, { workspace, artifactsRoot: `${root}/artifacts` }, {
    env: { LEDGERBENCH_ATTACK: attack, LEDGERBENCH_ATTACK_CALLS: "0", ...extra.env },
    wallMs: 120_000,
    labels: RUN_LABEL,
    onStarted: extra.onStarted,
  });
}

const PAGE = 4096;

/** Bytes a file takes on the host's disk, as `du` counts them: its 512-byte blocks. */
async function onDisk(path: string): Promise<number> {
  return ((await Deno.stat(path)).blocks ?? NaN) * 512;
}

const ENOSPC = /No space left on device \(os error 28\)/;

Deno.test({
  name: "fill-disk: the write stops with ENOSPC at the workspace's 512 MiB and that is stored",
  ...options,
}, async () => {
  const result = await fill("fill-disk");
  const report = reportOf(result);
  // 512 MiB of tmpfs pages, one of them TASK.md's.
  assert.equal(CANDIDATE_LIMITS.workspaceBytes, 536_870_912);
  assert.equal(report["fill-disk"]!.written, 536_870_912 - PAGE);
  assert.match(report["fill-disk"]!.error!, ENOSPC);
  assert.equal(result.exitCode, 0, result.stderrTail);
  // Within the limits, so stored: fill.bin and TASK.md ("Fill.\n", 6 bytes).
  assert.equal(result.artifactError, null);
  assert.equal(result.artifact!.files, 2);
  assert.equal(result.artifact!.bytes, 536_870_912 - PAGE + 6);
  // The zeros it wrote are holes in the artifact (issue 21, item 8): 536,866,816 bytes of
  // host disk before, none now.
  assert.equal(await onDisk(`${result.artifact!.dir}/fill.bin`), 0);
});

Deno.test({
  name: "sparse-file: a 500 MiB sparse file is stored sparse, one page on the host's disk",
  ...options,
}, async () => {
  const result = await fill("sparse-file");
  // 500 MiB apparent, 6 bytes of data: one tmpfs page (8 blocks of 512 bytes).
  assert.deepEqual(reportOf(result)["sparse-file"], {
    size: 524_288_000,
    blocks: 8,
    error: null,
  });
  assert.equal(result.exitCode, 0, result.stderrTail);
  // Within 512 MiB of apparent size, so stored: sparse.bin and TASK.md ("Fill.\n", 6 bytes).
  assert.equal(result.artifactError, null);
  assert.equal(result.artifact!.files, 2);
  assert.equal(result.artifact!.bytes, 524_288_000 + 6);
  // Before: 524,288,000 bytes on the host's disk (a 502 MB artifact). Now one block.
  assert.equal(await onDisk(`${result.artifact!.dir}/sparse.bin`), PAGE);
  // The artifact is what the candidate wrote: the data at 250 MiB, zeros around it.
  const file = await Deno.open(`${result.artifact!.dir}/sparse.bin`);
  try {
    await file.seek(250 * 1024 ** 2 - 2, Deno.SeekMode.Start);
    const bytes = new Uint8Array(10);
    assert.equal(await file.read(bytes), 10);
    assert.equal(new TextDecoder().decode(bytes), "\0\0middle\0\0");
  } finally {
    file.close();
  }
});

Deno.test({
  name: "many-files: file creation stops with ENOSPC at the inode limit, bounding the store",
  ...options,
}, async () => {
  const result = await fill("many-files");
  const report = reportOf(result);
  // 10,000 inodes: the tmpfs root, /workspace, TASK.md and many/ leave 9,996 files of 200,000.
  assert.equal(CANDIDATE_LIMITS.workspaceInodes, 10_000);
  assert.equal(report["many-files"]!.created, 9_996);
  assert.match(report["many-files"]!.error!, ENOSPC);
  // What the harness stores after the exit is bounded by the limit: 9,997 files.
  assert.equal(result.artifactError, null);
  assert.equal(result.artifact!.files, 9_997);
  assert.equal(result.artifact!.bytes, 6);
});

Deno.test({
  name: "bad-name: a name that is not UTF-8 makes the workspace unstorable, not a harness error",
  ...options,
}, async () => {
  const result = await fill("bad-name");
  assert.deepEqual(reportOf(result)["bad-name"], { made: true, error: null });
  assert.equal(result.artifact, null);
  assert.equal(
    result.artifactError,
    'Cannot digest "/workspace": the name of "bad\uFFFDname" is not valid UTF-8 (or holds U+FFFD)',
  );
});

Deno.test({
  name: "deep-dirs: 2,100 nested directories are refused by rule at depth 65, not by PATH_MAX",
  ...options,
}, async () => {
  const result = await fill("deep-dirs");
  assert.deepEqual(reportOf(result)["deep-dirs"], { depth: 2100, error: null });
  assert.equal(result.artifact, null);
  assert.equal(
    result.artifactError,
    `Cannot digest "/workspace": "${
      Array(65).fill("d").join("/")
    }" is nested deeper than 64 levels`,
  );
});

Deno.test({
  name: "port-squat: the forwarder holds 18080 before the candidate runs; its call goes through",
  ...options,
}, async () => {
  const socketPath = `${root}/model.sock`;
  const calls: string[] = [];
  const server = Deno.serve({ path: socketPath, onListen() {} }, async (request) => {
    calls.push((await request.json()).model);
    return Response.json({
      id: "call-1",
      model: "scripted-model",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  });
  let forwarder: { close(): Promise<void> } | null = null;
  try {
    const result = await fill("port-squat", {
      env: {
        LEDGERBENCH_ATTACK_CALLS: "1",
        OPENAI_BASE_URL: "http://127.0.0.1:18080/v1",
        LEDGERBENCH_MODEL: "squatter",
      },
      // A forwarder slow to start (an nsenter process on a loaded machine): were the
      // candidate started first, the squatter would hold 18080 by then.
      onStarted: async (session) => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        forwarder = await session.forwardPort(18080, socketPath);
      },
    });
    const report = reportOf(result);
    assert.deepEqual(report["port-squat"], {
      port: 18080,
      bound: false,
      error: "AddrInUse: Address already in use (os error 98)",
    });
    assert.deepEqual(report.model_call, { status: 200 });
    assert.deepEqual(calls, ["squatter"]);
    assert.equal(result.exitCode, 0, result.stderrTail);
  } finally {
    await (forwarder as { close(): Promise<void> } | null)?.close();
    await server.shutdown();
  }
});

/** The a1-locate task under another id, with an attack line in its prompt. */
function attackTask(attack: string): TaskTemplate {
  return {
    ...a1Locate,
    task_id: attack,
    generate: (random, generate) => ({
      ...a1Locate.generate(random, generate),
      prompt: `ledgerbench-task: ${attack}\nattack: ${attack}\n`,
    }),
  };
}

Deno.test({
  name: "runner: every filler attack is a scored row under halt, none a harness error",
  ...options,
}, async () => {
  const dir = `${root}/runner`;
  const attacks = ["bad-name", "deep-dirs", "port-squat", "fill-disk", "many-files", "sparse-file"];
  const suite = await generateSuite({
    suite_id: "filler",
    lane_weights: { A: 1 },
    templates: attacks.map(attackTask),
  }, { seed: "f111e700".repeat(8), dir: `${dir}/suite` });
  const plan = await writePlan(
    `${dir}/plan.json`,
    freezePlan(suite, {
      plan_id: "filler",
      created_at: "2026-12-01T00:00:00.000Z",
      agents: [{
        agent_id: "filler",
        image: "ledgerbench/agent-filler:latest",
        image_digest: FILLER,
      }],
      order_seed: 1,
      price_table_id: "test",
      runner_version: await runnerVersion(),
      verifier_image: "ledgerbench/verifier:latest",
      verifier_image_digest: images!["ledgerbench/verifier"],
    }),
  );
  const key = crypto.randomUUID();
  const provider = await startScriptedProvider(await suiteProviderScript(suite), { apiKey: key });
  try {
    const outcome = await runPlan({
      plan,
      suite: suite.dir,
      ledger: `${dir}/ledger.jsonl`,
      parallel: 2,
      upstream: () => ({ baseUrl: provider.baseUrl, key }),
    });
    // Under halt, one invalid row would have stopped the batch.
    assert.equal(outcome.complete, true);
    const rows = Object.fromEntries(
      (await loadLedger(`${dir}/ledger.jsonl`)).rows.map((row) => [row.task_id, row]),
    );
    for (const attack of attacks) {
      const row = rows[attack];
      assert.deepEqual(
        [row.status, row.resolved, row.invalid_reason, row.model_calls],
        ["scored", false, null, 1],
        `${attack}: ${row.notes}`,
      );
    }
    assert.equal(
      rows["bad-name"].notes,
      'workspace not stored: Cannot digest "/workspace": the name of "bad\uFFFDname" is not ' +
        "valid UTF-8 (or holds U+FFFD)",
    );
    assert.equal(
      rows["deep-dirs"].notes,
      `workspace not stored: Cannot digest "/workspace": "${
        Array(65).fill("d").join("/")
      }" is nested deeper than 64 levels`,
    );
    // Stored within the limits and verified: the a1 verifier finds no answer.
    for (const attack of ["port-squat", "fill-disk", "many-files", "sparse-file"]) {
      assert.match(rows[attack].notes, /^failed checks: answer_present, definition_located$/);
      assert.match(rows[attack].artifact_digest ?? "", /^sha256:[0-9a-f]{64}$/);
    }
    // The sparse file's artifact in the run's store: one page of host disk, not 500 MiB.
    const hex = rows["sparse-file"].artifact_digest!.slice("sha256:".length);
    assert.equal(await onDisk(`${dir}/artifacts/sha256/${hex}/sparse.bin`), PAGE);
  } finally {
    await provider.close();
  }
});
