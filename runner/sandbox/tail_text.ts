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
 * @param bytes the whole output
 * @param maxBytes how many trailing bytes to keep (at least 0)
 * @returns the decoded tail
 */
export function tailText(bytes: Uint8Array, maxBytes: number): string {
  const keep = Math.max(0, Math.floor(maxBytes));
  const decoder = new TextDecoder();
  if (bytes.length <= keep) return decoder.decode(bytes);
  const dropped = bytes.length - keep;
  return `[… ${dropped} earlier bytes omitted]\n${decoder.decode(bytes.subarray(dropped))}`;
}
