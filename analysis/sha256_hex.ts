/**
 * The one SHA-256 helper for whole values in memory: ledger tails, plan and
 * manifest texts, request bodies, figure specs. Hashes identify inputs and
 * outputs in every record meant for replay (house style rule 4).
 *
 * @module
 */
import { hash } from "node:crypto";

/**
 * Lower-case hex SHA-256 of `data`: a string is hashed as its UTF-8 bytes, a
 * byte array as is (only its view, for a `subarray`). Same as `sha256sum`.
 * O(size of the data); for a file too large to hold, stream it through
 * `createHash("sha256")` instead.
 *
 * @param data text (UTF-8) or bytes
 * @returns 64 lower-case hex digits
 * @example
 * ```ts
 * import { sha256Hex } from "./sha256_hex.ts";
 * // printf abc | sha256sum
 * const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
 * if (sha256Hex("abc") !== abc) throw new Error("text");
 * if (sha256Hex(new Uint8Array([0x61, 0x62, 0x63])) !== abc) throw new Error("bytes");
 * ```
 */
export function sha256Hex(data: string | Uint8Array): string {
  return hash("sha256", data, "hex");
}
