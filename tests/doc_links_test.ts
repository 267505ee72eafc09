/**
 * Every link in README.md and docs/*.md resolves: a relative link names a
 * file or directory of the repository that exists, and its `#anchor` (or a
 * bare `#anchor`) names a heading of that Markdown file, as GitHub makes
 * heading ids. Links to other sites are not fetched.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { docFiles, DOCS_ROOT, headingAnchors, markdownLinks } from "./_markdown.ts";

/** A path's kind, or null when nothing is there. */
async function kindOf(path: string): Promise<"file" | "directory" | null> {
  try {
    return (await Deno.stat(join(DOCS_ROOT, path))).isDirectory ? "directory" : "file";
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** What is wrong with `target` linked from `file`, or null when it resolves. */
async function brokenLink(file: string, target: string): Promise<string | null> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null;
  const hash = target.indexOf("#");
  const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  const path = pathPart === "" ? file : normalize(join(dirname(file), pathPart));
  if (path === ".." || path.startsWith("../")) {
    return `"${target}" leaves the repository`;
  }
  const kind = await kindOf(path);
  if (kind === null) {
    return `"${target}": no such file ${path}`;
  }
  if (anchor === null) return null;
  if (kind !== "file" || !path.endsWith(".md")) return `"${target}": an anchor into ${path}`;
  const anchors = headingAnchors(await Deno.readTextFile(join(DOCS_ROOT, path)));
  return anchors.has(anchor) ? null : `"${target}": ${path} has no heading #${anchor}`;
}

Deno.test("every relative link and anchor in README.md and docs/*.md resolves", async () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of await docFiles()) {
    for (const link of markdownLinks(await Deno.readTextFile(join(DOCS_ROOT, file)))) {
      checked++;
      const problem = await brokenLink(file, link.target);
      if (problem !== null) broken.push(`${file}:${link.line}: ${problem}`);
    }
  }
  assert.deepEqual(broken, [], `broken links:\n${broken.join("\n")}`);
  assert.ok(checked > 40, `only ${checked} links found`);
});
