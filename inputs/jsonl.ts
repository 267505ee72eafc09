/**
 * Streaming JSONL scanning: splits a byte stream into lines without holding
 * the file, numbers them from 1, and hashes the whole stream on the way
 * (the SHA-256 every replayable output records).
 *
 * @module
 */
import type { z } from "zod";
import { type Sha256Stream, sha256Stream } from "../analysis/sha256_hex.ts";
import type { LedgerProblem } from "../analysis/ledger_error.ts";
import { parseJsonObject } from "../analysis/schema/strict_json.ts";
import { schemaProblem } from "../analysis/schema/schema_problems.ts";
import { concatBytes } from "../analysis/concat_bytes.ts";

const NEWLINE = 10;

/** What a scan saw of the whole stream. */
export interface ScanSummary {
  /** SHA-256 (hex) of every byte of the stream. */
  sha256: string;
  /** Number of lines visited (a final newline does not open a new line). */
  lines: number;
}

/**
 * Calls `visit` once per line of `chunks`, in order, with the line's bytes
 * (without the `\n`), its 1-based number and, when the chunk holding the
 * whole line is ASCII, its text. One pass, O(longest line) extra memory.
 *
 * Ledgers are almost always ASCII (canonical JSON escapes nothing else, but
 * notes may hold any text), and decoding a 1 MiB chunk once costs much less
 * than a decoder call per line; a chunk is ASCII when its replacing decode
 * has one code unit per byte and no U+FFFD (every multi-byte sequence
 * shortens the text; every invalid byte leaves a U+FFFD), and then byte
 * offsets are text offsets. Other lines come without text, for the caller
 * to decode.
 *
 * @param chunks the byte stream, e.g. `await openInput(path)` (input_file.ts)
 * @param visit called synchronously for each line
 * @returns the stream's SHA-256 and line count
 */
export async function scanJsonl(
  chunks: AsyncIterable<Uint8Array>,
  visit: (bytes: Uint8Array, line: number, text: string | undefined) => void,
): Promise<ScanSummary> {
  const hash = new StreamDigest();
  let carry: Uint8Array | null = null;
  let line = 0;
  for await (const chunk of chunks) {
    hash.update(chunk);
    const ascii = asciiText(chunk);
    let start = 0;
    let end = chunk.indexOf(NEWLINE, start);
    while (end !== -1) {
      let bytes = chunk.subarray(start, end);
      let text = ascii?.slice(start, end);
      if (carry !== null) {
        bytes = concatBytes([carry, bytes]);
        text = undefined;
        carry = null;
      }
      visit(bytes, ++line, text);
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      const rest = chunk.slice(start);
      carry = carry === null ? rest : concatBytes([carry, rest]);
    }
  }
  if (carry !== null) visit(carry, ++line, undefined);
  return { sha256: await hash.hex(), lines: line };
}

/** Streams up to this many bytes are hashed whole at their end, by WebCrypto. */
const SMALL_STREAM_BYTES = 1 << 20;

/**
 * The SHA-256 of a byte stream (FIPS 180-4): a stream of at most
 * {@link SMALL_STREAM_BYTES} is held and hashed at its end by WebCrypto
 * (`crypto.subtle.digest`), which needs no library loaded (libcrypto's
 * `dlopen` took about 10 ms of a small ledger's command); a longer one is
 * hashed as it comes by {@link sha256Stream}. The same digest either way.
 */
class StreamDigest {
  #held: Uint8Array[] = [];
  #size = 0;
  #stream: Sha256Stream | null = null;

  /** Adds the next bytes (copied while held: a caller may reuse its buffer). */
  update(chunk: Uint8Array): void {
    if (this.#stream !== null) return this.#stream.update(chunk);
    if (this.#size + chunk.length <= SMALL_STREAM_BYTES) {
      this.#held.push(chunk.slice());
      this.#size += chunk.length;
      return;
    }
    this.#stream = sha256Stream();
    for (const held of this.#held) this.#stream.update(held);
    this.#held = [];
    this.#stream.update(chunk);
  }

  /** The digest of everything added, in lower-case hex; call once, last. */
  async hex(): Promise<string> {
    if (this.#stream !== null) return this.#stream.hex();
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", concatBytes(this.#held)));
    return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  }
}

/** Decodes without consuming a byte-order mark, so that {@link parseLine} sees and refuses it. */
const quickDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** The text of `chunk` when every byte is ASCII (see {@link scanJsonl}); else null. */
function asciiText(chunk: Uint8Array): string | null {
  const text = quickDecoder.decode(chunk);
  return text.length === chunk.length && !text.includes("\uFFFD") ? text : null;
}

/** The outcome of parsing one line against a schema. */
export type LineResult<T> = { ok: true; value: T; raw: Record<string, unknown> } | {
  ok: false;
  problem: LedgerProblem;
};

/** One line of a JSONL file, as {@link parseLine} takes it. */
export interface JsonlLine {
  /** The line's bytes, without the `\n`. */
  bytes: Uint8Array;
  /** The file the line comes from, named in problems. */
  file: string;
  /** The line's 1-based number, named in problems. */
  line: number;
  /** The line's text when already decoded (an ASCII chunk, see {@link scanJsonl}). */
  text?: string;
}

/** zod's parse context that skips its compiled object parsers. */
const JITLESS = Object.freeze({ jitless: true });

/** Options for {@link parseLine}. */
export interface ParseLineOptions<T> {
  /**
   * A fast path tried before the schema: returns the parsed value, exactly as
   * `schema.safeParse(raw).data` would, or `undefined` to let the schema
   * decide (and word any error). See `_fast_episode.ts`.
   */
  fast?: (raw: Record<string, unknown>) => T | undefined;
  /**
   * Parse through the schema without zod's compiled object parsers (its
   * documented `jitless` parse option: the same result without generating
   * code). Compiling them costs more than a few hundred rows take to
   * parse, so a short file is read sooner without.
   */
  jitless?: boolean;
}

/**
 * Decodes one JSONL line and parses it through a zod schema, turning any
 * failure into a {@link LedgerProblem} naming file, line and field.
 *
 * Checks, in order: a blank line; the text ({@linkcode parseJsonObject}: a
 * byte-order mark, bytes that are not UTF-8, JSON syntax, one object, no
 * repeated key, no number beyond the double range); then the schema, whose
 * first issue is worded by {@linkcode schemaProblem} (a missing field reads
 * "missing (required; ...)", with "or null when not recorded" where null is
 * allowed).
 *
 * @param schema the zod schema every line must fit
 * @param input the line's `bytes` (without the `\n`), its `file`, 1-based `line` number and,
 *   when already decoded, its `text`
 * @param options an optional `fast` path tried before the schema; `jitless`
 * @returns the parsed value and the raw object, or the problem
 */
export function parseLine<S extends z.ZodType>(
  schema: S,
  input: JsonlLine,
  options: ParseLineOptions<z.output<S>> = {},
): LineResult<z.output<S>> {
  const { bytes, file, line, text } = input;
  if (bytes.length === 0 || (bytes.length === 1 && bytes[0] === 13)) {
    return {
      ok: false,
      problem: { code: "blank_line", file, line, field: "", message: "blank line inside the file" },
    };
  }
  const parsed = parseJsonObject(bytes, "a line", text);
  if (!parsed.ok) {
    const { code, field, message } = parsed.problem;
    return { ok: false, problem: { code, file, line, field, message } };
  }
  const raw = parsed.value;
  if (options.fast !== undefined) {
    const value = options.fast(raw);
    if (value !== undefined) return { ok: true, value, raw };
  }
  const result = schema.safeParse(raw, options.jitless ? JITLESS : undefined);
  if (result.success) return { ok: true, value: result.data, raw };
  const { field, message } = schemaProblem(result.error.issues[0], raw, { schema });
  return { ok: false, problem: { code: "schema_violation", file, line, field, message } };
}
