import { deepEqual, throws } from "node:assert/strict";
import { dockerfileBases, TaskEnvironmentError } from "./task_environments.ts";

Deno.test("dockerfileBases() names each base image with its line, not the file's own stages", () => {
  const text = [
    "# syntax=docker/dockerfile:1",
    "FROM --platform=linux/amd64 ledgerbench-test/python:abc AS build",
    "RUN python3 -c 'print(1)'",
    "FROM build",
    "FROM \\",
    "  scratch",
    "from ledgerbench/base:latest",
  ].join("\n");
  deepEqual(dockerfileBases(text, "Dockerfile"), [
    { ref: "ledgerbench-test/python:abc", line: 2 },
    { ref: "ledgerbench/base:latest", line: 7 },
  ]);
  throws(
    () => dockerfileBases("ARG BASE=x\nFROM $BASE\n", "env/Dockerfile"),
    new TaskEnvironmentError(
      'env/Dockerfile:2: FROM "$BASE" uses a build argument; name the base image itself',
    ),
  );
});
