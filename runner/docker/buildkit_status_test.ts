import { deepEqual, equal, throws } from "node:assert/strict";
import { readBuildTrace } from "./buildkit_status.ts";

// A real stream: Docker 20.10.24 building testdata/buildkit_failed_run.Dockerfile with
// `version=2&networkmode=none`, whose RUN step prints a line to each stream and exits 3.
const messages = (await Deno.readTextFile(
  new URL("./testdata/buildkit_failed_run.jsonl", import.meta.url),
)).trim().split("\n").map((line) => JSON.parse(line));

Deno.test("readBuildTrace finds the failed step of a real BuildKit stream and what it printed", () => {
  const trace = readBuildTrace(messages);
  deepEqual(trace.vertexes.map((vertex) => vertex.name), [
    "[internal] load remote build context",
    "copy /context /",
    "[internal] load metadata for docker.io/ledgerbench/base:805948919750cdc4",
    "[2/3] COPY --chmod=755 hello.sh /hello.sh",
    '[3/3] RUN echo preparing;     echo "no such tool" >&2; exit 3',
    "[1/3] FROM docker.io/ledgerbench/base:805948919750cdc4",
  ]);
  const failed = trace.vertexes.filter((vertex) => vertex.error !== "");
  equal(failed.length, 1);
  equal(
    failed[0].error,
    'executor failed running [/bin/sh -c echo preparing;     echo "no such tool" >&2; exit 3]: ' +
      "exit code: 3",
  );
  deepEqual(trace.output.get(failed[0].digest), {
    stdout: "preparing\n",
    stderr: "no such tool\n",
  });
});

Deno.test("readBuildTrace ignores other messages and refuses a truncated trace", () => {
  deepEqual(readBuildTrace([{ stream: "Step 1/2\n" }, null, { id: "moby.image.id" }]), {
    vertexes: [],
    output: new Map(),
  });
  // A vertex field announcing 5 bytes with only 2 present.
  throws(
    () => readBuildTrace([{ id: "moby.buildkit.trace", aux: btoa("\x0a\x05ab") }]),
    RangeError,
  );
});
