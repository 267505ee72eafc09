/**
 * Known hijacks of a test run in Harbor's shared verifier mode (issue 22):
 * there the verifier runs in the candidate's own container, so the
 * candidate can leave behind what changes how the tests run without
 * touching the tests. Harbor checks none of these; ledgerbench flags each
 * one it finds on the row (the verdict stands, and says less):
 *
 * - `conftest`: a `conftest.py` the candidate added or changed (pytest
 *   loads it before any test, and can force every outcome);
 * - `sitecustomize`: a `sitecustomize.py` or `usercustomize.py` (Python runs
 *   it at every interpreter start);
 * - `pth_file`: a `.pth` file in a `site-packages` or `dist-packages`
 *   directory (its `import` lines run at every interpreter start);
 * - `path_shadow`: an executable named `python3`, `python`, `pytest`, `uv`,
 *   `uvx`, `bash` or `sh` added or changed in a directory of the verifier's
 *   `PATH` (the program the test script calls is then the candidate's), or
 *   a module the test run imports, `pytest`, `_pytest`, `pluggy` or
 *   `unittest` (a `.py` file or a package directory), added at the top of
 *   the working directory, which `python3 -m pytest` run there puts first on
 *   `sys.path`;
 * - `verifier_log_writer`: a process the candidate left holding a file
 *   under `/logs/verifier` open while the tests ran (found by
 *   `harbor_verifier.ts`, not here).
 *
 * @module
 */
import type { FsChange } from "./sandbox_session.ts";

/** One hijack found: its kind and the path (inside the container). */
export interface Hijack {
  flag: "conftest" | "sitecustomize" | "pth_file" | "path_shadow" | "verifier_log_writer";
  path: string;
}

/** Program names whose shadowing in `PATH` takes over a test script. */
const SHADOWED = new Set(["python3", "python", "pytest", "uv", "uvx", "bash", "sh"]);

/** Python modules whose shadowing in the working directory takes over a pytest run. */
const SHADOWED_MODULES = new Set(["pytest", "_pytest", "pluggy", "unittest"]);

/**
 * The file hijacks among what the candidate changed: the container's diff
 * against the image after the agent's exit, and the workspace's entries
 * that were not there before the agent ran.
 *
 * @param changed the container's changes (`SandboxSession.changes`) after the agent
 * @param workspaceAdded paths added to the workspace, relative to it
 * @param workdir where the workspace appears (its paths are reported there)
 * @param path the verifier's `PATH`
 * @returns the hijacks, sorted by path, each path once
 * @example
 * ```ts
 * import { fileHijacks } from "./shared_hijacks.ts";
 * import { deepEqual } from "node:assert/strict";
 * const changed = [{ path: "/usr/local/bin/pytest", kind: "added" as const }];
 * deepEqual(fileHijacks(changed, ["conftest.py"], "/app", "/usr/local/bin:/usr/bin"), [
 *   { flag: "conftest", path: "/app/conftest.py" },
 *   { flag: "path_shadow", path: "/usr/local/bin/pytest" },
 * ]);
 * ```
 */
export function fileHijacks(
  changed: readonly FsChange[],
  workspaceAdded: readonly string[],
  workdir: string,
  path: string,
): Hijack[] {
  const pathDirs = new Set(path.split(":").filter((dir) => dir !== ""));
  const paths = [
    ...changed.filter((change) => change.kind !== "deleted").map((change) => change.path),
    ...workspaceAdded.map((rel) => `${workdir.replace(/\/$/, "")}/${rel}`),
  ];
  const found = new Map<string, Hijack>();
  for (const rel of workspaceAdded) {
    const module = rel.includes("/") ? null : rel.replace(/\.py$/, "");
    if (module !== null && SHADOWED_MODULES.has(module)) {
      const full = `${workdir.replace(/\/$/, "")}/${rel}`;
      found.set(full, { flag: "path_shadow", path: full });
    }
  }
  for (const full of paths) {
    const slash = full.lastIndexOf("/");
    const dir = full.slice(0, slash) || "/";
    const name = full.slice(slash + 1);
    const flag: Hijack["flag"] | null = name === "conftest.py"
      ? "conftest"
      : name === "sitecustomize.py" || name === "usercustomize.py"
      ? "sitecustomize"
      : name.endsWith(".pth") && /\/(site|dist)-packages(\/|$)/.test(dir)
      ? "pth_file"
      : SHADOWED.has(name) && pathDirs.has(dir)
      ? "path_shadow"
      : null;
    if (flag !== null && !found.has(full)) found.set(full, { flag, path: full });
  }
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
