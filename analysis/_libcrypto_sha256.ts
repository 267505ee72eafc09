/**
 * SHA-256 from OpenSSL's libcrypto through Deno's FFI, the one binding
 * behind `sha256_hex.ts` (whole values and streams) and the ledger
 * reader's line digests (`inputs/_line_digester.ts`). libcrypto uses the
 * CPU's SHA instructions and needs no Node compatibility layer: loading
 * `node:crypto` took about 15 ms of every command's start (issue 23),
 * opening the library about 3 ms. Null where the process may not load
 * libraries (no `--allow-ffi`) or `libcrypto.so.3` is absent; callers then
 * use `node:crypto`, which gives the same digests.
 *
 * @module
 */

/** SHA-256 of one byte string at a time, and streams of many. */
export interface LibcryptoSha256 {
  /** Writes the SHA-256 of `bytes` (a view: its offset and length count) into `out` (32 bytes). */
  digest(bytes: Uint8Array, out: Uint8Array): void;
  /**
   * A stream with its own digest context; `finish` writes the digest and
   * frees the context, after which `update` and `finish` throw.
   */
  stream(): { update(bytes: Uint8Array): void; finish(out: Uint8Array): void };
}

/** The binding, loaded once per process; null where unavailable; undefined before the first call. */
let loaded: LibcryptoSha256 | null | undefined;

/**
 * `OPENSSL_INIT_NO_ATEXIT` (OpenSSL 3's `crypto.h`; OPENSSL_init_crypto(3)):
 * no exit-time cleanup. By default libcrypto frees its library context from
 * an `atexit` handler, which can run while this process's JavaScript still
 * holds (and may use) the fetched digest and the shared context; the process
 * is ending, so nothing needs freeing.
 */
const OPENSSL_INIT_NO_ATEXIT = 0x00080000n;

const FUNCTIONS = {
  OPENSSL_init_crypto: { parameters: ["u64", "pointer"], result: "i32" },
  EVP_MD_fetch: { parameters: ["pointer", "buffer", "pointer"], result: "pointer" },
  EVP_MD_CTX_new: { parameters: [], result: "pointer" },
  EVP_MD_CTX_free: { parameters: ["pointer"], result: "void" },
  EVP_DigestInit_ex2: { parameters: ["pointer", "pointer", "pointer"], result: "i32" },
  EVP_DigestUpdate: { parameters: ["pointer", "buffer", "usize"], result: "i32" },
  EVP_DigestFinal_ex: { parameters: ["pointer", "buffer", "pointer"], result: "i32" },
} as const;

/** libcrypto writes 32 bytes at `out`'s address: a shorter view would be overrun. */
function requireDigestRoom(out: Uint8Array): void {
  if (out.length < 32) throw new RangeError("A SHA-256 digest needs 32 bytes of room");
}

function failed(): never {
  throw new Error("Cannot compute SHA-256: libcrypto reported a failure");
}

/**
 * libcrypto's SHA-256 through OpenSSL 3's EVP interface: one digest context
 * reused for every `digest` call (`EVP_DigestInit_ex2`, `EVP_DigestUpdate`,
 * `EVP_DigestFinal_ex` run synchronously together, so concurrent callers
 * can share it), a context of its own for each stream. The library is
 * trusted only after a known answer, SHA-256("abc") (FIPS 180-2, appendix
 * B.1). Loaded on the first call, never at module load.
 *
 * @returns the binding, or null without FFI permission, without
 *   `libcrypto.so.3`, or with an OpenSSL older than 3 (no `EVP_DigestInit_ex2`)
 * @example
 * ```ts
 * import { libcryptoSha256 } from "./_libcrypto_sha256.ts";
 * const sha256 = libcryptoSha256();
 * if (sha256 !== null) {
 *   const out = new Uint8Array(32);
 *   sha256.digest(new TextEncoder().encode("abc"), out);
 *   if (out[0] !== 0xba || out[31] !== 0xad) throw new Error();
 * }
 * ```
 */
export function libcryptoSha256(): LibcryptoSha256 | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
    const { symbols } = Deno.dlopen("libcrypto.so.3", FUNCTIONS);
    if (symbols.OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, null) !== 1) return null;
    const md = symbols.EVP_MD_fetch(null, new TextEncoder().encode("SHA256\0"), null);
    const shared = symbols.EVP_MD_CTX_new();
    if (md === null || shared === null) return null;
    const binding: LibcryptoSha256 = {
      digest(bytes, out) {
        requireDigestRoom(out);
        if (
          symbols.EVP_DigestInit_ex2(shared, md, null) !== 1 ||
          symbols.EVP_DigestUpdate(shared, bytes, BigInt(bytes.length)) !== 1 ||
          symbols.EVP_DigestFinal_ex(shared, out, null) !== 1
        ) {
          failed();
        }
      },
      stream() {
        const context = symbols.EVP_MD_CTX_new();
        if (context === null || symbols.EVP_DigestInit_ex2(context, md, null) !== 1) failed();
        // A freed context is never passed to libcrypto again: a second `finish`
        // would free it twice and an `update` after it would write to freed
        // memory, corrupting the process's heap (where node:crypto throws).
        let open = true;
        const requireOpen = () => {
          if (!open) throw new Error("Cannot use a SHA-256 stream after its digest was taken");
        };
        return {
          update(bytes) {
            requireOpen();
            if (symbols.EVP_DigestUpdate(context, bytes, BigInt(bytes.length)) !== 1) failed();
          },
          finish(out) {
            requireOpen();
            requireDigestRoom(out);
            open = false;
            const ok = symbols.EVP_DigestFinal_ex(context, out, null) === 1;
            symbols.EVP_MD_CTX_free(context);
            if (!ok) failed();
          },
        };
      },
    };
    const out = new Uint8Array(32);
    binding.digest(new TextEncoder().encode("abc"), out);
    const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    if (Array.from(out, (b) => b.toString(16).padStart(2, "0")).join("") !== abc) return null;
    loaded = binding;
  } catch {
    // no library, an older OpenSSL without EVP_DigestInit_ex2, or FFI refused
  }
  return loaded;
}
