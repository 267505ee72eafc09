/**
 * The conformance suite of the session seam (`sandbox_session.ts`): what
 * every backend's sessions must do for the protocols written on them (the
 * task environment's candidate, Harbor's shared and separate verifiers) to
 * keep their guarantees, checked on a live session, the way inspect_ai's
 * sandbox packages prove their contract with `self_check`. A backend that
 * declares a capability absent (`SessionCapabilities`) has those checks
 * reported `unsupported`, never passed.
 *
 * Every command runs through the runner's own busybox
 * ({@link SandboxSession.busybox}), which every session has, so the suite
 * needs nothing of the image. Its files go under `/conformance` in a
 * session with a filesystem of its own, else under the caller's directory
 * (the host's session, whose paths are the host's).
 *
 * @module
 */
import type { SandboxSession } from "./sandbox_session.ts";
import { descendsFrom } from "./_kill_descendants.ts";
import { SandboxError } from "./sandbox_error.ts";
import { procStat } from "../proc_stat.ts";

/** One check's outcome. */
export interface ConformanceResult {
  /** What is checked, as a sentence. */
  check: string;
  status: "passed" | "failed" | "unsupported";
  /** Why it failed, or which capability it needs; empty when passed. */
  detail: string;
}

/** What the suite is given: a live session, and what it needs to reach the sandbox from the host. */
export interface ConformanceTarget {
  session: SandboxSession;
  /** A host directory of the caller's, for files to copy in and the forwarded socket. */
  tempDir: string;
}

/** What a check is given: the target, and where its files go. */
interface CheckContext extends ConformanceTarget {
  /** The directory for the check's files, as a path in the session. */
  base: string;
}

type Check = {
  check: string;
  needs?: keyof SandboxSession["capabilities"];
  run: (context: CheckContext) => Promise<void>;
};

const bb = (session: SandboxSession, ...argv: string[]) => [session.busybox, ...argv];
/** Root in a session that runs processes as any user; the runner's own user elsewhere. */
const root = (session: SandboxSession) => session.capabilities.users ? { user: "0:0" } : {};
const text = (bytes: Uint8Array | null) => bytes === null ? null : new TextDecoder().decode(bytes);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

/** Runs a shell line as root and returns its stdout; a non-zero exit fails the check. */
async function sh(session: SandboxSession, line: string): Promise<string> {
  const run = await session.exec({
    argv: bb(session, "sh", "-c", line),
    ...root(session),
    wallMs: 30_000,
  });
  expect(run.exitCode === 0, `"${line}" exited ${run.exitCode}: ${run.stderrTail.trim()}`);
  return run.stdoutTail;
}

/** The session's processes whose command line holds `marker`. */
async function withMarker(session: SandboxSession, marker: string) {
  return (await session.processes()).filter((p) => p.command.includes(marker));
}

/** Host-side: whether a process is stopped (state `T`, proc(5)). */
async function stopped(pid: number): Promise<boolean> {
  return (await procStat(pid))?.state === "T";
}

/** A host unix socket that answers each connection with "from the host\n", then closes it. */
function greetingSocket(tempDir: string): { path: string; close(): Promise<void> } {
  const path = `${tempDir}/greeting-${crypto.randomUUID().slice(0, 8)}.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const serving = (async () => {
    for await (const conn of listener) {
      await conn.write(new TextEncoder().encode("from the host\n"));
      conn.close();
    }
  })().catch(() => {});
  return {
    path,
    close: async () => {
      listener.close();
      await serving;
    },
  };
}

const CHECKS: Check[] = [
  {
    check: "exec runs the argv with its env and cwd, and returns its exit code and output",
    async run({ session }) {
      const run = await session.exec({
        argv: bb(session, "sh", "-c", 'echo "$GREETING"; pwd; echo oops >&2; exit 7'),
        env: { GREETING: "hello" },
        ...root(session),
        cwd: "/",
        wallMs: 30_000,
      });
      expect(run.exitCode === 7, `exit code ${run.exitCode}, not 7`);
      expect(run.stdoutTail === "hello\n/\n", `stdout ${JSON.stringify(run.stdoutTail)}`);
      expect(run.stderrTail === "oops\n", `stderr ${JSON.stringify(run.stderrTail)}`);
      expect(!run.wallCapHit && !run.aborted, "marked killed");
    },
  },
  {
    check: "exec runs a process as the user it is asked for",
    needs: "users",
    async run({ session }) {
      const run = await session.exec({
        argv: bb(session, "id", "-u"),
        user: "65534:65534",
        wallMs: 30_000,
      });
      expect(run.stdoutTail === "65534\n", `uid ${JSON.stringify(run.stdoutTail)}`);
    },
  },
  {
    check: "exec kills a process and its descendants at the wall cap, and keeps the tail bounded",
    async run({ session }) {
      const box = session.busybox;
      const run = await session.exec({
        argv: bb(session, "sh", "-c", `${box} yes | ${box} head -c 200000; exec ${box} sleep 1001`),
        ...root(session),
        wallMs: 1_000,
        tailBytes: 1000,
      });
      expect(run.wallCapHit, "not marked as killed at its wall cap");
      // The last 1000 bytes, after the note of what was omitted (`tailText`).
      const omitted = /^\[… (\d+) earlier bytes omitted\]\n/.exec(run.stdoutTail);
      expect(
        omitted !== null && Number(omitted[1]) === 199_000 &&
          run.stdoutTail.length - omitted[0].length === 1000,
        `tail of ${run.stdoutTail.length} characters`,
      );
      if (session.capabilities.processControl) {
        expect((await withMarker(session, "sleep 1001")).length === 0, "its child outlived it");
      }
    },
  },
  {
    check: "exec kills a process when its signal aborts",
    async run({ session }) {
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 300);
      const run = await session.exec({
        argv: bb(session, "sleep", "1002"),
        ...root(session),
        wallMs: 30_000,
        signal: abort.signal,
      });
      expect(run.aborted && !run.wallCapHit, "not marked as aborted");
    },
  },
  {
    check:
      "copyIn copies a host directory's contents, owned by root (the runner's user on the host), modes kept",
    async run({ session, tempDir, base }) {
      const dir = await Deno.makeTempDir({ dir: tempDir });
      await Deno.mkdir(`${dir}/sub`);
      await Deno.writeTextFile(`${dir}/sub/run.sh`, "#!/bin/sh\necho ran\n", { mode: 0o750 });
      await Deno.chmod(`${dir}/sub/run.sh`, 0o750);
      await session.copyIn(dir, `${base}/in`);
      const listed = await sh(session, `stat -c '%u %a' ${base}/in/sub/run.sh`);
      const owner = session.capabilities.users ? 0 : Deno.uid();
      expect(listed === `${owner} 750\n`, `owner and mode "${listed.trim()}"`);
      expect(
        text(await session.readFile(`${base}/in/sub/run.sh`, 100)) === "#!/bin/sh\necho ran\n",
        "content differs",
      );
    },
  },
  {
    check: "readFile reads at most maxBytes of a regular file, and null for anything else, at once",
    async run({ session, base }) {
      const r = `${base}/r`;
      await sh(session, `mkdir -p ${r} && printf 0123456789 > ${r}/f && mkfifo ${r}/fifo`);
      expect(text(await session.readFile(`${r}/f`, 4)) === "0123", "not bounded");
      expect(await session.readFile(`${r}/absent`, 4) === null, "an absent file read");
      expect(await session.readFile(r, 4) === null, "a directory read");
      expect(await session.readFile(`${r}/fifo`, 4) === null, "a fifo read");
    },
  },
  {
    check:
      "archiveOut and archiveIn carry a tree between sessions; an absent path is null; past maxBytes too_large",
    async run({ session, base }) {
      await sh(session, `mkdir -p ${base}/a/d && echo x > ${base}/a/d/f`);
      const archive = await session.archiveOut(`${base}/a`, 1024 ** 2);
      expect(archive !== null, "no archive");
      await session.archiveIn(archive!, `${base}/b`);
      expect(text(await session.readFile(`${base}/b/a/d/f`, 10)) === "x\n", "not restored");
      expect(
        await session.archiveOut(`${base}/absent`, 1024) === null,
        "an absent path archived",
      );
      let code = "";
      try {
        await session.archiveOut(`${base}/a`, 100);
      } catch (error) {
        code = error instanceof SandboxError ? error.code : String(error);
      }
      expect(code === "too_large", `past maxBytes: ${code || "no error"}`);
    },
  },
  {
    check: "changes lists what was added and modified against the image",
    needs: "changes",
    async run({ session }) {
      await sh(session, "echo new > /conformance-added && echo more >> /etc/passwd");
      const changes = await session.changes();
      const kind = (path: string) => changes.find((c) => c.path === path)?.kind;
      expect(kind("/conformance-added") === "added", `added file: ${kind("/conformance-added")}`);
      expect(kind("/etc/passwd") === "modified", `modified file: ${kind("/etc/passwd")}`);
    },
  },
  {
    check: "writableBytes counts what is written to its own filesystem",
    needs: "changes",
    async run({ session }) {
      const before = await session.writableBytes();
      await sh(session, "dd if=/dev/zero of=/conformance-bytes bs=65536 count=32 2>/dev/null");
      const after = await session.writableBytes();
      expect(before !== null && after !== null, `writableBytes: ${before} then ${after}`);
      expect(after! - before! >= 2 * 1024 ** 2, `2 MiB written, counted ${after! - before!} bytes`);
      await sh(session, "rm /conformance-bytes");
    },
  },
  {
    check:
      "processes lists the sandbox's processes with host PIDs; listeners names their listening sockets",
    needs: "processControl",
    async run({ session }) {
      await sh(
        session,
        `setsid ${session.busybox} nc -l -p 18555 -e ${session.busybox} echo hi >/dev/null 2>&1 & ` +
          `setsid ${session.busybox} sleep 1003 >/dev/null 2>&1 &`,
      );
      let found: Map<number, string[]> = new Map();
      let pids: number[] = [];
      for (let i = 0; i < 50 && found.size === 0; i++) {
        await pause(100);
        pids = (await session.processes()).map((p) => p.pid);
        found = await session.listeners(pids);
      }
      const listener = (await withMarker(session, "18555"))[0];
      const sleeper = (await withMarker(session, "sleep 1003"))[0];
      expect(listener !== undefined && sleeper !== undefined, "a started process is not listed");
      expect(
        await Deno.stat(`/proc/${listener.pid}`).then(() => true, () => false),
        "not a host PID",
      );
      expect(
        ["tcp 0.0.0.0:18555", "tcp [::]:18555"].includes(found.get(listener.pid)?.join() ?? ""),
        `the listener's sockets: ${JSON.stringify(found.get(listener.pid))}`,
      );
      expect(!found.has(sleeper.pid), "a process without a socket listed as listening");
    },
  },
  {
    check:
      "stopAllBut stops every process but those kept, and those forked meanwhile; resume lets them run",
    needs: "processControl",
    async run({ session }) {
      await sh(
        session,
        // A loop that forks a child every 10 ms, one at a time: a fan-out would fill the
        // sandbox's pids limit with stopped children and leave the session unable to fork.
        `setsid sh -c 'while :; do ${session.busybox} sleep 0.01; done' >/dev/null 2>&1 & ` +
          `setsid ${session.busybox} sleep 1004 >/dev/null 2>&1 &`,
      );
      await pause(300);
      const kept = (await withMarker(session, "sleep 1004"))[0];
      expect(kept !== undefined, "the process to keep is not listed");
      const stoppedPids = await session.stopAllBut(new Set([kept.pid]));
      expect(stoppedPids.length > 0, "nothing stopped");
      const loop = (await withMarker(session, "while :"))[0];
      expect(loop !== undefined && await stopped(loop.pid), "the forking loop runs on");
      expect(!(await stopped(kept.pid)), "the kept process was stopped");
      // resume lets a stopped process run again, and no other.
      await session.stopAllBut(new Set());
      // stopAllBut returns once what it stopped is seen stopped.
      expect(await stopped(kept.pid), "stopAllBut(none) left a process running");
      await session.resume([kept.pid]);
      // A signal takes effect when its process next runs.
      for (let i = 0; i < 100 && await stopped(kept.pid); i++) await pause(10);
      expect(
        !(await stopped(kept.pid)) && await stopped(loop.pid),
        "resume let the wrong ones run",
      );
      // None appears once all are stopped (one that exited may be gone: its parent was stopped later).
      const before = new Set((await session.processes()).map((p) => p.pid));
      await pause(300);
      const appeared = (await session.processes()).filter((p) => !before.has(p.pid));
      expect(appeared.length === 0, `processes still appear: ${appeared.map((p) => p.command)}`);
      // Leave the session to the next check as found: the loop and what it forked, killed.
      for (const p of await session.processes()) {
        if (p.command.includes("while :") || p.command.includes("sleep 0.01")) {
          Deno.kill(p.pid, "SIGKILL");
        }
      }
    },
  },
  {
    check:
      "forwardPort makes a host unix socket reachable on the sandbox's loopback, on the port it returns",
    async run({ session, tempDir }) {
      const greeting = greetingSocket(tempDir);
      const forward = await session.forwardPort(0, greeting.path);
      try {
        const out = await sh(
          session,
          `for i in $(seq 50); do o=$(nc 127.0.0.1 ${forward.port} </dev/null) && [ -n "$o" ] && ` +
            `{ echo "$o"; exit 0; }; sleep 0.1; done; exit 1`,
        );
        expect(out === "from the host\n", `read ${JSON.stringify(out)}`);
      } finally {
        await forward.close();
        await greeting.close();
      }
    },
  },
  {
    check:
      "forwardPort's admit is told the process that opened each connection; one refused gets nothing",
    needs: "processControl",
    async run({ session, tempDir }) {
      const greeting = greetingSocket(tempDir);
      let allow = false;
      let rootPid: Promise<number> = Promise.resolve(0);
      const told: boolean[] = [];
      const forward = await session.forwardPort(0, greeting.path, {
        admit: async (pid) => {
          told.push(pid !== null && await descendsFrom(pid, await rootPid));
          return allow;
        },
      });
      const connect = async () => {
        let started: (pid: number) => void = () => {};
        rootPid = new Promise((resolve) => started = resolve);
        const run = await session.exec({
          argv: bb(
            session,
            "sh",
            "-c",
            `${session.busybox} nc 127.0.0.1 ${forward.port} </dev/null`,
          ),
          ...root(session),
          wallMs: 30_000,
          onStart: started,
        });
        started(0);
        return run.stdoutTail;
      };
      try {
        const refused = await connect();
        allow = true;
        const served = await connect();
        expect(refused === "", `a refused connection read ${JSON.stringify(refused)}`);
        expect(
          served === "from the host\n",
          `an admitted connection read ${JSON.stringify(served)}`,
        );
        expect(
          told.length === 2 && told.every(Boolean),
          `admit was not told the connecting process: ${JSON.stringify(told)}`,
        );
      } finally {
        await forward.close();
        await greeting.close();
      }
    },
  },
  {
    check: "oomKilled is false when no process of the sandbox was killed for memory",
    async run({ session }) {
      expect(!(await session.oomKilled()), "an OOM kill reported");
    },
  },
];

/**
 * Runs every check against a live session, in order (a later check may
 * rely on what an earlier one left; the session should be fresh and is
 * left dirty: processes stopped, files under `/conformance`).
 *
 * @param target the session and a host directory of the caller's
 * @returns one result per check
 */
export async function sessionConformance(target: ConformanceTarget): Promise<ConformanceResult[]> {
  const results: ConformanceResult[] = [];
  const base = target.session.capabilities.ownFilesystem
    ? "/conformance"
    : `${target.tempDir}/conformance`;
  for (const { check, needs, run } of CHECKS) {
    if (needs !== undefined && !target.session.capabilities[needs]) {
      results.push({ check, status: "unsupported", detail: `needs the capability "${needs}"` });
      continue;
    }
    try {
      await run({ ...target, base });
      results.push({ check, status: "passed", detail: "" });
    } catch (error) {
      results.push({ check, status: "failed", detail: (error as Error).message });
    }
  }
  return results;
}
