/**
 * What an egress proxy (the verifier's, or an agent's allowed to reach
 * the internet) records for each request: one record per HTTP request or
 * `CONNECT` tunnel a verifier asked for, allowed or denied, so that an
 * episode's evidence says which hosts its verifier reached and how much it
 * moved. The host records it, never the container.
 *
 * A zod schema, so that the episode log can store the records and read them
 * back through the same definition.
 *
 * @module
 */
import { z } from "zod";

const Count = z.number().int().nonnegative();

/** Longest host name kept from a request (the DNS limit, RFC 1035 §2.3.4). */
export const MAX_EGRESS_HOST_CHARS = 253;
/** Characters of a request's path (and query) kept in its record. */
export const MAX_EGRESS_PATH_CHARS = 1024;
/** Characters of a request's method kept in its record. */
export const MAX_EGRESS_METHOD_CHARS = 32;
/** Characters of a record's `error` text. */
export const MAX_EGRESS_ERROR_CHARS = 512;

/**
 * One request through the egress proxy, as the proxy saw it.
 *
 * Every string came from the client or the origin and is bounded: `method`
 * to 32 characters, `host` to 253, `path` to its first 1024, `error` to 512.
 * Byte counts are what crossed the proxy after the message heads (for a
 * tunnel, every byte of it), as on the wire (chunk framing included).
 */
export const EgressRequest = z.object({
  /** The request's method (`GET`, `CONNECT`, ...); empty when the request line was unreadable. */
  method: z.string().max(MAX_EGRESS_METHOD_CHARS),
  /** The host asked for, lowercased; empty when none could be read. */
  host: z.string().max(MAX_EGRESS_HOST_CHARS),
  /** The port asked for (80 for an `http://` URL without one); 0 when none could be read. */
  port: z.number().int().min(0).max(65_535),
  /** Path and query of a plain HTTP request, first 1024 characters; null for `CONNECT`. */
  path: z.string().max(MAX_EGRESS_PATH_CHARS).nullable(),
  /** True when the proxy let the request out to its origin (allow-list and address checks passed). */
  allowed: z.boolean(),
  /**
   * The origin's status for plain HTTP; 200 for an established tunnel; the
   * proxy's own status when it answered itself (400 malformed, 403 denied,
   * 408 head too slow, 411 a body framing it does not relay); null when the
   * origin could not be reached or sent no readable response head (the
   * client was answered 502).
   */
  status: z.number().int().min(100).max(599).nullable(),
  /** Bytes relayed from the client to the origin (request body; tunnel payload). */
  bytes_up: Count,
  /** Bytes relayed from the origin to the client (response body; tunnel payload). */
  bytes_down: Count,
  /** When the request's head had arrived (ISO 8601, UTC). */
  started_at: z.iso.datetime(),
  /** Milliseconds from `started_at` to the end of the exchange (so far, while it is open). */
  ms: Count,
  /** Why the request was refused or failed, or how it ended early; null for a clean exchange. */
  error: z.string().max(MAX_EGRESS_ERROR_CHARS).nullable(),
}).strict();
export type EgressRequest = z.infer<typeof EgressRequest>;
