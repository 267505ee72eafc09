/**
 * Reading BuildKit's progress as the Docker engine streams it from a build
 * (`POST /build?version=2`): each `{"id":"moby.buildkit.trace","aux":…}`
 * line carries one base64 `StatusResponse` message of BuildKit's control API
 * (moby/buildkit `api/services/control/control.proto`). A failed build's
 * final error names only the command (`executor failed running [/bin/sh -c
 * …]: exit code: 3`); the trace says which step it was (`[3/3] RUN …`) and
 * what the step printed, which is what an author needs to fix the task.
 * Pure: no I/O.
 *
 * @module
 */

/** A build step as BuildKit reports it (control.proto `Vertex`: fields 1, 3 and 7). */
export interface BuildVertex {
  /** The step's digest, which its log lines name. */
  digest: string;
  /** What the step is, as BuildKit prints it (`[2/3] RUN make`). */
  name: string;
  /** The step's error; "" while it has none. */
  error: string;
}

/** What one step printed, each stream whole (BuildKit sends their chunks interleaved). */
export interface StepOutput {
  stdout: string;
  stderr: string;
}

/** What a build's trace holds: its steps (last report of each, in first-seen order) and each step's output. */
export interface BuildTrace {
  vertexes: BuildVertex[];
  /** Step digest → what the step printed, per stream (control.proto `VertexLog.stream`: 1, 2). */
  output: Map<string, StepOutput>;
}

/**
 * Collects the steps and their output from a build's stream of JSON
 * messages (one object per line, as the engine sends them).
 *
 * @param messages the parsed stream
 * @returns the trace's steps and output
 * @throws {RangeError} when a trace message is not a well-formed protobuf
 */
export function readBuildTrace(messages: readonly unknown[]): BuildTrace {
  const vertexes = new Map<string, BuildVertex>();
  const output = new Map<string, StepOutput>();
  for (const message of messages) {
    const { id, aux } = (message ?? {}) as { id?: unknown; aux?: unknown };
    if (id !== "moby.buildkit.trace" || typeof aux !== "string") continue;
    for (const [field, value] of protobufFields(base64Bytes(aux))) {
      if (field === 1 && value instanceof Uint8Array) {
        const vertex = { digest: "", name: "", error: "" };
        for (const [f, v] of protobufFields(value)) {
          if (!(v instanceof Uint8Array)) continue;
          if (f === 1) vertex.digest = utf8(v);
          if (f === 3) vertex.name = utf8(v);
          if (f === 7) vertex.error = utf8(v);
        }
        vertexes.set(vertex.digest, vertex);
      } else if (field === 3 && value instanceof Uint8Array) {
        let vertex = "";
        let stream = 1n;
        let text = "";
        for (const [f, v] of protobufFields(value)) {
          if (f === 1 && v instanceof Uint8Array) vertex = utf8(v);
          if (f === 3 && typeof v === "bigint") stream = v;
          if (f === 4 && v instanceof Uint8Array) text = utf8(v);
        }
        const step = output.get(vertex) ?? { stdout: "", stderr: "" };
        if (stream === 2n) step.stderr += text;
        else step.stdout += text;
        output.set(vertex, step);
      }
    }
  }
  return { vertexes: [...vertexes.values()], output };
}

/** The fields of one protobuf message (Protocol Buffers encoding): number and varint or bytes. */
function* protobufFields(bytes: Uint8Array): Generator<[number, bigint | Uint8Array]> {
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n;; shift += 7n) {
      if (at >= bytes.length) throw new RangeError("truncated varint in a BuildKit trace");
      const byte = bytes[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wireType = key & 7;
    if (wireType === 0) {
      yield [field, varint()];
    } else if (wireType === 2) {
      const length = Number(varint());
      if (at + length > bytes.length) throw new RangeError("truncated field in a BuildKit trace");
      yield [field, bytes.subarray(at, at + length)];
      at += length;
    } else if (wireType === 1 || wireType === 5) {
      at += wireType === 1 ? 8 : 4;
    } else {
      throw new RangeError(`wire type ${wireType} in a BuildKit trace`);
    }
  }
}

function base64Bytes(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

function utf8(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
