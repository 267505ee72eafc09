import assert from "node:assert/strict";
import { StringSet } from "./_string_set.ts";
import { seededRandom } from "../analysis/seeded_random.ts";

/** A set whose strings its caller keeps (`textAt`), as the ledger reader keeps its rows. */
function heldSet(): Pick<StringSet, "add" | "has" | "size"> {
  const kept: string[] = [];
  const set = new StringSet({ textAt: (index) => kept[index] });
  return {
    add(text: string) {
      const added = set.add(text);
      if (added) kept.push(text);
      return added;
    },
    has: (text: string) => set.has(text),
    get size() {
      return set.size;
    },
  };
}

const MAKERS: [string, () => Pick<StringSet, "add" | "has" | "size">][] = [
  ["strings kept by the set", () => new StringSet()],
  ["strings kept by its caller", heldSet],
];

for (const [kept, make] of MAKERS) {
  Deno.test(`StringSet (${kept}) answers like a native Set on seeded random strings with many repeats`, () => {
    const random = seededRandom("string-set");
    const alphabet = ["a", "b", "/", "1", "é", "😀", "\u0000", "\uFFFD"];
    const native = new Set<string>();
    const set = make();
    for (let i = 0; i < 60_000; i++) {
      // short strings from a small alphabet: repeats are frequent, lengths vary from 0
      const length = Math.floor(random() * 6);
      let text = "";
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      const isNew = !native.has(text);
      native.add(text);
      assert.equal(set.add(text), isNew, JSON.stringify(text));
      assert.equal(set.size, native.size);
    }
    for (const text of native) assert.equal(set.has(text), true);
    assert.equal(set.has("not there"), false);
    // both answers occur often: 60,000 draws over 1 + 8 + ... + 8^5 = 37,449 possible strings
    assert.ok(native.size > 10_000 && 60_000 - native.size > 10_000, String(native.size));
  });

  Deno.test(`StringSet (${kept}) keeps strings apart when their hashes collide`, () => {
    // FNV-1a 32-bit gives both 1523436107: the first collision among "e0", "e1", ...,
    // found by brute force with a Map from hash to string
    const hash = (text: string) => {
      let h = 0x811c9dc5;
      for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
      return h | 0;
    };
    const pair = ["e522789", "e739192"];
    const [a, b] = pair;
    assert.notEqual(a, b);
    assert.equal(hash(a), 1523436107);
    assert.equal(hash(b), 1523436107);
    const set = make();
    assert.equal(set.add(a), true);
    assert.equal(set.has(b), false);
    assert.equal(set.add(b), true);
    assert.equal(set.add(a), false);
    assert.equal(set.add(b), false);
    assert.equal(set.size, 2);
  });

  Deno.test(`StringSet (${kept}) grows past its initial capacity without losing entries`, () => {
    const set = make();
    const ids = Array.from({ length: 100_000 }, (_, i) => `run/agent-${i % 7}/T${i}/1`);
    for (const id of ids) assert.equal(set.add(id), true);
    assert.equal(set.size, ids.length);
    for (const id of ids) assert.equal(set.add(id), false);
    assert.equal(set.size, ids.length);
  });
}

Deno.test("StringSet keeps a string stored two bytes per unit apart from one whose bytes match", () => {
  // "\u0100A" is stored as the bytes 00 01 41 00, the bytes of "\u0000\u0001A\u0000"
  const set = new StringSet();
  assert.equal(set.add("\u0100A"), true);
  assert.equal(set.add("\u0000\u0001A\u0000"), true);
  assert.equal(set.add("\u0100A"), false);
  assert.equal(set.add("\u0000\u0001A\u0000"), false);
  assert.equal(set.has("\u0100"), false);
  assert.equal(set.add(""), true);
  assert.equal(set.add(""), false);
  assert.equal(set.size, 3);
});

Deno.test("StringSet keeps strings across blocks, longer ones than a block included", () => {
  const set = new StringSet();
  const long = "x".repeat(1_500_000);
  const wideLong = "\u0101".repeat(600_000);
  const ids = Array.from({ length: 40_000 }, (_, i) => `${"r".repeat(40)}/T${i}`);
  for (const id of ids.slice(0, 20_000)) assert.equal(set.add(id), true);
  assert.equal(set.add(long), true);
  assert.equal(set.add(wideLong), true);
  for (const id of ids.slice(20_000)) assert.equal(set.add(id), true);
  for (const id of ids) assert.equal(set.add(id), false);
  assert.equal(set.add(long), false);
  assert.equal(set.add(`${long}y`), true);
  assert.equal(set.add(wideLong), false);
  assert.equal(set.has(long.slice(1)), false);
  assert.equal(set.size, ids.length + 3);
});
