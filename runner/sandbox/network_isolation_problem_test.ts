import assert from "node:assert/strict";
import { networkIsolationCheckable, networkIsolationProblem } from "./network_isolation_problem.ts";
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
