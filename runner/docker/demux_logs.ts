/**
 * Splits Docker's multiplexed log stream.
 *
 * @module
 */
import { concatBytes } from "../../analysis/concat_bytes.ts";

/** The two streams of a container without a TTY. */
export interface DemuxedLogs {
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/**
 * Splits the byte stream the engine returns for a container without a TTY
 * into stdout and stderr. Format (Docker Engine API, "Stream format"): frames
 * of an 8-byte header `[stream, 0, 0, 0, size as big-endian uint32]` followed
 * by `size` bytes; stream 1 is stdout, 2 is stderr (0, stdin, is dropped). A
 * buffer that does not start with a valid header is returned whole as stdout
 * (TTY mode); a truncated last frame keeps the bytes present.
 *
 * Cost: O(n) time, one copy of the payload.
 *
 * @param bytes the raw log payload
 * @returns stdout and stderr bytes
 */
export function demuxLogs(bytes: Uint8Array): DemuxedLogs {
  const isHeader = (at: number) =>
    at + 8 <= bytes.length && bytes[at] <= 2 && bytes[at + 1] === 0 && bytes[at + 2] === 0 &&
    bytes[at + 3] === 0;
  if (bytes.length > 0 && !isHeader(0)) return { stdout: bytes.slice(), stderr: new Uint8Array() };
  const out: Uint8Array[] = [];
  const err: Uint8Array[] = [];
  let at = 0;
  while (at + 8 <= bytes.length) {
    const stream = bytes[at];
    const size = ((bytes[at + 4] << 24) >>> 0) + (bytes[at + 5] << 16) + (bytes[at + 6] << 8) +
      bytes[at + 7];
    const payload = bytes.subarray(at + 8, Math.min(at + 8 + size, bytes.length));
    if (stream === 1) out.push(payload);
    else if (stream === 2) err.push(payload);
    at += 8 + size;
  }
  return { stdout: concatBytes(out), stderr: concatBytes(err) };
}
