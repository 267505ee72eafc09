/**
 * The key check every candidate passes before it starts, whatever its
 * sandbox or protocol (seed 000, "密钥不进容器": the upstream key stays on the
 * host, in the relay; nothing the candidate is given may hold it): its
 * environment's names and values, its command, and every regular file of
 * the workspace copy it will see. A hit refuses the start (a harness fault,
 * the candidate never runs).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { SandboxError } from "./sandbox_error.ts";

/** What a candidate is about to be given. */
export interface CandidateStart {
  /** Its environment beyond the image's. */
  env: Readonly<Record<string, string>>;
  /** Its command. */
  argv: readonly string[];
  /** The workspace copy it will see, on the host; null when it sees none. */
  workspace: string | null;
}

/**
 * Refuses a candidate whose environment, command or workspace holds one of
 * `values` (empty values are ignored).
 *
 * @param start what the candidate is about to be given
 * @param values the forbidden values (the upstream key)
 * @throws {SandboxError} `forbidden_value`, naming the variable, the command or the file
 * @example
 * ```ts
 * import { refuseForbiddenValues } from "./forbidden_values.ts";
 * import { rejects } from "node:assert/strict";
 * await rejects(
 *   refuseForbiddenValues({ env: { NOTE: "k=sk-1" }, argv: [], workspace: null }, ["sk-1"]),
 *   /environment variable "NOTE" contains a forbidden value/,
 * );
 * ```
 */
export async function refuseForbiddenValues(
  start: CandidateStart,
  values: readonly string[],
): Promise<void> {
  const forbidden = values.filter((value) => value !== "");
  if (forbidden.length === 0) return;
  const holds = (text: string) => forbidden.some((value) => text.includes(value));
  for (const [name, value] of Object.entries(start.env)) {
    if (holds(name) || holds(value)) {
      refuse(`environment variable "${name}" contains a forbidden value`);
    }
  }
  if (start.argv.some(holds)) refuse("its command contains a forbidden value");
  const leak = start.workspace === null ? null : await fileHolding(start.workspace, forbidden);
  if (leak !== null) refuse(`workspace file "${leak}" contains a forbidden value`);
}

function refuse(why: string): never {
  throw new SandboxError("forbidden_value", `Refusing to start the candidate: ${why}`);
}

/** The relative path of the first regular file under `dir` holding one of `values`, or null. */
async function fileHolding(dir: string, values: readonly string[]): Promise<string | null> {
  const needles = values.map((v) => Buffer.from(v, "utf8"));
  async function visit(abs: string, rel: string): Promise<string | null> {
    for await (const entry of Deno.readDir(abs)) {
      const childAbs = `${abs}/${entry.name}`;
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory) {
        const found = await visit(childAbs, childRel);
        if (found) return found;
      } else if (entry.isFile) {
        const bytes = Buffer.from(await Deno.readFile(childAbs));
        if (needles.some((needle) => bytes.includes(needle))) return childRel;
      }
    }
    return null;
  }
  return await visit(dir, "");
}
