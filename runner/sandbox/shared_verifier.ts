/**
 * Harbor's shared verifier mode (issue 22), on the session primitives
 * (`sandbox_session.ts`): after the agent's exit, in the agent's own
 * container with its processes and services still there, as Harbor's
 * `Verifier` does it:
 *
 * 1. the task's hidden tests are checked against the digest frozen for the
 *    run (a change is `hidden_files_changed`, the verifier's fault);
 * 2. `/tests` and `/logs/verifier` are emptied (so the candidate cannot
 *    plant a reward, a helper or a report there) with the runner's own
 *    busybox, and the tests are copied to `/tests`;
 * 3. `bash /tests/test.sh` runs from the working directory as the task's
 *    verifier user (root when absent) under the verifier's wall cap, its
 *    stdout and stderr kept (bounded);
 * 4. `/logs/verifier/reward.txt` or `reward.json` gives the verdict
 *    (`parseRewardFiles`); test.sh's exit code is not the verdict (Harbor
 *    ignores it too), but no reward is a verifier fault, never the
 *    candidate's failure.
 *
 * What Harbor lacks and is added here: the container's filesystem diff and
 * the processes alive when verification started are kept, and the known
 * hijacks of the test run (`shared_hijacks.ts`) are looked for. The verdict
 * is only as strong as the shared container: the candidate's processes ran
 * beside the tests, which every row verified this way says.
 *
 * @module
 */
import type { Verdict } from "../../analysis/schema.ts";
import { digestTree } from "./digest_tree.ts";
import { parseRewardFiles, type RewardRule } from "./parse_reward_file.ts";
import { GATE_BUSYBOX, type SandboxSession, type SessionProcess } from "./sandbox_session.ts";
import type { FsChange } from "./sandbox_session.ts";
import { fileHijacks, type Hijack } from "./shared_hijacks.ts";
import type { VerifierFaultCode } from "./run_verifier.ts";

/** Where Harbor's verifier writes its reward and logs. */
export const HARBOR_VERIFIER_LOGS = "/logs/verifier";

/** Bytes read of each reward file (the sealed driver's bound). */
const REWARD_BYTES = 65536;

/** What the shared protocol needs of the candidate's live environment. */
export interface SharedEnvironment {
  session: SandboxSession;
  /** The working directory (test.sh runs there; the workspace appears there). */
  workdir: string;
  /** The image's `PATH`. */
  path: string;
  /** The processes alive before the agent ran (the image's entrypoint and its services). */
  processesBefore: readonly SessionProcess[];
  /** The container's diff against the image after the agent's exit. */
  changesAfterAgent: readonly FsChange[];
  /** Workspace paths (relative) present before the agent ran. */
  workspaceBefore: ReadonlySet<string>;
  /** Workspace paths (relative) present after it. */
  workspaceAfter: ReadonlySet<string>;
}

/** The task's verifier settings in shared mode. */
export interface SharedVerifierSettings {
  /** The hidden tests on the host (copied to `/tests`). */
  verifierDir: string;
  /** Their digest frozen for the run. */
  expectedVerifierDigest: string;
  /** The reward rule. */
  reward: RewardRule;
  /** `[verifier] user`; absent: root. */
  user?: string;
  /** The verifier's environment variables. */
  env?: Record<string, string>;
  wallMs: number;
  signal?: AbortSignal;
}

/** What a shared verification found. */
export interface SharedVerification {
  outcome:
    | { kind: "verdict"; verdict: Verdict }
    | { kind: "fault"; fault: VerifierFaultCode; detail: string };
  /** test.sh's exit code, or null when it did not run. */
  exitCode: number | null;
  stdoutTail: string;
  stderrTail: string;
  /** The raw reward files as read (null: absent). */
  rewardFiles: { "reward.txt": string | null; "reward.json": string | null };
  hijacks: Hijack[];
  /** The processes alive when verification started. */
  processes: SessionProcess[];
  /** The diff after the agent's exit. */
  changes: readonly FsChange[];
}

/**
 * Runs Harbor's shared verifier in the candidate's live environment (see the module doc).
 *
 * @param environment the live session and what was seen of it around the agent
 * @param settings the tests, their frozen digest, the reward rule, user, variables, wall cap
 * @returns the verdict or the verifier's fault, with the output, the flags and the snapshots
 * @throws {SandboxError} when the engine fails (a harness fault)
 */
export async function runSharedVerifier(
  environment: SharedEnvironment,
  settings: SharedVerifierSettings,
): Promise<SharedVerification> {
  const { session } = environment;
  const processes = await session.processes();
  const changes = environment.changesAfterAgent;
  const added = [...environment.workspaceAfter].filter((p) => !environment.workspaceBefore.has(p));
  const hijacks = fileHijacks(changes, added, environment.workdir, environment.path);
  const base = {
    exitCode: null,
    stdoutTail: "",
    stderrTail: "",
    rewardFiles: { "reward.txt": null, "reward.json": null },
    hijacks,
    processes,
    changes,
  };
  const digest = (await digestTree(settings.verifierDir)).digest;
  if (digest !== settings.expectedVerifierDigest) {
    return {
      ...base,
      outcome: {
        kind: "fault",
        fault: "hidden_files_changed",
        detail: `The hidden tests have digest "${digest}", the plan froze ` +
          `"${settings.expectedVerifierDigest}"`,
      },
    };
  }
  const reset = await session.exec({
    argv: [
      GATE_BUSYBOX,
      "sh",
      "-c",
      'rm -rf /tests "$1" && { [ ! -L /logs ] || rm -f /logs; } && mkdir -p /tests "$1" && chmod 777 "$1"',
      "reset",
      HARBOR_VERIFIER_LOGS,
    ],
    user: "0:0",
    wallMs: 60_000,
  });
  if (reset.exitCode !== 0) {
    return {
      ...base,
      outcome: {
        kind: "fault",
        fault: "setup_failed",
        detail: `Cannot empty /tests and ${HARBOR_VERIFIER_LOGS}: ${lastLines(reset.stderrTail)}`,
      },
    };
  }
  await session.copyIn(settings.verifierDir, "/tests");

  // The candidate's processes: alive now and not the environment's own before the agent.
  const before = new Set(environment.processesBefore.map((p) => p.pid));
  const candidatePids = processes.map((p) => p.pid).filter((pid) => !before.has(pid));
  const writers = new Map<string, Hijack>();
  const sample = async () => {
    for (const path of await openUnder(candidatePids, HARBOR_VERIFIER_LOGS)) {
      writers.set(path, { flag: "verifier_log_writer", path });
    }
  };
  const sampler = setInterval(() => void sample(), 250);
  let run;
  try {
    run = await session.exec({
      argv: ["bash", "/tests/test.sh"],
      env: settings.env,
      user: settings.user ?? "0:0",
      cwd: environment.workdir,
      wallMs: settings.wallMs,
      signal: settings.signal,
    });
  } finally {
    clearInterval(sampler);
  }
  await sample();
  const rewardFiles = {
    "reward.txt": await readText(session, `${HARBOR_VERIFIER_LOGS}/reward.txt`),
    "reward.json": await readText(session, `${HARBOR_VERIFIER_LOGS}/reward.json`),
  };
  const result = {
    ...base,
    exitCode: run.exitCode,
    stdoutTail: run.stdoutTail,
    stderrTail: run.stderrTail,
    rewardFiles,
    hijacks: [...hijacks, ...writers.values()],
  };
  if (run.wallCapHit || run.aborted) {
    return {
      ...result,
      outcome: {
        kind: "fault",
        fault: "timeout",
        detail: `test.sh was killed at its wall cap of ${settings.wallMs} ms: ${
          lastLines(run.stderrTail || run.stdoutTail)
        }`,
      },
    };
  }
  const parsed = parseRewardFiles(rewardFiles, settings.reward);
  if (parsed.kind === "verdict") return { ...result, outcome: parsed };
  const oom = await session.oomKilled();
  return {
    ...result,
    outcome: {
      kind: "fault",
      fault: oom ? "out_of_memory" : parsed.fault,
      detail: `${parsed.detail} (test.sh exited with code ${run.exitCode}): ${
        lastLines(run.stderrTail || run.stdoutTail)
      }`,
    },
  };
}

/** A reward file's text (UTF-8, replacing what is not), or null when absent. */
async function readText(session: SandboxSession, path: string): Promise<string | null> {
  const bytes = await session.readFile(path, REWARD_BYTES);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

/** The last three non-empty lines of an output, joined with " | ". */
function lastLines(text: string): string {
  return text.split("\n").filter((line) => line.trim() !== "").slice(-3).join(" | ");
}

/**
 * The paths under `dir` (as the processes see them) that processes hold
 * open or work in: their `/proc/<pid>/fd` links and `cwd`, read on the host.
 */
async function openUnder(pids: readonly number[], dir: string): Promise<string[]> {
  const found: string[] = [];
  const inside = (target: string) => target === dir || target.startsWith(`${dir}/`);
  for (const pid of pids) {
    try {
      const cwd = await Deno.readLink(`/proc/${pid}/cwd`);
      if (inside(cwd)) found.push(cwd);
      for await (const fd of Deno.readDir(`/proc/${pid}/fd`)) {
        const target = await Deno.readLink(`/proc/${pid}/fd/${fd.name}`).catch(() => "");
        if (inside(target)) found.push(target);
      }
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
