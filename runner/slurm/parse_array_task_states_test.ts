/**
 * The parser on `scontrol show job -o` output captured from the single-node
 * cluster of .ci/install_slurm.sh (Slurm 22.05.8) by
 * testdata/capture_fixtures.sh; each expected value is read off the fixture.
 */
import { deepEqual, equal, throws } from "node:assert/strict";
import { type ArrayTaskState, parseArrayTaskStates } from "./parse_array_task_states.ts";

const TESTDATA = new URL("./testdata/", import.meta.url);

function fixture(name: string): string {
  return Deno.readTextFileSync(new URL(name, TESTDATA));
}

/** Each task as `state reason nodeList status:signal restarts`, for compact expectations. */
function summary(tasks: Map<number, ArrayTaskState>): Record<number, string> {
  return Object.fromEntries(
    [...tasks].map(([id, t]) => [
      id,
      `${t.state} ${t.reason} ${t.nodeList || "-"} ${
        t.exitCode ? `${t.exitCode.status}:${t.exitCode.signal}` : "-"
      } ${t.restarts}`,
    ]),
  );
}

Deno.test("parseArrayTaskStates() expands the pending range behind running tasks", () => {
  // --array=0-4%2: tasks 0 and 1 run, 2-4 wait in one record "2-4%2".
  deepEqual(summary(parseArrayTaskStates(fixture("pending_range_running.txt"), "45")), {
    0: "RUNNING None vm 0:0 0",
    1: "RUNNING None vm 0:0 0",
    2: "PENDING JobArrayTaskLimit - 0:0 0",
    3: "PENDING JobArrayTaskLimit - 0:0 0",
    4: "PENDING JobArrayTaskLimit - 0:0 0",
  });
});

Deno.test("parseArrayTaskStates() reads a cancelled task and leaves out one cancelled while pending", () => {
  // scancel 45_1 (running) 45_3 (pending): 1 is CANCELLED by SIGTERM, 3 is gone, 2 started.
  deepEqual(summary(parseArrayTaskStates(fixture("cancelled_task.txt"), "45")), {
    0: "RUNNING None vm 0:0 0",
    1: "CANCELLED None vm 0:15 0",
    2: "RUNNING None vm 0:0 0",
    4: "PENDING JobArrayTaskLimit - 0:0 0",
  });
});

Deno.test("parseArrayTaskStates() reads a list of ranges with gaps", () => {
  // --array=0-6%1, 0 running, 3 and 5 cancelled while pending: "1-2,4,6%1".
  deepEqual(summary(parseArrayTaskStates(fixture("pending_gaps.txt"), "49")), {
    0: "RUNNING None vm 0:0 0",
    1: "PENDING JobArrayTaskLimit - 0:0 0",
    2: "PENDING JobArrayTaskLimit - 0:0 0",
    4: "PENDING JobArrayTaskLimit - 0:0 0",
    6: "PENDING JobArrayTaskLimit - 0:0 0",
  });
});

Deno.test("parseArrayTaskStates() gives a cancelled pending range's state to each of its tasks", () => {
  // --array=0-3 --hold, then scancel of the whole array.
  deepEqual(summary(parseArrayTaskStates(fixture("cancelled_pending_range.txt"), "51")), {
    0: "CANCELLED JobHeldUser - 0:0 0",
    1: "CANCELLED JobHeldUser - 0:0 0",
    2: "CANCELLED JobHeldUser - 0:0 0",
    3: "CANCELLED JobHeldUser - 0:0 0",
  });
});

Deno.test("parseArrayTaskStates() reads exit statuses of completed and failed tasks", () => {
  // Each task exits with its own task id.
  deepEqual(summary(parseArrayTaskStates(fixture("completed_failed.txt"), "52")), {
    0: "COMPLETED None vm 0:0 0",
    1: "FAILED NonZeroExitCode vm 1:0 0",
    2: "FAILED NonZeroExitCode vm 2:0 0",
  });
});

Deno.test("parseArrayTaskStates() reads what a node set down does to running tasks", () => {
  // scontrol update nodename=vm state=down under a running task:
  // with --no-requeue it ends NODE_FAIL, with --requeue it waits again, restarted once.
  deepEqual(summary(parseArrayTaskStates(fixture("node_down_no_requeue.txt"), "55")), {
    0: "NODE_FAIL NodeDown vm 0:15 0",
  });
  deepEqual(summary(parseArrayTaskStates(fixture("node_down_requeue.txt"), "56")), {
    0: "PENDING BeginTime - 0:0 1",
  });
});

Deno.test("parseArrayTaskStates() reads a timeout and ignores a fake field in the comment", () => {
  // --time=1 on sleep 120, --job-name='timeout test' --comment='a comment JobState=FAKE'.
  deepEqual(summary(parseArrayTaskStates(fixture("timeout.txt"), "57")), {
    0: "TIMEOUT TimeLimit vm 0:15 0",
  });
});

Deno.test("parseArrayTaskStates() skips other jobs and reads nothing from no text", () => {
  equal(parseArrayTaskStates(fixture("timeout.txt"), "58").size, 0);
  equal(parseArrayTaskStates("", "57").size, 0);
  equal(parseArrayTaskStates("\n\n", "57").size, 0);
});

Deno.test("parseArrayTaskStates() lets a task's own record win over a range naming it", () => {
  const text = "JobId=9 ArrayJobId=9 ArrayTaskId=0-2 JobState=PENDING Reason=Resources\n" +
    "JobId=10 ArrayJobId=9 ArrayTaskId=1 JobState=RUNNING Reason=None NodeList=n1";
  deepEqual(summary(parseArrayTaskStates(text, "9")), {
    0: "PENDING Resources - - 0",
    1: "RUNNING None n1 - 0",
    2: "PENDING Resources - - 0",
  });
});

Deno.test("parseArrayTaskStates() refuses a record of the job it cannot read", () => {
  throws(
    () => parseArrayTaskStates("JobId=9 ArrayJobId=9 ArrayTaskId=N/A JobState=RUNNING", "9"),
    /Cannot read scontrol record 1 of job 9: Cannot parse the array task ids "N\/A"/,
  );
  throws(
    () => parseArrayTaskStates("JobId=9 ArrayJobId=9 ArrayTaskId=0 JobState=running now", "9"),
    /field "JobState" is "running now", not a Slurm job state/,
  );
  throws(
    () => parseArrayTaskStates("JobId=9 ArrayJobId=9 ArrayTaskId=0", "9"),
    /field "JobState" is "", not a Slurm job state/,
  );
});
