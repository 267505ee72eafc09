/**
 * SHA-256 of ledger lines for the reader's hash-chain check (issue 2: each
 * row carries the SHA-256 of the previous row's bytes). A million-row ledger
 * needs a million digests of about 300 bytes each, and per call Deno's
 * `node:crypto` `hash()` costs about as much as `JSON.parse` of the line
 * (about 2.4 µs here); OpenSSL's libcrypto, reached through Deno's FFI with
 * one reused digest context (`analysis/_libcrypto_sha256.ts`), uses the
 * CPU's SHA instructions and costs about a quarter of that. So the native
 * path is used when the process may load libraries (`--allow-ffi`) and
 * libcrypto 3 is present; otherwise the same digests come from
 * `node:crypto` (`sha256Hex`). Both paths are cross-checked in
 * `_line_digester_test.ts`.
 *
 * @module
 */
import { libcryptoSha256 } from "../analysis/_libcrypto_sha256.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";

/** The digest of the last line given to {@link LineDigester.digest}. */
export interface LineDigester {
  /** Which implementation computes the digests. */
  readonly engine: "libcrypto" | "node:crypto";
  /** Digests one line's bytes (without its `\n`) and keeps the result. */
  digest(bytes: Uint8Array): void;
  /** Whether `hex` is the kept digest in lowercase hex (64 characters). O(1). */
  matches(hex: string): boolean;
  /** The kept digest in lowercase hex. */
  hex(): string;
}

/** Options for {@link lineDigester}. */
export interface LineDigesterOptions {
  /** Try libcrypto through FFI first (default true); false: always `node:crypto`. */
  native?: boolean;
}

/**
 * A digester for one ledger scan: libcrypto's SHA-256 through FFI where
 * available, else `node:crypto`; the digests are identical.
 *
 * @param options whether to try the native path
 * @returns a digester holding no digest yet
 */
export function lineDigester(options: LineDigesterOptions = {}): LineDigester {
  const native = options.native === false ? null : libcryptoSha256();
  return native === null ? new NodeDigester() : new NativeDigester(native.digest);
}

const HEX = "0123456789abcdef";
const HEX_CODES = Uint8Array.from(HEX, (c) => c.charCodeAt(0));

class NodeDigester implements LineDigester {
  readonly engine = "node:crypto";
  #hex = "";

  digest(bytes: Uint8Array): void {
    this.#hex = sha256Hex(bytes, { native: false });
  }

  matches(hex: string): boolean {
    return hex === this.#hex;
  }

  hex(): string {
    return this.#hex;
  }
}

class NativeDigester implements LineDigester {
  readonly engine = "libcrypto";
  #sha256: (bytes: Uint8Array, out: Uint8Array) => void;
  #out = new Uint8Array(32);
  /** The hex digits' character codes, reused by {@link hex}. */
  #codes: number[] = new Array(64);

  constructor(sha256: (bytes: Uint8Array, out: Uint8Array) => void) {
    this.#sha256 = sha256;
  }

  digest(bytes: Uint8Array): void {
    this.#sha256(bytes, this.#out);
  }

  matches(hex: string): boolean {
    if (hex.length !== 64) return false;
    const out = this.#out;
    for (let i = 0; i < 32; i++) {
      const byte = out[i];
      if (
        hex.charCodeAt(2 * i) !== HEX_CODES[byte >> 4] ||
        hex.charCodeAt(2 * i + 1) !== HEX_CODES[byte & 15]
      ) {
        return false;
      }
    }
    return true;
  }

  /** One flat string of the 64 hex digits' codes (no 32-piece concatenation to flatten later). */
  hex(): string {
    const out = this.#out;
    const codes = this.#codes;
    for (let i = 0; i < 32; i++) {
      const byte = out[i];
      codes[2 * i] = HEX_CODES[byte >> 4];
      codes[2 * i + 1] = HEX_CODES[byte & 15];
    }
    return String.fromCharCode.apply(null, codes);
  }
}
