/**
 * A set of strings kept outside the garbage-collected heap, for the ledger
 * reader's duplicate `episode_id` check. A native `Set` of a million ids
 * keeps a million live strings that every major collection traces again,
 * which on a large ledger costs more than parsing the JSON; here the ids'
 * code units live in fixed-size byte blocks and the table is a pair of typed
 * arrays, so the strings themselves die young. Exact: a hash match is
 * confirmed by comparing every stored byte. Cross-checked against `Set` in
 * `_string_set_test.ts`.
 *
 * Memory is the cost that matters at a million ids: every page a process
 * touches for the first time costs a page fault, and the previous store,
 * UTF-16 code units in one array grown by doubling and copying, touched
 * about four times the bytes it kept. Here a string whose code units all
 * fit a byte (ids are almost always ASCII) is stored one byte per unit, any
 * other two bytes per unit (low byte first), and a full block is never
 * copied: the next string opens a new one.
 *
 * @module
 */

/** FNV-1a over the UTF-16 code units, 32 bits. O(length). */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  return hash | 0;
}

/** log2 of a block's size in bytes; an entry's position is (block << BLOCK_BITS) | offset. */
const BLOCK_BITS = 20;
const BLOCK_BYTES = 1 << BLOCK_BITS;
/** Positions are read back as unsigned 32-bit numbers: at most 4,096 blocks (4 GiB of ids). */
const MAX_BLOCKS = 2 ** (32 - BLOCK_BITS);

/**
 * An insert-only set of strings with O(1) expected `add`. Open addressing with
 * linear probing over one table of (entry + 1, hash) pairs, so that a probe
 * touches one cache line; an entry's bytes are read only when its hash
 * matches. An entry's form is its byte length times 2, plus 1 when it is
 * stored two bytes per unit: equal strings have equal forms and bytes, and
 * different strings differ in one or the other. Memory: 1 byte per code unit
 * (2 when a unit exceeds U+00FF) plus about 24 bytes per entry, all in typed
 * arrays.
 */
export class StringSet {
  /** Where the caller keeps each entry's text; null: the set keeps the code units. */
  readonly #textAt: ((index: number) => string) | null;
  /** Pairs (entry index + 1, hash); 0 marks an empty slot. Load factor ≤ 1/2. */
  #table = new Int32Array(2 << 14);
  #positions = new Int32Array(1 << 13);
  #forms = new Int32Array(1 << 13);
  #blocks: Uint8Array[] = [new Uint8Array(BLOCK_BYTES)];
  /** The last block, where new entries go, and the bytes used in it. */
  #block = this.#blocks[0];
  #used = 0;
  #size = 0;

  /**
   * @param options `textAt`: the text of the `index`-th string added (0-based,
   *   counting only those that were new), where the caller keeps it (a
   *   ledger's rows); the set then keeps only a hash and an index per string,
   *   8 bytes in its table, and confirms a matching hash with `textAt`
   */
  constructor(options: { textAt?: (index: number) => string } = {}) {
    this.#textAt = options.textAt ?? null;
  }

  /** Number of distinct strings added. */
  get size(): number {
    return this.#size;
  }

  /**
   * Adds `text`. Its code units are copied to the end of the last block while
   * hashing (one pass over the string, a second one for a string with a unit
   * beyond U+00FF), and kept only when it is new.
   *
   * @returns true when it was not in the set yet
   */
  add(text: string): boolean {
    if (this.#textAt !== null) return this.#addHeld(text, this.#textAt);
    const length = text.length;
    // an entry starts at an offset below BLOCK_BYTES (its position's low bits), in room for it
    if (this.#used >= BLOCK_BYTES || this.#used + 2 * length > this.#block.length) {
      this.#openBlock(2 * length);
    }
    const bytes = this.#block;
    const start = this.#used;
    let hash = 0x811c9dc5;
    let wide = false;
    for (let i = 0; i < length; i++) {
      const unit = text.charCodeAt(i);
      if (unit > 0xff) {
        wide = true;
        break;
      }
      bytes[start + i] = unit;
      hash = Math.imul(hash ^ unit, 0x01000193);
    }
    const form = wide ? 4 * length + 1 : 2 * length;
    if (wide) {
      hash = 0x811c9dc5;
      for (let i = 0; i < length; i++) {
        const unit = text.charCodeAt(i);
        bytes[start + 2 * i] = unit & 0xff;
        bytes[start + 2 * i + 1] = unit >> 8;
        hash = Math.imul(hash ^ unit, 0x01000193);
      }
    }
    hash |= 0;
    // Probed inline, not through #slotOf: a closure per row costs the reader about a tenth.
    const table = this.#table;
    const mask = (table.length >> 1) - 1;
    let slot = hash & mask;
    for (let entry = table[2 * slot]; entry !== 0; entry = table[2 * slot]) {
      if (table[2 * slot + 1] === hash && this.#sameAsPending(entry - 1, form)) return false;
      slot = (slot + 1) & mask;
    }
    const index = this.#size;
    if (index === this.#positions.length) {
      this.#positions = doubled(this.#positions);
      this.#forms = doubled(this.#forms);
    }
    this.#positions[index] = ((this.#blocks.length - 1) << BLOCK_BITS) | start;
    this.#forms[index] = form;
    this.#used = start + (form >> 1);
    this.#place(slot, hash);
    return true;
  }

  /** Whether `text` is in the set. */
  has(text: string): boolean {
    const textAt = this.#textAt;
    return this.#slotOf(
      hashOf(text),
      (index) => textAt === null ? this.#equals(index, text) : textAt(index) === text,
    ) >= 0;
  }

  /** {@link add} of a set whose caller keeps the text (`textAt`). */
  #addHeld(text: string, textAt: (index: number) => string): boolean {
    const hash = hashOf(text);
    const slot = this.#slotOf(hash, (index) => textAt(index) === text);
    if (slot >= 0) return false;
    this.#place(~slot, hash);
    return true;
  }

  /**
   * The slot of the entry with `hash` that `matches`; when none does, the
   * empty slot where it would go, as `~slot` (negative).
   */
  #slotOf(hash: number, matches: (index: number) => boolean): number {
    const table = this.#table;
    const mask = (table.length >> 1) - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = table[2 * slot];
      if (entry === 0) return ~slot;
      if (table[2 * slot + 1] === hash && matches(entry - 1)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /** Places the next entry in the empty `slot` with its hash, doubling the table past half full. */
  #place(slot: number, hash: number): void {
    const index = this.#size;
    this.#size = index + 1;
    this.#table[2 * slot] = index + 1;
    this.#table[2 * slot + 1] = hash;
    if (this.#size * 4 > this.#table.length) this.#rehash();
  }

  #equals(index: number, text: string): boolean {
    const form = this.#forms[index];
    const wide = form & 1;
    if (form >> (1 + wide) !== text.length) return false;
    const position = this.#positions[index] >>> 0;
    const bytes = this.#blocks[position >>> BLOCK_BITS];
    const start = position & (BLOCK_BYTES - 1);
    for (let i = 0; i < text.length; i++) {
      const unit = wide === 0
        ? bytes[start + i]
        : bytes[start + 2 * i] | (bytes[start + 2 * i + 1] << 8);
      if (unit !== text.charCodeAt(i)) return false;
    }
    return true;
  }

  /** Whether entry `index` has `form` and the bytes pending at the end of the last block. */
  #sameAsPending(index: number, form: number): boolean {
    if (this.#forms[index] !== form) return false;
    const position = this.#positions[index] >>> 0;
    const bytes = this.#blocks[position >>> BLOCK_BITS];
    const start = position & (BLOCK_BYTES - 1);
    const pending = this.#block;
    const at = this.#used;
    for (let i = 0; i < form >> 1; i++) {
      if (bytes[start + i] !== pending[at + i]) return false;
    }
    return true;
  }

  /** Opens a new last block with room for `bytes` (its own block when larger than one). */
  #openBlock(bytes: number): void {
    if (this.#blocks.length === MAX_BLOCKS) {
      throw new RangeError(`A string set holds at most ${MAX_BLOCKS} blocks of strings`);
    }
    this.#block = new Uint8Array(Math.max(BLOCK_BYTES, bytes));
    this.#blocks.push(this.#block);
    this.#used = 0;
  }

  /** Doubles the table, re-placing every pair by its stored hash. */
  #rehash(): void {
    const old = this.#table;
    const table = new Int32Array(old.length * 2);
    const mask = (table.length >> 1) - 1;
    for (let i = 0; i < old.length; i += 2) {
      const entry = old[i];
      if (entry === 0) continue;
      const hash = old[i + 1];
      let slot = hash & mask;
      while (table[2 * slot] !== 0) slot = (slot + 1) & mask;
      table[2 * slot] = entry;
      table[2 * slot + 1] = hash;
    }
    this.#table = table;
  }
}

/** A copy of `from` with twice its length, the rest zero. */
function doubled(from: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const to = new Int32Array(from.length * 2);
  to.set(from);
  return to;
}
