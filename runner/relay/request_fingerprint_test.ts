import assert from "node:assert/strict";
import {
  canonicalRequest,
  combineFingerprints,
  requestFingerprint,
} from "./request_fingerprint.ts";

// `printf '' | sha256sum`
const EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
// `printf '{"a":1,"b":2}' | sha256sum`
const AB_SHA = "43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777";

Deno.test("canonicalRequest() sorts keys at every depth and keeps array order", () => {
  const body = { z: [3, { y: null, b: true }, "s"], a: { d: 1.5, c: "é" } };
  // Written by hand from the rule: keys sorted, arrays in order, compact.
  assert.equal(canonicalRequest(body), '{"a":{"c":"é","d":1.5},"z":[3,{"b":true,"y":null},"s"]}');
});

Deno.test("canonicalRequest() keeps every digit of a number", () => {
  // analysis/canonical_json.ts would round both to 0.123456789012; a fingerprint must not.
  assert.notEqual(
    canonicalRequest({ t: 0.1234567890123 }),
    canonicalRequest({ t: 0.1234567890124 }),
  );
  assert.equal(canonicalRequest({ t: 0.1234567890123 }), '{"t":0.1234567890123}');
});

Deno.test("requestFingerprint() pins sha256sum of the canonical text", () => {
  assert.equal(requestFingerprint({ b: 2, a: 1 }), AB_SHA);
  // `printf '{"messages":[{"content":"héllo","role":"user"}],"model":"m","temperature":0.7}' | sha256sum`
  assert.equal(
    requestFingerprint({
      temperature: 0.7,
      model: "m",
      messages: [{ role: "user", content: "héllo" }],
    }),
    "5c40366b3e8c4923072ee293f2fb19e9575fbc9a61320558e2a11249b675a4cd",
  );
});

Deno.test("requestFingerprint() is stable across key order and sensitive to array order", () => {
  const one = JSON.parse('{"model":"m","messages":[{"role":"user","content":"x"}],"n":1}');
  const two = JSON.parse('{"n":1,"messages":[{"content":"x","role":"user"}],"model":"m"}');
  assert.equal(requestFingerprint(one), requestFingerprint(two));
  assert.notEqual(requestFingerprint({ a: [1, 2] }), requestFingerprint({ a: [2, 1] }));
});

Deno.test("combineFingerprints() hashes the fingerprints in order, one per line", () => {
  // `printf '%s\n%s\n' <AB_SHA> <EMPTY_SHA> | sha256sum`
  assert.equal(
    combineFingerprints([AB_SHA, EMPTY_SHA]),
    "4555a2e088bb165a9760d4921c0ae237aa6f33899e1dc69b5060a4fd1769ccb3",
  );
  // Same two in the other order: `printf '%s\n%s\n' <EMPTY_SHA> <AB_SHA> | sha256sum`
  assert.equal(
    combineFingerprints([EMPTY_SHA, AB_SHA]),
    "544641054ae84b6a6e7338973dad6df3e6398b2c76fe55a681b47b9de0818f5e",
  );
  assert.equal(combineFingerprints([]), null);
});
