/**
 * One byte array out of several, in order: the one join of byte chunks the
 * readers and the runner use (a ledger's carried partial line, an engine's
 * demultiplexed log, an upstream's streamed body, an import's batch of lines).
 *
 * @module
 */

/**
 * The parts copied end to end into one new array. O(total length).
 *
 * @param parts the byte arrays, in order
 * @returns a new array holding every part's bytes
 * @example
 * ```ts
 * import { concatBytes } from "./concat_bytes.ts";
 * const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array([]), new Uint8Array([3])]);
 * if (joined.join() !== "1,2,3") throw new Error();
 * ```
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
