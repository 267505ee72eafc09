/**
 * The worker behind the ledger reader's off-thread line hashing (see
 * `_line_hashes.ts`): receives the ledger's chunks in order, splits them at
 * `\n` exactly as `scanJsonl` does, and answers each chunk with the SHA-256
 * (hex, 64 characters each, concatenated) of every line the chunk completes.
 * The first message may carry the bytes of a line already begun.
 *
 * @module
 */
import { hash } from "node:crypto";

const NEWLINE = 10;
let carry: Uint8Array | null = null;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Hex SHA-256 of each line `chunk` completes, joined; keeps the unfinished tail. */
function hashLines(chunk: Uint8Array): string {
  const hexes: string[] = [];
  let start = 0;
  let end = chunk.indexOf(NEWLINE, start);
  while (end !== -1) {
    let bytes = chunk.subarray(start, end);
    if (carry !== null) {
      bytes = concat(carry, bytes);
      carry = null;
    }
    hexes.push(hash("sha256", bytes, "hex"));
    start = end + 1;
    end = chunk.indexOf(NEWLINE, start);
  }
  if (start < chunk.length) {
    const rest = chunk.slice(start);
    carry = carry === null ? rest : concat(carry, rest);
  }
  return hexes.join("");
}

interface Message {
  /** The unfinished line before the first chunk (first message only). */
  carry?: Uint8Array;
  chunk: Uint8Array;
}

/** The worker's global scope, typed for the two members this file uses. */
const scope = self as unknown as {
  onmessage: (event: MessageEvent<Message>) => void;
  postMessage: (hexes: string) => void;
};

scope.onmessage = (event) => {
  if (event.data.carry !== undefined && event.data.carry.length > 0) carry = event.data.carry;
  scope.postMessage(hashLines(event.data.chunk));
};
