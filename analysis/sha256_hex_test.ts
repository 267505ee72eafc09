import { equal } from "node:assert/strict";
import { sha256Hex } from "./sha256_hex.ts";

Deno.test("sha256Hex() pins FIPS 180-2's test vectors and hashes text as UTF-8", () => {
  // FIPS 180-2 appendix B.1 ("abc") and the empty string (sha256sum < /dev/null).
  equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // printf 'h\xc3\xa9' | sha256sum: "hé" is hashed as its two UTF-8 bytes 68 c3 a9.
  const bytes = new Uint8Array([0x68, 0xc3, 0xa9]);
  equal(sha256Hex("hé"), "7dfbe0eab96510b11c9a2671d83019cd52953211294db5f917ffa0b7cc84f534");
  equal(sha256Hex(bytes), sha256Hex("hé"));
  // A subarray is hashed as its own bytes, not its whole buffer.
  equal(sha256Hex(new Uint8Array([0x00, 0x61, 0x62, 0x63, 0xff]).subarray(1, 4)), sha256Hex("abc"));
});
