/**
 * Bounded tails of process output.
 *
 * @module
 */

/**
 * The last `maxBytes` bytes of a byte stream, decoded as UTF-8 (invalid
 * sequences, including one split by the cut, become U+FFFD). When bytes were
 * dropped the text starts with `[… <n> earlier bytes omitted]\n`.
 *
 * @param bytes the whole output, or its end when the collector kept only that
 * @param maxBytes how many trailing bytes to keep (at least 0)
 * @param totalBytes how many bytes the output had in all (default: `bytes` is all of it)
 * @returns the decoded tail
 * @example
 * ```ts
 * import { tailText } from "./tail_text.ts";
 * const end = new TextEncoder().encode("abcdef");
 * if (tailText(end, 2, 1000) !== "[… 998 earlier bytes omitted]\nef") throw new Error();
 * ```
 */
export function tailText(bytes: Uint8Array, maxBytes: number, totalBytes = bytes.length): string {
  const keep = Math.max(0, Math.floor(maxBytes));
  const decoder = new TextDecoder();
  if (totalBytes <= keep) return decoder.decode(bytes);
  const kept = Math.min(keep, bytes.length);
  return `[… ${totalBytes - kept} earlier bytes omitted]\n${
    decoder.decode(bytes.subarray(bytes.length - kept))
  }`;
}
