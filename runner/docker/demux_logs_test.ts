import assert from "node:assert/strict";
import { demuxLogs } from "./demux_logs.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function frame(stream: number, payload: string): number[] {
  const bytes = new TextEncoder().encode(payload);
  const n = bytes.length;
  return [stream, 0, 0, 0, (n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255, ...bytes];
}

Deno.test("demuxLogs() splits interleaved stdout and stderr frames", () => {
  // The payload the engine returned for `echo hi; echo err >&2` (seen on engine 20.10).
  const raw = new Uint8Array([
    ...frame(1, "hi\n"),
    ...frame(2, "err\n"),
    ...frame(1, "bye\n"),
    ...frame(0, "stdin is dropped"),
  ]);
  const { stdout, stderr } = demuxLogs(raw);
  assert.equal(text(stdout), "hi\nbye\n");
  assert.equal(text(stderr), "err\n");
});

Deno.test("demuxLogs() reads a frame larger than 255 bytes and a truncated last frame", () => {
  const long = "x".repeat(70_000); // size bytes 00 01 11 70
  const truncated = frame(2, "partial").slice(0, 8 + 3);
  const { stdout, stderr } = demuxLogs(new Uint8Array([...frame(1, long), ...truncated]));
  assert.equal(stdout.length, 70_000);
  assert.equal(text(stderr), "par");
});

Deno.test("demuxLogs() returns raw TTY output as stdout", () => {
  const { stdout, stderr } = demuxLogs(new TextEncoder().encode("plain output\n"));
  assert.equal(text(stdout), "plain output\n");
  assert.equal(stderr.length, 0);
  assert.equal(demuxLogs(new Uint8Array()).stdout.length, 0);
});
