import assert from "node:assert/strict";
import {
  networkIsolationCheckable,
  networkIsolationProblem,
  type ProcReader,
} from "./network_isolation_problem.ts";
import { processInNewNamespace } from "./_namespace_process_for_test.ts";

// `unshare -n` and `ip link add` need root, as the runner's nsenter/setns forwarder does.
const ignore = Deno.build.os !== "linux" || Deno.uid() !== 0;

Deno.test({
  name: "networkIsolationProblem() accepts a namespace of its own with only loopback",
  ignore,
  async fn() {
    // The tests run with --allow-all, under which Deno lets /proc/<pid> be read.
    assert.equal(networkIsolationCheckable(), true);
    const isolated = await processInNewNamespace("ip link set lo up");
    try {
      assert.equal(networkIsolationProblem(isolated.pid), null);
    } finally {
      await isolated.stop();
    }
  },
});

Deno.test({
  name: "networkIsolationProblem() names the runner's own namespace and extra interfaces",
  ignore,
  async fn() {
    // The test process shares the runner's namespace by definition.
    assert.equal(networkIsolationProblem(Deno.pid), "it shares the runner's network namespace");
    // A veth pair inside the new namespace: two interfaces besides lo, in /proc/net/dev order.
    const wired = await processInNewNamespace("ip link add v0 type veth peer name v1");
    try {
      assert.match(
        networkIsolationProblem(wired.pid) ?? "",
        /^its network namespace has interfaces besides "lo": "v[01]", "v[01]"$/,
      );
    } finally {
      await wired.stop();
    }
    // pid 2^22 + 1 is above Linux's largest pid_max: a process that is gone has nothing to check.
    assert.equal(networkIsolationProblem(4_194_305), null);
  },
});

/** A `/proc` whose `stat` answers are taken in turn and whose `ns/net` read of pid 42 fails. */
function procWith(stats: (string | null)[], failure: Error): ProcReader {
  return {
    readLink(path) {
      if (path === "/proc/self/ns/net") return "net:[4026531840]";
      throw failure;
    },
    readText(path) {
      assert.equal(path, "/proc/42/stat");
      const stat = stats.shift();
      if (stat === undefined) throw new Error(`unexpected read of ${path}`);
      if (stat === null) throw new Deno.errors.NotFound(`No such file or directory: ${path}`);
      return stat;
    },
  };
}

// proc(5) layout: pid (comm) state, then fields 4..; field 22 (starttime) is 539248 or 539999.
// The command name holds ") " to show that fields are counted after the last ")".
const stat = (state: string, start: number) =>
  `42 (sh) x) ${state} 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 ${start} 3133440 407 0`;
const denied = new Deno.errors.PermissionDenied(
  "Permission denied (os error 13): readlink '/proc/42/ns/net'",
);

Deno.test("networkIsolationProblem() calls a denied read of a process that exited meanwhile no problem", () => {
  // The entry is gone after the failed read.
  assert.equal(
    networkIsolationProblem(42, { read: procWith([stat("S", 539248), null], denied) }),
    null,
  );
  // The process is a zombie after it.
  assert.equal(
    networkIsolationProblem(42, { read: procWith([stat("S", 539248), stat("Z", 539248)], denied) }),
    null,
  );
  // The pid now names another process (another start time).
  assert.equal(
    networkIsolationProblem(42, { read: procWith([stat("S", 539248), stat("S", 539999)], denied) }),
    null,
  );
  // ESRCH has no Deno error class; any failure other than NotFound is re-checked alike.
  const esrch = Object.assign(new Error("No such process (os error 3)"), { code: "ESRCH" });
  assert.equal(
    networkIsolationProblem(42, { read: procWith([stat("R", 539248), null], esrch) }),
    null,
  );
});

Deno.test("networkIsolationProblem() names a denied read of the same live process", () => {
  assert.equal(
    networkIsolationProblem(42, { read: procWith([stat("S", 539248), stat("S", 539248)], denied) }),
    "its network namespace cannot be read: Permission denied (os error 13): readlink '/proc/42/ns/net'",
  );
  // A stat unreadable before but readable and live after is no proof of exit either.
  assert.equal(
    networkIsolationProblem(42, { read: procWith([null, stat("S", 539248)], denied) }),
    "its network namespace cannot be read: Permission denied (os error 13): readlink '/proc/42/ns/net'",
  );
});

Deno.test("networkIsolationProblem() re-checks a shared namespace found as the process exited", () => {
  // ns/net readable and equal to the runner's own: a pid reused by a host process meanwhile.
  const shared = (stats: string[]): ProcReader => ({
    readLink: () => "net:[4026531840]",
    readText: (path) => path.endsWith("/stat") ? stats.shift()! : "h1\nh2\n    lo: 0 0\n",
  });
  assert.equal(
    networkIsolationProblem(42, { read: shared([stat("S", 539248), stat("S", 539999)]) }),
    null,
  );
  assert.equal(
    networkIsolationProblem(42, { read: shared([stat("S", 539248), stat("S", 539248)]) }),
    "it shares the runner's network namespace",
  );
});
