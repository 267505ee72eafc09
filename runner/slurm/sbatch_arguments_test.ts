import { deepEqual, throws } from "node:assert/strict";
import { type JobArraySpec, sbatchArguments } from "./sbatch_arguments.ts";

const SPEC: JobArraySpec = {
  script: "#!/bin/sh\ntrue\n",
  indices: 40,
  jobName: "ledgerbench-run1",
  workDir: "/shared/run1",
  outputPattern: "slurm-%A_%a.log",
};

Deno.test("sbatchArguments() puts the extra arguments first and every given option after", () => {
  deepEqual(
    sbatchArguments({
      ...SPEC,
      concurrency: 8,
      partition: "debug",
      account: "lab",
      timeLimitMinutes: 30,
      comment: "runner=vm:1234",
      extraArgs: ["--no-requeue", "--qos=high", "--array=0-1"],
    }),
    [
      "--no-requeue",
      "--qos=high",
      "--array=0-1",
      "--parsable",
      "--array=0-39%8",
      "--job-name=ledgerbench-run1",
      "--chdir=/shared/run1",
      "--output=slurm-%A_%a.log",
      "--export=ALL",
      "--partition=debug",
      "--account=lab",
      "--time=30",
      "--comment=runner=vm:1234",
    ],
  );
});

Deno.test("sbatchArguments() submits one task as --array=0-0", () => {
  deepEqual(sbatchArguments({ ...SPEC, indices: 1 }).slice(0, 2), ["--parsable", "--array=0-0"]);
});

Deno.test("sbatchArguments() refuses values that are out of range or could be misread", () => {
  const cases: [Partial<JobArraySpec>, RegExp][] = [
    [{ script: "sleep 1\n" }, /option "script" is "sleep 1\\n": it must start with "#!"/],
    [{ indices: 0 }, /option "indices" is 0: it must be a whole number from 1 to 4000001/],
    [{ indices: 2.5 }, /option "indices" is 2.5/],
    [{ concurrency: 0 }, /option "concurrency" is 0/],
    [{ timeLimitMinutes: 0.5 }, /option "timeLimitMinutes" is 0.5/],
    [{ jobName: "two words" }, /option "jobName" is "two words": it must be 1 to 200 characters/],
    [{ jobName: "" }, /option "jobName" is ""/],
    [{ comment: "a\nJobState=COMPLETED" }, /option "comment"/],
    [{ partition: "de bug" }, /option "partition"/],
    [{ account: "\t" }, /option "account"/],
    [
      { workDir: "relative/dir" },
      /option "workDir" is "relative\/dir": it must be an absolute path/,
    ],
    [{ outputPattern: "" }, /option "outputPattern" is ""/],
    [{ extraArgs: ["--qos", "high"] }, /option "extraArgs" is "high": it must hold options/],
  ];
  for (const [change, message] of cases) {
    throws(() => sbatchArguments({ ...SPEC, ...change }), message, JSON.stringify(change));
  }
});
