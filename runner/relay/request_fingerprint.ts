/**
 * Request fingerprints, part of seed 000's evidence ("请求指纹"): the host
 * relay hashes the canonical form of every model request it forwards, and the
 * episode's fingerprint hashes those in order, so that two runs can be shown
 * to have asked the same things.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { sha256Hex } from "../../analysis/sha256_hex.ts";

/**
 * The canonical text of a parsed JSON request body: compact JSON with object
 * keys sorted by UTF-16 code unit at every depth, array order kept, numbers as
 * `JSON.stringify` writes them (shortest round-trip form, so no precision is
 * lost, unlike the display rounding of `analysis/canonical_json.ts`).
 *
 * @param body A value produced by `JSON.parse`.
 * @returns The canonical JSON text.
 * @example
 * ```ts
 * import { canonicalRequest } from "./request_fingerprint.ts";
 * if (canonicalRequest({ b: [2, { d: 1, c: 0.1 }], a: "x" }) !== '{"a":"x","b":[2,{"c":0.1,"d":1}]}') {
 *   throw new Error("keys must be sorted");
 * }
 * ```
 */
export function canonicalRequest(body: unknown): string {
  if (Array.isArray(body)) return `[${body.map(canonicalRequest).join(",")}]`;
  if (body !== null && typeof body === "object") {
    const members = Object.keys(body).sort().flatMap((key) => {
      const value = (body as Record<string, unknown>)[key];
      return value === undefined ? [] : [`${JSON.stringify(key)}:${canonicalRequest(value)}`];
    });
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(body) ?? "null";
}

/**
 * The fingerprint of one request: lower-case hex SHA-256 of the UTF-8 bytes of
 * {@linkcode canonicalRequest}. The same request with its keys in another
 * order gets the same fingerprint. O(size of the body).
 *
 * @param body A value produced by `JSON.parse`.
 * @returns 64 hex digits.
 * @example
 * ```ts
 * import { requestFingerprint } from "./request_fingerprint.ts";
 * if (requestFingerprint({ a: 1, b: 2 }) !== requestFingerprint({ b: 2, a: 1 })) throw new Error();
 * ```
 */
export function requestFingerprint(body: unknown): string {
  return sha256Hex(canonicalRequest(body));
}

/**
 * The fingerprint of an episode: lower-case hex SHA-256 of the call
 * fingerprints in call order, each followed by a line feed
 * (`sha256("<fp1>\n<fp2>\n...")`). Zero calls give null.
 *
 * @param fingerprints The per-call fingerprints, in call order.
 * @returns 64 hex digits, or null for an empty list.
 * @example
 * ```ts
 * import { combineFingerprints } from "./request_fingerprint.ts";
 * if (combineFingerprints([]) !== null) throw new Error("zero calls have no fingerprint");
 * ```
 */
export function combineFingerprints(fingerprints: readonly string[]): string | null {
  if (fingerprints.length === 0) return null;
  const hash = createHash("sha256");
  for (const fingerprint of fingerprints) hash.update(`${fingerprint}\n`, "utf8");
  return hash.digest("hex");
}
