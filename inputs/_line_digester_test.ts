import { equal, ok } from "node:assert/strict";
import { hash } from "node:crypto";
import { seededRandom } from "../analysis/seeded_random.ts";
import { lineDigester } from "./_line_digester.ts";

/** Lines of every length class: empty, under a block, across the 55/56/64-byte padding edges, many blocks, UTF-8. */
function sampleLines(): Uint8Array[] {
  const random = seededRandom(11);
  const lengths = [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 128, 300, 1000, 4097];
  for (let i = 0; i < 200; i++) lengths.push(Math.floor(random() * 700));
  const lines = lengths.map((length) =>
    Uint8Array.from({ length }, () => 32 + Math.floor(random() * 95))
  );
  lines.push(new TextEncoder().encode('{"notes":"测试 ✓"}'));
  return lines;
}

Deno.test("lineDigester() uses libcrypto in a test run with every permission", () => {
  // Debian 12 ships libcrypto.so.3 (package libssl3); `deno task test` grants --allow-all
  equal(lineDigester().engine, "libcrypto");
  equal(lineDigester({ native: false }).engine, "node:crypto");
});

Deno.test("lineDigester() gives node:crypto's SHA-256 on both paths", () => {
  for (const native of [true, false]) {
    const digester = lineDigester({ native });
    for (const line of sampleLines()) {
      const expected = hash("sha256", line, "hex");
      digester.digest(line);
      equal(digester.hex(), expected, `${digester.engine}, ${line.length} bytes`);
      ok(digester.matches(expected));
    }
  }
});

Deno.test("lineDigester() pins SHA-256 of the empty line and of 'abc'", () => {
  // FIPS 180-2 appendix B.1 ("abc") and the well-known digest of the empty string
  const cases = [
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
  ];
  for (const native of [true, false]) {
    const digester = lineDigester({ native });
    for (const [text, expected] of cases) {
      digester.digest(new TextEncoder().encode(text));
      equal(digester.hex(), expected);
    }
  }
});

Deno.test("LineDigester.matches() accepts only the exact lowercase hex", () => {
  for (const native of [true, false]) {
    const digester = lineDigester({ native });
    digester.digest(new TextEncoder().encode("abc"));
    const hex = digester.hex();
    ok(digester.matches(hex));
    ok(!digester.matches(hex.toUpperCase()), "uppercase");
    ok(!digester.matches(hex.slice(0, 63)), "63 characters");
    ok(!digester.matches(hex + "0"), "65 characters");
    ok(!digester.matches(""), "empty");
    for (const at of [0, 31, 32, 63]) {
      const flipped = hex.slice(0, at) + (hex[at] === "0" ? "1" : "0") + hex.slice(at + 1);
      ok(!digester.matches(flipped), `character ${at} changed`);
    }
  }
});
