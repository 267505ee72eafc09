import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { unifiedDiff } from "./unified_diff.ts";
import { seededRandom } from "../../analysis/seeded_random.ts";

/** Applies unified-diff hunks to `a` (a test-only reader of the format). */
function applyHunks(a: string, hunks: string): string {
  const lines = a === "" ? [] : a.replace(/\n$/, "").split("\n");
  const out: string[] = [];
  let at = 0;
  for (const hunk of hunks.split(/^(?=@@ )/m).filter((h) => h !== "")) {
    const [head, ...body] = hunk.replace(/\n$/, "").split("\n");
    const start = Number(/^@@ -(\d+),(\d+)/.exec(head)![1]);
    const count = Number(/^@@ -(\d+),(\d+)/.exec(head)![2]);
    const from = count === 0 ? start : start - 1;
    while (at < from) out.push(lines[at++]);
    for (const line of body) {
      if (line.startsWith("\\")) continue;
      if (line[0] === " ") out.push(lines[at++]);
      else if (line[0] === "-") at++;
      else out.push(line.slice(1));
    }
  }
  while (at < lines.length) out.push(lines[at++]);
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

Deno.test("unifiedDiff() matches diff -u on a hand-checked change", () => {
  // `diff -u` of the two texts (GNU diffutils 3.8), header lines removed.
  const a = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
  const b = "one\ntwo\nthree\nfour\n5\nsix\nseven\neight\nnine\nten\neleven\n";
  assertEquals(
    unifiedDiff(a, b),
    "@@ -2,9 +2,10 @@\n two\n three\n four\n-five\n+5\n six\n seven\n eight\n nine\n ten\n+eleven\n",
  );
});

Deno.test("unifiedDiff() marks a new file, a deleted file and a missing final newline", () => {
  assertEquals(unifiedDiff("", "a\nb\n"), "@@ -0,0 +1,2 @@\n+a\n+b\n");
  assertEquals(unifiedDiff("a\n", ""), "@@ -1,1 +0,0 @@\n-a\n");
  assertEquals(
    unifiedDiff("a\n", "a"),
    "@@ -1,1 +1,1 @@\n-a\n+a\n\\ No newline at end of file\n",
  );
  assertEquals(unifiedDiff("same\n", "same\n"), "");
});

Deno.test("unifiedDiff() hunks rebuild the new text from the old (500 random pairs)", () => {
  const random = seededRandom(25);
  const words = ["a", "b", "c", "d"];
  const text = () =>
    Array.from({ length: Math.floor(random() * 30) }, () => words[Math.floor(random() * 4)])
      .map((w) => `${w}\n`).join("");
  for (let i = 0; i < 500; i++) {
    const a = text();
    const b = text();
    assertEquals(applyHunks(a, unifiedDiff(a, b, { context: i % 4 })), b);
  }
});

Deno.test("unifiedDiff() past maxEdits shows the whole text replaced, still a correct diff", () => {
  const a = Array.from({ length: 50 }, (_, i) => `a${i}\n`).join("");
  const b = Array.from({ length: 50 }, (_, i) => `b${i}\n`).join("");
  const hunks = unifiedDiff(a, b, { maxEdits: 10 });
  assertEquals(hunks.startsWith("@@ -1,50 +1,50 @@\n-a0\n"), true);
  assertEquals(applyHunks(a, hunks), b);
});
