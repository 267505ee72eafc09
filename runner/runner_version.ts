/**
 * The runner's version as frozen into plans and recorded in every row (seed
 * 002: "测试运行器版本" is part of the frozen environment).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { fileURLToPath } from "node:url";

/** The release line of the runner. */
export const RUNNER_RELEASE = "0.1.0";

/**
 * The runner version: `<release>+src.<12 hex>`, where the hex is the start of
 * the SHA-256 over every non-test `.ts` file under `runner/` and under
 * `analysis/schema/` (the records the runner writes and the suite manifests
 * and provider scripts it reads, moved there from `runner/` in issue 23),
 * sorted by path relative to the runner's directory; each contributes
 * `<path>\n<sha256 of its bytes>\n`. Any change to the runner's code, relay,
 * sandbox and records included, changes the version, so a plan frozen under
 * one runner is refused by another. O(size of runner/ and analysis/schema/).
 *
 * @returns e.g. `0.1.0+src.3f9a0c1d2b4e`
 */
export async function runnerVersion(): Promise<string> {
  const root = fileURLToPath(new URL(".", import.meta.url)).replace(/\/$/, "");
  const files: string[] = [];
  const walk = async (dir: string, rel: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`, path);
      else if (entry.isFile && path.endsWith(".ts") && !path.endsWith("_test.ts")) files.push(path);
    }
  };
  await walk(root, "");
  await walk(`${root}/../analysis/schema`, "../analysis/schema");
  files.sort();
  const hash = createHash("sha256");
  for (const path of files) {
    const bytes = await Deno.readFile(`${root}/${path}`);
    hash.update(`${path}\n${sha256Hex(bytes)}\n`);
  }
  return `${RUNNER_RELEASE}+src.${hash.digest("hex").slice(0, 12)}`;
}
