/**
 * Streaming JSONL scanning: splits a byte stream into lines without holding
 * the file, numbers them from 1, and hashes the whole stream on the way
 * (the SHA-256 every replayable output records).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { z } from "zod";
import type { LedgerProblem } from "./ledger_error.ts";

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
 * @param chunks the byte stream, e.g. `(await Deno.open(path)).readable`
 * @param visit called synchronously for each line
 * @returns the stream's SHA-256 and line count
 */
export async function scanJsonl(
  chunks: AsyncIterable<Uint8Array>,
  visit: (bytes: Uint8Array, line: number, text: string | undefined) => void,
): Promise<ScanSummary> {
  const hash = createHash("sha256");
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
        bytes = concat(carry, bytes);
        text = undefined;
        carry = null;
      }
      visit(bytes, ++line, text);
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      const rest = chunk.slice(start);
      carry = carry === null ? rest : concat(carry, rest);
    }
  }
  if (carry !== null) visit(carry, ++line, undefined);
  return { sha256: hash.digest("hex"), lines: line };
}

/** The text of `chunk` when every byte is ASCII (see {@link scanJsonl}); else null. */
function asciiText(chunk: Uint8Array): string | null {
  const text = quickDecoder.decode(chunk);
  return text.length === chunk.length && !text.includes("\uFFFD") ? text : null;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Bytes per read of {@link openBytes}. */
export const READ_CHUNK_BYTES = 1 << 20;

/**
 * Opens a file as a byte stream for {@link scanJsonl}: chunks of up to
 * {@link READ_CHUNK_BYTES} (a file's `readable` yields 64 KiB chunks: 16
 * times the async reads, stream steps and line carries over chunk borders),
 * each a fresh buffer the consumer may keep. The file is closed when the stream ends or
 * its consumer stops early.
 */
export async function openBytes(path: string): Promise<AsyncIterable<Uint8Array>> {
  const file = await Deno.open(path, { read: true });
  return readChunks(file);
}

async function* readChunks(file: Deno.FsFile): AsyncGenerator<Uint8Array> {
  try {
    for (;;) {
      const buffer = new Uint8Array(READ_CHUNK_BYTES);
      let filled = 0;
      while (filled < buffer.length) {
        const read = await file.read(buffer.subarray(filled));
        if (read === null) break;
        filled += read;
      }
      if (filled > 0) yield filled === buffer.length ? buffer : buffer.subarray(0, filled);
      if (filled < buffer.length) return;
    }
  } finally {
    file.close();
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true });
/**
 * Deno's fatal decoder is several times slower than the replacing one, so
 * lines are decoded with the replacing decoder first; only a line whose text
 * holds U+FFFD (a replaced invalid sequence, or a genuine U+FFFD) is decoded
 * again strictly, which throws exactly as before on invalid UTF-8.
 */
const quickDecoder = new TextDecoder("utf-8");

function decodeStrict(bytes: Uint8Array): string {
  const text = quickDecoder.decode(bytes);
  return text.includes("\uFFFD") ? decoder.decode(bytes) : text;
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

/** Options for {@link parseLine}. */
export interface ParseLineOptions<T> {
  /**
   * A fast path tried before the schema: returns the parsed value, exactly as
   * `schema.safeParse(raw).data` would, or `undefined` to let the schema
   * decide (and word any error). See `_fast_episode.ts`.
   */
  fast?: (raw: Record<string, unknown>) => T | undefined;
}

/**
 * Decodes one JSONL line and parses it through a zod schema, turning any
 * failure into a {@link LedgerProblem} naming file, line and field.
 *
 * @param schema the zod schema every line must fit
 * @param input the line's `bytes` (without the `\n`), its `file`, 1-based `line` number and,
 *   when already decoded, its `text`
 * @param options an optional `fast` path tried before the schema
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
  let raw: unknown;
  try {
    raw = JSON.parse(text ?? decodeStrict(bytes));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      problem: {
        code: "malformed_json",
        file,
        line,
        field: "",
        message: `not valid JSON: ${message}`,
      },
    };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      problem: {
        code: "malformed_json",
        file,
        line,
        field: "",
        message: "a line must hold one JSON object",
      },
    };
  }
  if (options.fast !== undefined) {
    const value = options.fast(raw as Record<string, unknown>);
    if (value !== undefined) return { ok: true, value, raw: raw as Record<string, unknown> };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data, raw: raw as Record<string, unknown> };
  const issue = parsed.error.issues[0];
  const keys = issue.code === "unrecognized_keys" ? (issue as { keys: string[] }).keys : [];
  const path = [...issue.path, ...keys.slice(0, 1)].map(String).join(".");
  return {
    ok: false,
    problem: { code: "schema_violation", file, line, field: path, message: issue.message },
  };
}
