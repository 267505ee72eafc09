import { deepEqual } from "node:assert/strict";
import { dockerfileBases, dockerfileInstructions } from "./dockerfile.ts";

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
