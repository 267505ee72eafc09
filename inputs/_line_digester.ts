/**
 * SHA-256 of ledger lines for the reader's hash-chain check (issue 2: each
 * row carries the SHA-256 of the previous row's bytes). A million-row ledger
 * needs a million digests of about 300 bytes each, and per call Deno's
 * `node:crypto` `hash()` costs about as much as `JSON.parse` of the line
 * (about 2.4 µs here); OpenSSL's libcrypto, reached through Deno's FFI with
 * one reused digest context, uses the CPU's SHA instructions and costs about
 * a quarter of that. So the native path is used when the process may load
 * libraries (`--allow-ffi`) and libcrypto 3 is present; otherwise the same
 * digests come from `node:crypto` (`sha256Hex`). Both paths are cross-checked in
 * `_line_digester_test.ts`.
 *
 * @module
 */
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
  const native = options.native === false ? null : libcrypto();
  return native === null ? new NodeDigester() : new NativeDigester(native);
}

const HEX = "0123456789abcdef";
const HEX_CODES = Uint8Array.from(HEX, (c) => c.charCodeAt(0));
const BYTE_HEX = Array.from({ length: 256 }, (_, b) => HEX[b >> 4] + HEX[b & 15]);

class NodeDigester implements LineDigester {
  readonly engine = "node:crypto";
  #hex = "";

  digest(bytes: Uint8Array): void {
    this.#hex = sha256Hex(bytes);
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

  hex(): string {
    let text = "";
    for (const byte of this.#out) text += BYTE_HEX[byte];
    return text;
  }
}

/** The libcrypto SHA-256 function, loaded once per process; null where unavailable. */
let loaded: ((bytes: Uint8Array, out: Uint8Array) => void) | null | undefined;

/**
 * SHA-256 through OpenSSL 3's EVP interface with one context reused for every
 * call (`EVP_DigestInit_ex2`, `EVP_DigestUpdate`, `EVP_DigestFinal_ex`); the
 * three calls run synchronously together, so concurrent scans can share it.
 * Null without FFI permission or without `libcrypto.so.3`.
 */
function libcrypto(): ((bytes: Uint8Array, out: Uint8Array) => void) | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
    const { symbols } = Deno.dlopen("libcrypto.so.3", {
      EVP_MD_fetch: { parameters: ["pointer", "buffer", "pointer"], result: "pointer" },
      EVP_MD_CTX_new: { parameters: [], result: "pointer" },
      EVP_DigestInit_ex2: { parameters: ["pointer", "pointer", "pointer"], result: "i32" },
      EVP_DigestUpdate: { parameters: ["pointer", "buffer", "usize"], result: "i32" },
      EVP_DigestFinal_ex: { parameters: ["pointer", "buffer", "pointer"], result: "i32" },
    });
    const md = symbols.EVP_MD_fetch(null, new TextEncoder().encode("SHA256\0"), null);
    const context = symbols.EVP_MD_CTX_new();
    if (md === null || context === null) return null;
    const sha256 = (bytes: Uint8Array, out: Uint8Array) => {
      if (
        symbols.EVP_DigestInit_ex2(context, md, null) !== 1 ||
        symbols.EVP_DigestUpdate(context, bytes, BigInt(bytes.length)) !== 1 ||
        symbols.EVP_DigestFinal_ex(context, out, null) !== 1
      ) {
        throw new Error("Cannot compute SHA-256: libcrypto reported a failure");
      }
    };
    // a known answer before trusting the library: SHA-256("abc") (FIPS 180-2, appendix B.1)
    const out = new Uint8Array(32);
    sha256(new TextEncoder().encode("abc"), out);
    const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    if (Array.from(out, (b) => BYTE_HEX[b]).join("") !== abc) return null;
    loaded = sha256;
  } catch {
    // no library, an older OpenSSL without EVP_DigestInit_ex2, or FFI refused
  }
  return loaded;
}
