/**
 * The one SHA-256 helper: whole values in memory (ledger tails, plan and
 * manifest texts, request bodies, figure specs) and byte streams (a
 * ledger's file hash). Hashes identify inputs and outputs in every record
 * meant for replay (house style rule 4).
 *
 * The digests come from libcrypto through FFI where the process may load
 * it (`_libcrypto_sha256.ts`), else from `node:crypto`, loaded on the first
 * hash only (`process.getBuiltinModule`): importing it at module load cost
 * every command about 15 ms of start-up (issue 23). Both give the same
 * digests (`sha256_hex_test.ts` checks them against each other).
 *
 * @module
 */
import { libcryptoSha256 } from "./_libcrypto_sha256.ts";

type NodeCrypto = typeof import("node:crypto");

/** `node:crypto`, loaded on first use. */
let nodeCrypto: NodeCrypto | undefined;

function node(): NodeCrypto {
  const process = (globalThis as unknown as {
    process: { getBuiltinModule(id: "node:crypto"): NodeCrypto };
  }).process;
  return nodeCrypto ??= process.getBuiltinModule("node:crypto");
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();

/** Lower-case hex of 32 digest bytes. */
function hexOf(out: Uint8Array): string {
  let text = "";
  for (let i = 0; i < out.length; i++) text += HEX[out[i]];
  return text;
}

/** Options of {@link sha256Hex} and {@link sha256Stream}. */
export interface Sha256Options {
  /** Use libcrypto when available (default true); false: always `node:crypto`. */
  native?: boolean;
}

/**
 * Lower-case hex SHA-256 of `data` (FIPS 180-4): a string is hashed as its
 * UTF-8 bytes, a byte array as is (only its view, for a `subarray`). Same
 * as `sha256sum`. O(size of the data); for a file too large to hold, use
 * {@link sha256Stream}.
 *
 * @param data text (UTF-8) or bytes
 * @param options `native: false` to use `node:crypto` only
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
export function sha256Hex(data: string | Uint8Array, options: Sha256Options = {}): string {
  const native = options.native === false ? null : libcryptoSha256();
  if (native === null) return node().hash("sha256", data, "hex");
  const out = new Uint8Array(32);
  native.digest(typeof data === "string" ? encoder.encode(data) : data, out);
  return hexOf(out);
}

/** A SHA-256 over bytes given in pieces. */
export interface Sha256Stream {
  /** Adds the next bytes (a view: its offset and length count). */
  update(bytes: Uint8Array): void;
  /** The digest of everything added, in lower-case hex; call once, last. */
  hex(): string;
}

/**
 * A streaming SHA-256, for data read in chunks (a ledger's file hash while
 * its lines are parsed): the same digest as {@link sha256Hex} of the
 * concatenation. O(bytes) time, O(1) memory.
 *
 * @param options `native: false` to use `node:crypto` only
 * @returns an empty stream
 * @example
 * ```ts
 * import { sha256Hex, sha256Stream } from "./sha256_hex.ts";
 * const stream = sha256Stream();
 * stream.update(new TextEncoder().encode("a"));
 * stream.update(new TextEncoder().encode("bc"));
 * if (stream.hex() !== sha256Hex("abc")) throw new Error();
 * ```
 */
export function sha256Stream(options: Sha256Options = {}): Sha256Stream {
  const native = options.native === false ? null : libcryptoSha256();
  if (native === null) {
    const hash = node().createHash("sha256");
    return { update: (bytes) => hash.update(bytes), hex: () => hash.digest("hex") };
  }
  const stream = native.stream();
  return {
    update: (bytes) => stream.update(bytes),
    hex: () => {
      const out = new Uint8Array(32);
      stream.finish(out);
      return hexOf(out);
    },
  };
}
