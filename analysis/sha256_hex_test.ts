import { equal, throws } from "node:assert/strict";
import { seededRandom } from "./seeded_random.ts";
import { sha256Hex, sha256Stream } from "./sha256_hex.ts";
import { libcryptoSha256 } from "./_libcrypto_sha256.ts";

Deno.test("sha256Hex() pins FIPS 180-2's test vectors and hashes text as UTF-8, on both paths", () => {
  for (const native of [true, false]) {
    // FIPS 180-2 appendix B.1 ("abc") and the empty string (sha256sum < /dev/null).
    const abc = sha256Hex("abc", { native });
    equal(abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    equal(
      sha256Hex("", { native }),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    // printf 'h\xc3\xa9' | sha256sum: "hé" is hashed as its two UTF-8 bytes 68 c3 a9.
    const bytes = new Uint8Array([0x68, 0xc3, 0xa9]);
    const he = "7dfbe0eab96510b11c9a2671d83019cd52953211294db5f917ffa0b7cc84f534";
    equal(sha256Hex("hé", { native }), he);
    equal(sha256Hex(bytes, { native }), he);
    // A subarray is hashed as its own bytes, not its whole buffer.
    const view = new Uint8Array([0x00, 0x61, 0x62, 0x63, 0xff]).subarray(1, 4);
    equal(sha256Hex(view, { native }), abc);
  }
});

Deno.test("libcrypto is the engine in a test run with every permission", () => {
  // Debian 12 ships libcrypto.so.3 (package libssl3); `deno task test` grants --allow-all
  equal(libcryptoSha256() !== null, true);
});

Deno.test("sha256Stream() equals sha256Hex() of the concatenation, both paths, any split", () => {
  const random = seededRandom(3);
  const data = Uint8Array.from({ length: 5000 }, () => Math.floor(random() * 256));
  const whole = sha256Hex(data, { native: false });
  for (const native of [true, false]) {
    for (const pieces of [1, 2, 7, 64]) {
      const stream = sha256Stream({ native });
      let at = 0;
      for (let i = 1; i <= pieces; i++) {
        const end = Math.floor((data.length * i) / pieces);
        stream.update(data.subarray(at, end));
        at = end;
      }
      equal(stream.hex(), whole, `native ${native}, ${pieces} pieces`);
    }
    equal(sha256Stream({ native }).hex(), sha256Hex("", { native: false }));
  }
});

Deno.test("a native stream refuses use after its digest, and a digest without 32 bytes of room", () => {
  const sha256 = libcryptoSha256();
  if (sha256 === null) throw new Error("libcrypto is not loaded");
  const stream = sha256.stream();
  stream.update(new TextEncoder().encode("abc"));
  const out = new Uint8Array(32);
  stream.finish(out);
  // A second free of the context, or a write into it, would corrupt the heap.
  throws(() => stream.finish(new Uint8Array(32)), /after its digest was taken/);
  throws(() => stream.update(new Uint8Array(1)), /after its digest was taken/);
  throws(() => sha256.digest(new Uint8Array(1), new Uint8Array(31)), /32 bytes of room/);
  throws(() => sha256.stream().finish(new Uint8Array(16)), /32 bytes of room/);
});
