/**
 * A set of strings kept outside the garbage-collected heap, for the ledger
 * reader's duplicate `episode_id` check. A native `Set` of a million ids
 * keeps a million live strings that every major collection traces again,
 * which on a large ledger costs more than parsing the JSON; here the ids'
 * UTF-16 code units live in one growing `Uint16Array` and the table is a pair
 * of typed arrays, so the strings themselves die young. Exact: a hash match
 * is confirmed by comparing every code unit. Cross-checked against `Set` in
 * `_string_set_test.ts`.
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

/**
 * An insert-only set of strings with O(1) expected `add`. Open addressing with
 * linear probing over one table of (entry + 1, hash) pairs, so that a probe
 * touches one cache line; an entry's code units are read only when its hash
 * matches. Memory: 2 bytes per code unit stored plus about 24 bytes per
 * entry, all in typed arrays.
 */
export class StringSet {
  /** Pairs (entry index + 1, hash); 0 marks an empty slot. Load factor ≤ 1/2. */
  #table = new Int32Array(2 << 14);
  #starts = new Int32Array(1 << 13);
  #lengths = new Int32Array(1 << 13);
  #units = new Uint16Array(1 << 18);
  #used = 0;
  #size = 0;

  /** Number of distinct strings added. */
  get size(): number {
    return this.#size;
  }

  /**
   * Adds `text`. Its code units are copied to the end of the store while
   * hashing (one pass over the string), and kept only when it is new.
   *
   * @returns true when it was not in the set yet
   */
  add(text: string): boolean {
    const length = text.length;
    if (this.#used + length > this.#units.length) this.#reserve(length);
    const units = this.#units;
    const start = this.#used;
    let hash = 0x811c9dc5;
    for (let i = 0; i < length; i++) {
      const unit = text.charCodeAt(i);
      units[start + i] = unit;
      hash = Math.imul(hash ^ unit, 0x01000193);
    }
    hash |= 0;
    const table = this.#table;
    const mask = (table.length >> 1) - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = table[2 * slot];
      if (entry === 0) break;
      if (table[2 * slot + 1] === hash && this.#sameAsPending(entry - 1, length)) return false;
      slot = (slot + 1) & mask;
    }
    const index = this.#size;
    if (index === this.#starts.length) {
      this.#starts = grow(this.#starts, new Int32Array(index * 2));
      this.#lengths = grow(this.#lengths, new Int32Array(index * 2));
    }
    this.#starts[index] = start;
    this.#lengths[index] = length;
    this.#used = start + length;
    this.#size = index + 1;
    table[2 * slot] = index + 1;
    table[2 * slot + 1] = hash;
    if (this.#size * 4 > table.length) this.#rehash();
    return true;
  }

  /** Whether `text` is in the set. */
  has(text: string): boolean {
    const hash = hashOf(text);
    const table = this.#table;
    const mask = (table.length >> 1) - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = table[2 * slot];
      if (entry === 0) return false;
      if (table[2 * slot + 1] === hash && this.#equals(entry - 1, text)) return true;
      slot = (slot + 1) & mask;
    }
  }

  #equals(index: number, text: string): boolean {
    if (this.#lengths[index] !== text.length) return false;
    const start = this.#starts[index];
    const units = this.#units;
    for (let i = 0; i < text.length; i++) {
      if (units[start + i] !== text.charCodeAt(i)) return false;
    }
    return true;
  }

  /** Whether entry `index` equals the `length` code units pending at the end of the store. */
  #sameAsPending(index: number, length: number): boolean {
    if (this.#lengths[index] !== length) return false;
    const units = this.#units;
    const start = this.#starts[index];
    const pending = this.#used;
    for (let i = 0; i < length; i++) {
      if (units[start + i] !== units[pending + i]) return false;
    }
    return true;
  }

  /** Grows the store so that `length` more code units fit. */
  #reserve(length: number): void {
    let capacity = this.#units.length * 2;
    while (capacity < this.#used + length) capacity *= 2;
    this.#units = grow(this.#units, new Uint16Array(capacity));
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

function grow<T extends Int32Array | Uint16Array>(from: T, to: T): T {
  to.set(from as unknown as ArrayLike<number>);
  return to;
}
