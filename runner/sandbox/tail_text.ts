/**
 * Bounded tails of process output.
 *
 * @module
 */
import { concatBytes } from "../../analysis/concat_bytes.ts";

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

/**
 * The end of a byte stream as it arrives, bounded: the chunks covering its
 * last `keep` bytes at least (at most about twice that is held), and how
 * many bytes it had in all; {@link tailText} makes the text of it.
 */
export class ByteTail {
  #parts: Uint8Array[] = [];
  #held = 0;
  /** Bytes the stream had in all. */
  total = 0;

  /** @param keep how many trailing bytes must stay available */
  constructor(private readonly keep: number) {}

  /** Takes the next chunk (copied: the caller may reuse its buffer). */
  push(chunk: Uint8Array): void {
    this.#parts.push(chunk.slice());
    this.#held += chunk.length;
    this.total += chunk.length;
    while (this.#parts.length > 1 && this.#held - this.#parts[0].length >= 2 * this.keep) {
      this.#held -= this.#parts.shift()!.length;
    }
  }

  /** The bytes held: the stream's end. */
  bytes(): Uint8Array {
    return concatBytes(this.#parts);
  }

  /** The held end as text, at most `keep` bytes of it ({@link tailText}). */
  text(): string {
    return tailText(this.bytes(), this.keep, this.total);
  }
}
