/**
 * Off-thread hashing of a hash-chained ledger's lines. The reader needs the
 * SHA-256 of every line (each row's `prev_sha256` names its predecessor's),
 * and one call of `hash()` costs about as much as parsing the row; so once a
 * ledger is known to be chained and large, its chunks are also posted to a
 * worker (`_line_hash_worker.ts`), which splits them at `\n` exactly as
 * `scanJsonl` does and answers each chunk with the hex digests of the lines
 * it completes, while the main thread parses. The digests are the same bytes
 * through the same function, so the results, messages and line numbers are
 * those of inline hashing; any line the worker has not covered (the first
 * lines, the last unterminated one, everything after a worker failure, or
 * all of them without read permission for the worker module) is hashed
 * inline. Memory: at most two chunks in flight.
 *
 * @module
 */
import { hash } from "node:crypto";

const NEWLINE = 10;
const HEX = 64;
const WORKER_URL = new URL("./_line_hash_worker.ts", import.meta.url);

/** Bytes read inline before hashing moves to the worker, by default (small files never start one). */
export const OFF_THREAD_FROM_BYTES = 4 << 20;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Whether this process may load the worker module (Deno asks for read access to it). */
function workerAllowed(): boolean {
  if (WORKER_URL.protocol !== "file:") return false;
  try {
    const status = Deno.permissions.querySync({ name: "read", path: WORKER_URL });
    return status.state === "granted";
  } catch {
    return false;
  }
}

/** The digests of one stream's lines, computed ahead by a worker where possible. */
export class LineHashes {
  #from: number;
  #wanted: () => boolean;
  #visited: () => number;
  /** Digests (hex, concatenated) of lines `#base` ... `#base + #count - 1`. */
  #hexes = "";
  #base = 0;
  #count = 0;

  /**
   * @param from bytes to read before the worker may start (Infinity: never)
   * @param reader what the reader knows: `wanted`, whether line digests are needed (the
   *   ledger is chained), asked between chunks; `visited`, how many lines it has visited so far
   */
  constructor(from: number, reader: { wanted: () => boolean; visited: () => number }) {
    this.#from = from;
    this.#wanted = reader.wanted;
    this.#visited = reader.visited;
  }

  /** Hex SHA-256 of line `line`, whose bytes (without `\n`) are `bytes`. */
  of(bytes: Uint8Array, line: number): string {
    const i = line - this.#base;
    if (i >= 0 && i < this.#count) return this.#hexes.slice(i * HEX, i * HEX + HEX);
    return hash("sha256", bytes, "hex");
  }

  /**
   * Passes `source` through unchanged, chunk by chunk; once enough bytes have
   * been read and digests are wanted, each chunk is yielded only when the
   * worker's digests of the lines it completes are in (the next chunk is
   * already posted, so the worker hashes while the reader parses).
   */
  async *chunks(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    const it = source[Symbol.asyncIterator]();
    let seen = 0;
    /** The unfinished line so far (inline phase), handed to the worker when it starts. */
    let tail: Uint8Array | null = null;
    const allowed = this.#from !== Infinity && workerAllowed();
    for (;;) {
      if (allowed && seen >= this.#from && this.#wanted()) break;
      const next = await it.next();
      if (next.done) return;
      const chunk = next.value;
      seen += chunk.length;
      if (allowed) {
        const last = chunk.lastIndexOf(NEWLINE);
        if (last === -1) tail = tail === null ? chunk.slice() : concat(tail, chunk);
        else tail = last + 1 < chunk.length ? chunk.slice(last + 1) : null;
      }
      yield chunk;
    }
    const worker = new Worker(WORKER_URL.href, { type: "module" });
    try {
      yield* this.#pipeline(it, worker, tail);
    } finally {
      worker.terminate();
    }
  }

  async *#pipeline(
    it: AsyncIterator<Uint8Array>,
    worker: Worker,
    tail: Uint8Array | null,
  ): AsyncGenerator<Uint8Array> {
    const waiting: ((hexes: string) => void)[] = [];
    let failed = false;
    worker.onmessage = (event: MessageEvent<string>) => waiting.shift()!(event.data);
    worker.onerror = (event) => {
      // inline hashing takes over: same digests, only slower
      event.preventDefault();
      failed = true;
      for (const resolve of waiting.splice(0)) resolve("");
    };
    const post = (chunk: Uint8Array, carry?: Uint8Array): Promise<string> => {
      if (failed) return Promise.resolve("");
      const answer = new Promise<string>((resolve) => waiting.push(resolve));
      worker.postMessage(carry === undefined ? { chunk } : { chunk, carry });
      return answer;
    };
    let next = await it.next();
    if (next.done) return;
    let current = next.value;
    let pending = post(current, tail ?? new Uint8Array(0));
    for (;;) {
      next = await it.next();
      const following = next.done ? null : post(next.value);
      const hexes = await pending;
      this.#hexes = hexes;
      this.#base = this.#visited() + 1;
      this.#count = hexes.length / HEX;
      yield current;
      if (next.done || following === null) return;
      current = next.value;
      pending = following;
    }
  }
}
