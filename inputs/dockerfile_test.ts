import { deepEqual, equal } from "node:assert/strict";
import {
  dockerfileBases,
  dockerfileInstructions,
  firstBuildKitOnlyInstruction,
} from "./dockerfile.ts";

Deno.test("dockerfileInstructions() joins continued lines, skips comments and here-documents", () => {
  deepEqual(
    dockerfileInstructions(
      "# a comment\nFROM a \\\n  AS b\nRUN <<EOF\necho hi\nEOF\nCOPY x /y\n",
    ),
    [
      { keyword: "FROM", args: "a    AS b", line: 2 },
      { keyword: "RUN", args: "<<EOF", line: 4 },
      { keyword: "COPY", args: "x /y", line: 7 },
    ],
  );
});

Deno.test("dockerfileBases() names each base image with its line, not the file's own stages", () => {
  const text = [
    "# syntax=docker/dockerfile:1",
    "FROM --platform=linux/amd64 ledgerbench-test/python:abc AS build",
    "RUN python3 -c 'print(1)'",
    "FROM build",
    "FROM \\",
    "  scratch",
    "from ledgerbench/base:latest",
    "ARG BASE=x",
    "FROM $BASE",
  ].join("\n");
  deepEqual(dockerfileBases(text), [
    { ref: "ledgerbench-test/python:abc", line: 2 },
    { ref: "ledgerbench/base:latest", line: 7 },
    { ref: "$BASE", line: 9 },
  ]);
});

Deno.test("firstBuildKitOnlyInstruction() names the first instruction only BuildKit builds", () => {
  const first = (lines: string[]) => firstBuildKitOnlyInstruction(lines.join("\n"));
  // Harbor's hello-healthcheck: `COPY --chmod=755` (the legacy builder: "the --chmod option
  // requires BuildKit").
  deepEqual(first(["FROM a", "COPY --chown=1:1 x /x", "COPY --chmod=755 y /y"]), {
    line: 3,
    feature: "COPY --chmod",
  });
  deepEqual(first(["FROM a", "RUN --mount=type=cache,target=/c make"]), {
    line: 2,
    feature: "RUN --mount",
  });
  deepEqual(first(["FROM a", "RUN \\", "  --network=none make"]), {
    line: 2,
    feature: "RUN --network",
  });
  deepEqual(first(["FROM a", "COPY <<EOF /x", "hi", "EOF"]), {
    line: 2,
    feature: "COPY here-document",
  });
  // A flag of the command run, not of the instruction; `--chown` the legacy builder reads.
  equal(first(["FROM a", "RUN docker run --network host x", "ADD --chown=0:0 a /a"]), null);
});

Deno.test("dockerfileBases() names an image a COPY --from takes, not a stage's name or index", () => {
  const text = [
    "FROM python:3.12-slim AS build",
    "COPY --from=ghcr.io/astral-sh/uv:0.8.15 /uv /uvx /bin/",
    "FROM ubuntu:24.04",
    "COPY --from=build /app /app",
    "COPY --from=0 /etc/os-release /build-os",
    "COPY --chown=1:1 --from=busybox:1.36 /bin/busybox /bin/",
  ].join("\n");
  deepEqual(dockerfileBases(text), [
    { ref: "python:3.12-slim", line: 1 },
    { ref: "ghcr.io/astral-sh/uv:0.8.15", line: 2 },
    { ref: "ubuntu:24.04", line: 3 },
    { ref: "busybox:1.36", line: 6 },
  ]);
});
