/**
 * Harbor's two verifier modes, written once on the session
 * primitives (`sandbox_session.ts`), as Harbor's `Verifier` runs them:
 *
 * - **shared** (Harbor's default, {@link runSharedVerifier}): after the
 *   agent's exit, in the agent's own container with its processes and
 *   services still there;
 * - **separate** ({@link runSeparateVerifier}): in a fresh environment of
 *   its own (the task's verifier image, or the task's environment anew),
 *   into which only Harbor's verifier inputs are copied from the agent's:
 *   `/logs/artifacts` and the task's `artifacts` paths, at the same places.
 *
 * Both then do the same ({@link runHarborTests}): the hidden tests are
 * checked against the digest frozen for the run (a change is
 * `hidden_files_changed`, the verifier's fault); `/logs/verifier` is
 * emptied, and so is `/tests` when the tests are uploaded (shared, or a
 * separate environment that is the task's own: a verifier image built from
 * `tests/` has them baked in, as Harbor expects), with the runner's own
 * busybox, so the candidate cannot plant a reward, a helper or a report;
 * `bash /tests/test.sh` runs from the working directory as the task's
 * verifier user (root when absent) under the verifier's wall cap, its
 * stdout and stderr kept (bounded); `/logs/verifier/reward.txt` or
 * `reward.json` gives the verdict (`parseRewardFiles`). test.sh's exit code
 * is not the verdict (Harbor ignores it too), but no reward is a verifier
 * fault, never the candidate's failure.
 *
 * What Harbor lacks and is added in shared mode, so that nothing the
 * candidate left behind reaches the tests, the reward or the verifier's
 * network (seed 000: nothing the candidate writes may reach the verifier's
 * files or the verdict channel):
 *
 * - every process the candidate left is stopped (`SandboxSession.stopAllBut`)
 *   before `/tests` and `/logs/verifier` are emptied and the tests copied
 *   in; those holding a listening socket (a service the tests may query,
 *   as Harbor's fidelity needs) run again while test.sh runs, recorded on
 *   the row with their sockets, and are stopped once it ends, before the
 *   reward is read;
 * - the container's filesystem diff after the agent is read for the
 *   system paths a test run trusts (`shared_hijacks.ts`), and `/tests` is
 *   compared with the frozen tests after the run (`tests_changed`);
 * - a kept process holding a file under `/logs/verifier` is flagged;
 * - a test run that ends without a verdict (killed, timed out, no or a bad
 *   reward, out of memory) while the candidate's processes were there is
 *   the candidate's scored failure, never an invalid row: a candidate must
 *   never be able to choose invalid (seed 002: only what the harness did
 *   wrong is invalid); so is, in both modes, a test run past its timeout
 *   whose tests finished within it on the oracle's answer at the suite
 *   check the plan froze.
 *
 * A shared verdict is still only as strong as the shared container: kept
 * processes and the candidate's code the tests run are beside the tests,
 * which every row verified this way says.
 *
 * @module
 */
import type { Verdict, VerificationRecord } from "../../analysis/schema/records.ts";
import { digestTree, type TreeEntry } from "./digest_tree.ts";
import { parseRewardFiles, type RewardRule, type RewardVerdict } from "./parse_reward_file.ts";
import { type VerifyResult, verifyResultOf } from "../episode_row.ts";
import {
  requireCapabilities,
  type SandboxSession,
  type SessionCapabilities,
  type SessionProcess,
} from "./sandbox_session.ts";
import type { FsChange } from "./sandbox_session.ts";
import {
  entryPointFiles,
  fileHijacks,
  type Hijack,
  pytestPluginHijacks,
  sortedByPath,
} from "./shared_hijacks.ts";
import type { VerifierFaultCode } from "./sealed_verifier.ts";
import { openSandboxProxy, type SandboxProxy } from "./sandbox_proxy.ts";
import { descendsFrom } from "./_kill_descendants.ts";
import type { EgressRequest } from "../../analysis/schema/egress_request.ts";
import type { EgressResolve } from "../egress/egress_resolve.ts";
import { SEPARATE_ARTIFACT_BYTES } from "./sandbox_limits.ts";

/** Where Harbor's verifier writes its reward and logs. */
export const HARBOR_VERIFIER_LOGS = "/logs/verifier";

/** Bytes read of each reward file (the sealed driver's bound). */
const REWARD_BYTES = 65536;

/** What the shared mode needs of the candidate's live environment. */
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

/** The task's verifier settings in Harbor's modes. */
export interface SharedVerifierSettings {
  /** The hidden tests on the host (copied to `/tests`). */
  verifierDir: string;
  /**
   * The directory inside `verifierDir` copied to `/tests` instead of all
   * of it: one step's tests (a multi-step task, `stepPaths`); `verifierDir`
   * is still checked whole against its frozen digest.
   */
  testsDir?: string;
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
  /**
   * The hosts the verifier may reach through the recording egress proxy
   * (the suite's `verifier.allow_hosts`); empty or absent: no network.
   */
  allowHosts?: readonly string[];
  /** Where the proxy connects for a named host (`egress_resolve.ts`); absent: it resolves names. */
  egressResolve?: EgressResolve;
  /**
   * The suite check the plan froze passed: these tests finished within
   * `wallMs` on the task's oracle, in the same environment. A test run
   * past `wallMs` then ran on the candidate's answer (the tests run the
   * candidate's code, or wait for what it should have made) and is its
   * scored failure, not a verifier fault (seed 002: only what the harness
   * did wrong is invalid). Absent or false: a timeout is the verifier's fault.
   */
  oracleFinishedInTime?: boolean;
}

/** The loopback port the verifier reaches its egress proxy on. */
export const EGRESS_PORT = 3128;

/**
 * The variables that send a phase's HTTP clients (apt, curl, uv, pip, npm)
 * to the egress proxy on `port`, with Basic credentials in the URL when the
 * proxy asks for them (each client sends them as `Proxy-Authorization`),
 * loopback excepted (a service the agent started, and the relay, are asked
 * directly).
 *
 * @param port the proxy's loopback port inside the sandbox
 * @param password the proxy's password for this phase, or null when it asks none
 * @returns the variables, in both cases' spellings
 * @example
 * ```ts
 * import { proxyEnvironment } from "./harbor_verifier.ts";
 * if (proxyEnvironment(3128, "p4ss").https_proxy !== "http://verifier:p4ss@127.0.0.1:3128") {
 *   throw new Error();
 * }
 * if (proxyEnvironment(3128, null).http_proxy !== "http://127.0.0.1:3128") throw new Error();
 * ```
 */
export function proxyEnvironment(port: number, password: string | null): Record<string, string> {
  const proxy = `http://${password === null ? "" : `verifier:${password}@`}127.0.0.1:${port}`;
  const local = "localhost,127.0.0.1,::1";
  return {
    http_proxy: proxy,
    https_proxy: proxy,
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    no_proxy: local,
    NO_PROXY: local,
  };
}

/** What a verification in one of Harbor's modes found. */
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
  /** The candidate's processes kept running through the tests (they listened), with their sockets. */
  kept: { command: string; listening: string[] }[];
  /** How many of the candidate's processes were stopped for the tests. */
  stopped: number;
  /** The diff after the agent's exit. */
  changes: readonly FsChange[];
  /** Every request the verifier sent through the egress proxy, allowed or denied. */
  egress: EgressRequest[];
  /** The reward files' reading (null: test.sh did not run to its end). */
  reward: RewardVerdict | null;
}

/**
 * A Harbor-mode verification as the episode skeleton takes it (the
 * `VerifyResult` of `EpisodeSandbox.runVerifier`): the verdict's `resolved`
 * and failed checks, or the fault; the row's `verification` record (the
 * mode, the reward file whole, what decided, the hijacks found, the egress
 * requests allowed and denied) and test.sh's output tails.
 *
 * @param mode `shared` or `separate`
 * @param found what {@link runSharedVerifier} or {@link runSeparateVerifier} returned
 * @returns the result the row is classified from
 */
export function harborVerifyResult(
  mode: "shared" | "separate",
  found: SharedVerification,
): VerifyResult {
  const read = found.reward?.reward ?? null;
  const allowed = found.egress.filter((request) => request.allowed).length;
  const verification: VerificationRecord = {
    mode,
    reward: read === null ? null : { ...read.values },
    reward_file: read === null ? null : read.file,
    decided_by: found.reward?.kind === "verdict" ? found.reward.decidedBy : null,
    hijacks: found.hijacks.map(({ flag, path }) => ({ flag, path })),
    egress_allowed: allowed,
    egress_denied: found.egress.length - allowed,
    ...(mode === "shared" ? { kept_processes: found.kept, stopped_processes: found.stopped } : {}),
  };
  const parts = {
    verification,
    output: {
      stdout_tail: found.stdoutTail,
      stderr_tail: found.stderrTail,
      ...(mode === "shared" ? { changes: found.changes, processes: found.processes } : {}),
      egress: found.egress,
    },
  };
  return verifyResultOf(found.outcome, parts);
}

/** How the tests run, whichever the mode. */
interface TestRun {
  session: SandboxSession;
  workdir: string;
  /** Upload these tests to `/tests` (absent: the image has them). */
  tests?: string;
  settings: SharedVerifierSettings;
  /**
   * Host PIDs of the candidate's stopped processes that run again while
   * test.sh runs (they listen), watched for files held under `/logs/verifier`.
   */
  keptPids: readonly number[];
  /**
   * What of the candidate's was in its container when the tests began, so
   * that it could have left them without a verdict (shared mode): processes
   * it left, or a change to the `bash` that runs test.sh; null when nothing.
   */
  candidateTrace: string | null;
  /** The environment's own processes (from before the agent), left running after the tests. */
  environmentPids: ReadonlySet<number>;
  /** What the result carries besides the run (hijacks found before, snapshots). */
  base: Omit<
    SharedVerification,
    "outcome" | "exitCode" | "stdoutTail" | "stderrTail" | "rewardFiles" | "egress" | "reward"
  >;
}

/**
 * What Harbor's shared mode needs of a session: its own paths (the tests
 * go to `/tests`, the reward to `/logs/verifier`), its diff (the flags) and
 * control of its processes (the candidate's are stopped).
 */
export const SHARED_MODE_NEEDS: readonly (keyof SessionCapabilities)[] = [
  "ownFilesystem",
  "changes",
  "processControl",
];

/**
 * Runs Harbor's shared verifier in the candidate's live environment (see the module doc).
 *
 * @param environment the live session and what was seen of it around the agent
 * @param settings the tests, their frozen digest, the reward rule, user, variables, wall cap
 * @returns the verdict or the verifier's fault, with the output, the flags and the snapshots
 * @throws {SandboxError} when the engine fails, or `unsupported` when the
 *   backend lacks a capability of {@link SHARED_MODE_NEEDS}: a harness fault
 */
export async function runSharedVerifier(
  environment: SharedEnvironment,
  settings: SharedVerifierSettings,
): Promise<SharedVerification> {
  const { session } = environment;
  // It places the tests at /tests, flags from the diff, and stops the candidate's processes.
  requireCapabilities(session, SHARED_MODE_NEEDS, "Harbor's shared mode");
  const processes = await session.processes();
  const changes = environment.changesAfterAgent;
  const added = [...environment.workspaceAfter].filter((p) => !environment.workspaceBefore.has(p));
  // The candidate's processes: alive now and not the environment's own before the agent.
  const before = new Set(environment.processesBefore.map((p) => p.pid));
  const candidate = processes.filter((p) => !before.has(p.pid));
  const listening = await session.listeners(candidate.map((p) => p.pid));
  // Every process of the candidate's is stopped while the tests are copied in; those that listen
  // run again for test.sh alone.
  const stopped = (await session.stopAllBut(before)).filter((pid) => !listening.has(pid));
  const kept = candidate.filter((p) => listening.has(p.pid)).map((p) => ({
    command: p.command.slice(0, COMMAND_CHARS),
    listening: listening.get(p.pid)!,
  }));
  return await runHarborTests({
    session,
    workdir: environment.workdir,
    tests: settings.testsDir ?? settings.verifierDir,
    settings,
    keptPids: [...listening.keys()],
    environmentPids: before,
    candidateTrace: candidate.length > 0 || stopped.length > 0
      ? "processes the candidate left were in its container"
      : changedShell(changes, environment.path),
    base: {
      hijacks: sortedByPath([
        ...fileHijacks(changes, added, environment.workdir, environment.path),
        ...await pluginHijacks(session, changes),
      ]),
      processes,
      changes,
      kept,
      stopped: stopped.length,
    },
  });
}

/**
 * Gives a shared-mode environment back to the agent after a step's
 * verification (a multi-step task, `harbor_steps.ts`): the step's tests
 * and reward are removed (`/tests`, and `/logs/verifier` emptied, as
 * Harbor empties it: nothing of the hidden tests stays for the next step's
 * agent, seed 000, where Harbor leaves `/tests` in place), then every
 * process of the candidate's stopped for the tests runs again, so the
 * next step starts from the environment as the agent left it, as in
 * Harbor, where nothing is stopped.
 *
 * When the tests cannot be removed (the candidate's stopped processes may
 * hold every PID of the container), nothing runs again and the steps end
 * there: the next step's agent must not see them, and the steps verified
 * so far decide, as a gate that failed would.
 *
 * @param environment the live environment (its processes from before the agent are not the candidate's)
 * @returns whether the next step may run
 * @throws {SandboxError} when the engine fails (a harness fault)
 */
export async function reopenAfterStep(environment: SharedEnvironment): Promise<boolean> {
  const { session } = environment;
  const removed = await session.exec({
    argv: [
      session.busybox,
      "sh",
      "-c",
      'rm -rf /tests "$1" && mkdir -p "$1" && chmod 777 "$1"',
      "sh",
      HARBOR_VERIFIER_LOGS,
    ],
    user: "0:0",
    wallMs: 60_000,
  });
  if (removed.exitCode !== 0) return false;
  const before = new Set(environment.processesBefore.map((p) => p.pid));
  const candidate = (await session.processes()).filter((p) => !before.has(p.pid));
  await session.resume(candidate.map((p) => p.pid));
  return true;
}

/** Characters of a kept process's command line recorded on the row. */
const COMMAND_CHARS = 200;

/** Bytes read of each entry-point file the candidate added or changed. */
const ENTRY_POINTS_BYTES = 65536;

/** The `[pytest11]` entry points among the candidate's changes (`shared_hijacks.ts`). */
async function pluginHijacks(
  session: SandboxSession,
  changes: readonly FsChange[],
): Promise<Hijack[]> {
  const texts = new Map<string, string>();
  for (const path of entryPointFiles(changes)) {
    const bytes = await session.readFile(path, ENTRY_POINTS_BYTES);
    if (bytes !== null) texts.set(path, new TextDecoder().decode(bytes));
  }
  return pytestPluginHijacks(texts);
}

/** What the separate mode is given besides the settings. */
export interface SeparateVerifierJob {
  /** The candidate's live environment, to copy the verifier's inputs out of. */
  candidate: SandboxSession;
  /** The task's `artifacts` paths (absolute); `/logs/artifacts` is always copied too. */
  artifacts: readonly string[];
  /** Ends the candidate's environment, once its inputs are copied out. */
  endCandidate: () => Promise<void>;
  /** Starts the verifier's own environment. */
  startVerifier: () => Promise<
    { session: SandboxSession; workdir: string; end: () => Promise<void> }
  >;
  /** Whether the tests are uploaded (the verifier's environment is the task's own, fresh). */
  uploadTests: boolean;
  /**
   * Harbor's collect hooks (`verifier.collect`), each run by `/bin/sh -c`:
   * those of `main` in the candidate's environment before its inputs are
   * copied, the others in their sidecar once the candidate's container has
   * ended. How a hook ends is not a verdict: what it wrote is evidence.
   */
  collect?: readonly { service: string; command: string; timeoutMs: number; user?: string }[];
  /** Paths copied out of sidecars (`verifier.service_artifacts`), after the hooks. */
  serviceArtifacts?: readonly { service: string; path: string }[];
  /** A sidecar's session by its name; absent: the task has none. */
  service?: (name: string) => SandboxSession | undefined;
  /** Ends the sidecars, once their inputs are copied out; absent: none. */
  endServices?: () => Promise<void>;
}

/**
 * Runs Harbor's separate verifier (see the module doc): the verifier's
 * inputs copied out of the candidate's environment, that environment
 * ended, a fresh verifier environment started, the inputs restored at
 * their paths, and the tests run there.
 *
 * @param job the candidate's session, the artifact paths and the two environments' hooks
 * @param settings the tests, their frozen digest, the reward rule, user, variables, wall cap
 * @returns the verdict or the verifier's fault, with the output
 * @throws {SandboxError} when the engine fails (a harness fault)
 */
export async function runSeparateVerifier(
  job: SeparateVerifierJob,
  settings: SharedVerifierSettings,
): Promise<SharedVerification> {
  requireCapabilities(job.candidate, ["ownFilesystem"], "Harbor's separate mode");
  const inputs: { dir: string; archive: Uint8Array }[] = [];
  let budget = SEPARATE_ARTIFACT_BYTES;
  const copyOut = async (session: SandboxSession, path: string) => {
    const archive = await session.archiveOut(path, budget);
    if (archive === null) return;
    budget -= archive.length;
    inputs.push({ dir: path.slice(0, path.lastIndexOf("/")) || "/", archive });
  };
  const serviceOf = (name: string) => {
    const session = job.service?.(name);
    if (session === undefined) throw new Error(`The task has no service "${name}"`);
    return session;
  };
  const hooks = job.collect ?? [];
  const collect = async (hook: (typeof hooks)[number], session: SandboxSession) =>
    await session.exec({
      argv: ["/bin/sh", "-c", hook.command],
      ...(hook.user === undefined ? {} : { user: hook.user }),
      wallMs: hook.timeoutMs,
      signal: settings.signal,
    });
  for (const hook of hooks.filter((h) => h.service === "main")) await collect(hook, job.candidate);
  for (const path of ["/logs/artifacts", ...job.artifacts]) await copyOut(job.candidate, path);
  await job.endCandidate();
  // Harbor runs a sidecar's hooks once main has stopped: the agent cannot interfere with them.
  for (const hook of hooks.filter((h) => h.service !== "main")) {
    await collect(hook, serviceOf(hook.service));
  }
  for (const artifact of job.serviceArtifacts ?? []) {
    await copyOut(serviceOf(artifact.service), artifact.path);
  }
  await job.endServices?.();
  const verifier = await job.startVerifier();
  try {
    for (const input of inputs) await verifier.session.archiveIn(input.archive, input.dir);
    return await runHarborTests({
      session: verifier.session,
      workdir: verifier.workdir,
      tests: job.uploadTests ? settings.testsDir ?? settings.verifierDir : undefined,
      settings,
      keptPids: [],
      environmentPids: new Set(),
      candidateTrace: null,
      base: { hijacks: [], processes: [], changes: [], kept: [], stopped: 0 },
    });
  } finally {
    await verifier.end();
  }
}

/** The tests' run, whichever the mode (see the module doc). */
async function runHarborTests(run: TestRun): Promise<SharedVerification> {
  const { session, settings, base: found } = run;
  const base = {
    ...found,
    exitCode: null,
    stdoutTail: "",
    stderrTail: "",
    rewardFiles: { "reward.txt": null, "reward.json": null },
    egress: [],
    reward: null,
  };
  const { digest, entries } = await digestTree(settings.verifierDir);
  // The frozen entries of what goes to /tests: all of verifierDir, or one step's directory in it.
  const inside = run.tests === undefined || run.tests === settings.verifierDir
    ? ""
    : `${run.tests.slice(settings.verifierDir.length + 1)}/`;
  if (inside !== "" && !run.tests!.startsWith(`${settings.verifierDir}/`)) {
    throw new Error(`The tests "${run.tests}" are not inside "${settings.verifierDir}"`);
  }
  const uploaded = entries.filter((entry) => entry.path.startsWith(inside))
    .map((entry) => ({ ...entry, path: entry.path.slice(inside.length) }));
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
  // Python's bytecode cache of the test run: a fresh directory no one could name before, so
  // a `.pyc` the candidate left in any `__pycache__` is never loaded (PYTHONPYCACHEPREFIX,
  // "sys.pycache_prefix", Python's documentation).
  const pycache = `/tmp/ledgerbench-pycache-${randomHex(16)}`;
  const reset = await session.exec({
    argv: [
      session.busybox,
      "sh",
      "-c",
      'for p in "$@"; do rm -rf "$p"; done && { [ ! -L /logs ] || rm -f /logs; } && ' +
      'mkdir -p "$@" && chmod 777 "$1" && mkdir -m 1777 "$0"',
      pycache,
      HARBOR_VERIFIER_LOGS,
      ...(run.tests === undefined ? [] : ["/tests"]),
    ],
    user: "0:0",
    wallMs: 60_000,
  });
  if (reset.exitCode !== 0) {
    // Left processes can make it fail (every PID of the container taken): never invalid then.
    return {
      ...base,
      outcome: noVerdictOutcome(
        run.candidateTrace,
        "setup_failed",
        `Cannot empty ${HARBOR_VERIFIER_LOGS}: ${lastLines(reset.stderrTail)}`,
      ),
    };
  }
  if (run.tests !== undefined) await session.copyIn(run.tests, "/tests");

  const writers = new Map<string, Hijack>();
  const sample = async () => {
    for (const path of await openUnder(run.keptPids, HARBOR_VERIFIER_LOGS)) {
      writers.set(path, { flag: "verifier_log_writer", path });
    }
  };
  const sampler = run.keptPids.length === 0 ? undefined : setInterval(() => void sample(), 250);
  const allowHosts = settings.allowHosts ?? [];
  // The test run's root, once it has started (null once it is over): its tree alone uses the egress.
  let started: (pid: number | null) => void = () => {};
  const testRoot = new Promise<number | null>((resolve) => started = resolve);
  const egress = allowHosts.length === 0
    ? null
    : await openEgress(session, settings, allowHosts, testRoot);
  let tests;
  try {
    if (run.keptPids.length > 0) await session.resume(run.keptPids);
    tests = await session.exec({
      argv: ["bash", "/tests/test.sh"],
      env: {
        PYTHONPYCACHEPREFIX: pycache,
        ...settings.env,
        ...(egress === null ? {} : proxyEnvironment(EGRESS_PORT, egress.password)),
      },
      user: settings.user ?? "0:0",
      cwd: run.workdir,
      wallMs: settings.wallMs,
      signal: settings.signal,
      onStart: started,
    });
  } finally {
    started(null);
    clearInterval(sampler);
    await egress?.close();
  }
  await sample();
  // The tests are over: what was kept for them is stopped before the reward is read.
  if (run.keptPids.length > 0) await session.stopAllBut(run.environmentPids);
  const rewardFiles = {
    "reward.txt": await readText(session, `${HARBOR_VERIFIER_LOGS}/reward.txt`),
    "reward.json": await readText(session, `${HARBOR_VERIFIER_LOGS}/reward.json`),
  };
  const testsChanged = run.tests === undefined ? [] : await changedTests(session, uploaded);
  const result = {
    ...base,
    exitCode: tests.exitCode,
    stdoutTail: tests.stdoutTail,
    stderrTail: tests.stderrTail,
    rewardFiles,
    hijacks: sortedByPath([...found.hijacks, ...writers.values(), ...testsChanged]),
    egress: egress?.requests() ?? [],
  };
  const noVerdict = (fault: VerifierFaultCode, detail: string) =>
    noVerdictOutcome(run.candidateTrace, fault, detail);
  if (tests.aborted) {
    return {
      ...result,
      outcome: { kind: "fault", fault: "timeout", detail: "test.sh was stopped by the runner" },
    };
  }
  if (tests.wallCapHit) {
    const detail = `test.sh was killed at its wall cap of ${settings.wallMs} ms: ${
      lastLines(tests.stderrTail || tests.stdoutTail)
    }`;
    return {
      ...result,
      outcome: settings.oracleFinishedInTime === true && run.candidateTrace === null
        ? failedVerdict(
          TIMED_OUT_CHECK,
          `${detail}; on the oracle's answer the same tests finished within it at the suite ` +
            "check the plan froze, so the time was spent on the candidate's answer",
        )
        : noVerdict("timeout", detail),
    };
  }
  const parsed = parseRewardFiles(rewardFiles, settings.reward);
  if (parsed.kind === "verdict") {
    return { ...result, reward: parsed, outcome: { kind: "verdict", verdict: parsed.verdict } };
  }
  const oom = await session.oomKilled();
  return {
    ...result,
    reward: parsed,
    outcome: noVerdict(
      oom ? "out_of_memory" : parsed.fault,
      `${parsed.detail} (test.sh exited with code ${tests.exitCode}): ${
        lastLines(tests.stderrTail || tests.stdoutTail)
      }`,
    ),
  };
}

/** The failed check of a shared-mode test run that the candidate's processes left without a verdict. */
export const DISRUPTED_CHECK = "verifier_disrupted";

/** A verdict of one failed check: the candidate's scored failure. */
function failedVerdict(name: string, detail: string): SharedVerification["outcome"] {
  return {
    kind: "verdict",
    verdict: { schema_version: 1, resolved: false, checks: [{ name, passed: false, detail }] },
  };
}

/**
 * The outcome of a test run that gave no verdict: the verifier's fault,
 * unless something of the candidate's was in its container that could have
 * caused it (`TestRun.candidateTrace`); then the candidate's scored failure
 * (`verifier_disrupted`), as a candidate must never be able to choose an
 * invalid attempt (seed 000).
 */
function noVerdictOutcome(
  candidateTrace: string | null,
  fault: VerifierFaultCode,
  detail: string,
): SharedVerification["outcome"] {
  return candidateTrace !== null
    ? failedVerdict(
      DISRUPTED_CHECK,
      `The tests gave no verdict (${fault}: ${detail}) while ${candidateTrace}: a scored ` +
        "failure, as a candidate must never be able to choose an invalid attempt",
    )
    : { kind: "fault", fault, detail };
}

/**
 * Whether the candidate changed or removed the `bash` that runs test.sh
 * (Harbor runs `bash /tests/test.sh`): a `bash` in a directory of the
 * verifier's `PATH`, in the container's diff after the agent.
 *
 * @returns the trace to name, or null
 */
function changedShell(changes: readonly FsChange[], path: string): string | null {
  const dirs = new Set(path.split(":").filter((dir) => dir !== ""));
  const shell = changes.find((change) => {
    const slash = change.path.lastIndexOf("/");
    return change.path.slice(slash + 1) === "bash" && dirs.has(change.path.slice(0, slash) || "/");
  });
  return shell === undefined
    ? null
    : `the candidate had ${shell.kind} ${shell.path}, which runs test.sh`;
}

/** The failed check of a test run past its timeout whose tests finished in time on the oracle's answer. */
export const TIMED_OUT_CHECK = "tests_timed_out";

/** Bytes of `sha256sum` output read back from `/tests` after the run. */
const TESTS_LISTING_BYTES = 4 * 1024 ** 2;

/**
 * The `tests_changed` hijacks of a test run: each frozen test file that is
 * missing from `/tests` in the container or differs from its frozen
 * digest after the run, and each file added there that Python would load
 * (`.py`, `.pth`), caches and installed packages aside. An unreadable
 * listing flags `/tests` itself.
 */
async function changedTests(
  session: SandboxSession,
  frozen: readonly TreeEntry[],
): Promise<Hijack[]> {
  const listing = await session.exec({
    argv: [
      session.busybox,
      "find",
      "/tests",
      "-type",
      "f",
      "-exec",
      session.busybox,
      "sha256sum",
      "{}",
      ";",
    ],
    user: "0:0",
    wallMs: 60_000,
    tailBytes: TESTS_LISTING_BYTES,
  });
  if (listing.exitCode !== 0) return [{ flag: "tests_changed", path: "/tests" }];
  const found = new Map<string, string>();
  for (const line of listing.stdoutTail.split("\n")) {
    const match = /^([0-9a-f]{64}) {2}\/tests\/(.+)$/.exec(line);
    if (match !== null) found.set(match[2], match[1]);
  }
  const changed: Hijack[] = [];
  const frozenFiles = new Set<string>();
  for (const entry of frozen) {
    if (entry.type !== "file") continue;
    frozenFiles.add(entry.path);
    if (found.get(entry.path) !== entry.sha256) {
      changed.push({ flag: "tests_changed", path: `/tests/${entry.path}` });
    }
  }
  for (const path of found.keys()) {
    if (frozenFiles.has(path) || !/\.(py|pth)$/.test(path)) continue;
    if (/(^|\/)(__pycache__|\.pytest_cache|site-packages|dist-packages)\//.test(path)) continue;
    changed.push({ flag: "tests_changed", path: `/tests/${path}` });
  }
  return changed;
}

/**
 * The egress proxy of one test run: started on a socket of the runner's
 * (runner_socket_path.ts), reached from the sandbox's loopback
 * {@link EGRESS_PORT}, and serving only the test run's own processes: a
 * connection is admitted only when the process that opened it descends
 * from the test run's root (`testRoot`, read on the host when it connects),
 * and a request only when it carries the run's password (given to the test
 * run alone, {@link proxyEnvironment}). So a process the candidate left,
 * even one kept running for the tests that reads the password from
 * `/proc`, can neither use the verifier's egress nor spend or add to its
 * requests, which count the test run's alone. `close` ends the forwarder,
 * then the proxy (its records are final after).
 */
async function openEgress(
  session: SandboxSession,
  settings: SharedVerifierSettings,
  allowHosts: readonly string[],
  testRoot: Promise<number | null>,
): Promise<SandboxProxy & { password: string }> {
  const password = randomHex(24);
  const proxy = await openSandboxProxy(
    session,
    EGRESS_PORT,
    { allowHosts, connect: settings.egressResolve, password },
    "egress",
    async (client) => {
      const root = await testRoot;
      return client !== null && root !== null && await descendsFrom(client, root);
    },
  );
  return { ...proxy, password };
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

/** `bytes` random bytes as hexadecimal (a name or a password no one can guess). */
function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}
