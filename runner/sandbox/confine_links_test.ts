import assert from "node:assert/strict";
import { confinedEntries, escapingLinks, OUTSIDE_LINK_TARGET } from "./confine_links.ts";
import type { TreeEntry } from "./digest_tree.ts";

const dir = (path: string): TreeEntry => ({ path, type: "dir" });
const file = (path: string): TreeEntry => ({
  path,
  type: "file",
  exec: false,
  size: 0,
  sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
});
const link = (path: string, target: string): TreeEntry => ({ path, type: "symlink", target });

const escaping = (entries: TreeEntry[]) => [...escapingLinks(entries).keys()].sort();

Deno.test("escapingLinks() neutralises the red team's link to a hidden file", () => {
  // Issue 7: `ln -s /verifier/expected.txt /workspace/answer.txt` passed a1, a2, c1 and c2.
  const entries = [link("answer.txt", "/verifier/expected.txt"), file("notes.txt")];
  assert.deepEqual(escapingLinks(entries), new Map([["answer.txt", OUTSIDE_LINK_TARGET]]));
});

Deno.test("escapingLinks() keeps links that stay inside the tree", () => {
  const entries = [
    dir("src"),
    file("src/main.sh"),
    link("main", "src/main.sh"),
    link("src/self", "./main.sh"),
    link("src/up", "../main"),
    link("root", "."),
    link("via_root", "root/src/main.sh"),
    link("dir_link", "src"),
  ];
  assert.deepEqual(escaping(entries), []);
});

Deno.test("escapingLinks() resolves `..` after a link the way the kernel does", () => {
  // `sub/d` points at the root, so `sub/d/..` is above it, although the text
  // `sub/d/../../x` looks as if it stayed inside (lexically it is `x`).
  const entries = [
    dir("sub"),
    link("sub/d", ".."),
    file("x"),
    link("lexically_inside", "sub/d/../../x"),
    link("really_inside", "sub/d/x"),
  ];
  assert.deepEqual(escaping(entries), ["lexically_inside"]);
});

Deno.test("escapingLinks() neutralises absolute, climbing, dangling, looping and file-prefixed links", () => {
  const entries = [
    dir("a"),
    file("a/f"),
    link("absolute", "/etc/passwd"),
    link("climbing", "../verifier/cases.txt"),
    link("a/climbing_twice", "../../x"),
    link("dangling", "missing/../a/f"),
    link("loop1", "loop2"),
    link("loop2", "loop1"),
    link("below_file", "a/f/x"),
    link("chained", "absolute"),
  ];
  assert.deepEqual(escaping(entries), [
    "a/climbing_twice",
    "absolute",
    "below_file",
    "chained",
    "climbing",
    "dangling",
    "loop1",
    "loop2",
  ]);
});

Deno.test("confinedEntries() retargets only the escaping links, in the same order", () => {
  const entries = [file("a"), link("b", "a"), link("c", "/verifier/x")];
  assert.deepEqual(confinedEntries(entries), [
    file("a"),
    link("b", "a"),
    link("c", OUTSIDE_LINK_TARGET),
  ]);
});
