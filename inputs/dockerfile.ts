/**
 * Reading a Dockerfile's instructions (Docker's Dockerfile reference), for
 * the base images `freeze` must find before it builds a task's environment
 * (`dockerfileBases`, issue 12: nothing is pulled). Pure: no I/O.
 *
 * @module
 */

/** One Dockerfile instruction: its keyword (upper case), its arguments and its first line. */
export interface DockerfileInstruction {
  keyword: string;
  args: string;
  line: number;
}

/**
 * Splits a Dockerfile into instructions (Dockerfile reference: parser
 * directives, `#` comments, the escape character `\` or `` ` `` at a line's
 * end continuing it, here-documents `<<EOF` skipped to their terminator).
 *
 * @param text the Dockerfile
 * @returns its instructions in order, each with the line it starts on
 * @example
 * ```ts
 * import { dockerfileInstructions } from "./dockerfile.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(dockerfileInstructions("FROM a \\\n  AS b\nRUN x\n"), [
 *   { keyword: "FROM", args: "a    AS b", line: 1 },
 *   { keyword: "RUN", args: "x", line: 3 },
 * ]);
 * ```
 */
export function dockerfileInstructions(text: string): DockerfileInstruction[] {
  const lines = text.split(/\r?\n/);
  const escape = /^#\s*escape\s*=\s*`/i.test(lines.find((l) => l.trim() !== "") ?? "") ? "`" : "\\";
  const out: DockerfileInstruction[] = [];
  let i = 0;
  while (i < lines.length) {
    // The instruction's line: its first that is no comment (comments inside a continuation are dropped).
    let start = -1;
    let joined = "";
    for (; i < lines.length; i++) {
      const line = lines[i];
      if (/^\s*#/.test(line)) continue;
      if (start < 0) start = i;
      const trimmed = line.replace(/\s+$/, "");
      if (trimmed.endsWith(escape)) {
        joined += trimmed.slice(0, -1) + " ";
      } else {
        joined += line;
        i++;
        break;
      }
    }
    const match = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(joined);
    if (match === null) continue;
    out.push({ keyword: match[1].toUpperCase(), args: match[2].trim(), line: start + 1 });
    const heredoc = /<<-?\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?/.exec(match[2]);
    if (heredoc !== null) {
      while (i < lines.length && lines[i].trim() !== heredoc[1]) i++;
      i++;
    }
  }
  return out;
}

/**
 * The images a Dockerfile builds from, in order: those its `FROM` lines
 * name, and those a `COPY --from=` names (an image, not one of the file's
 * stages: Harbor's tasks copy uv's binary from `ghcr.io/astral-sh/uv`),
 * leaving out `scratch` and the file's own earlier stages (`FROM base AS
 * build`, then `FROM build` or `COPY --from=build`, or `--from=0`);
 * `--platform=` and other flags are skipped.
 * A reference holding a build argument (`$`) is returned as written: the
 * caller refuses it, since it cannot be checked before the build.
 *
 * @param text the Dockerfile
 * @returns the image references, each with the line of its `FROM` or `COPY`
 */
export function dockerfileBases(text: string): { ref: string; line: number }[] {
  const stages = new Set<string>();
  const bases: { ref: string; line: number }[] = [];
  let stageCount = 0;
  for (const instruction of dockerfileInstructions(text)) {
    if (instruction.keyword === "COPY") {
      // `COPY --from=` names an earlier stage (by name or index) or an image.
      const from = /(?:^|\s)--from=(\S+)/.exec(instruction.args)?.[1];
      const stage = from !== undefined &&
        (stages.has(from.toLowerCase()) || /^[0-9]+$/.test(from) && Number(from) < stageCount);
      if (from !== undefined && !stage) bases.push({ ref: from, line: instruction.line });
      continue;
    }
    if (instruction.keyword !== "FROM") continue;
    stageCount++;
    const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith("--"));
    const ref = words[0];
    if (ref === undefined || ref === "") continue;
    if (ref !== "scratch" && !stages.has(ref.toLowerCase())) {
      bases.push({ ref, line: instruction.line });
    }
    if (words[1]?.toUpperCase() === "AS" && words[2] !== undefined) {
      stages.add(words[2].toLowerCase());
    }
  }
  return bases;
}

/**
 * The instruction flags that only BuildKit's Dockerfile frontend reads
 * (Docker's Dockerfile reference marks each as needing BuildKit; the legacy
 * builder fails on them, as on `COPY --chmod`: "the --chmod option requires
 * BuildKit").
 */
const BUILDKIT_ONLY_FLAGS = [
  "--chmod",
  "--link",
  "--parents",
  "--exclude",
  "--checksum",
  "--keep-git-dir",
  "--mount",
  "--network",
  "--security",
];

/**
 * The first instruction a builder without BuildKit cannot build: one with a
 * flag of {@link BUILDKIT_ONLY_FLAGS}, or a here-document (`RUN <<EOF`,
 * `COPY <<EOF`), which only BuildKit reads (Dockerfile reference).
 *
 * @param text the Dockerfile
 * @returns the instruction's line and what needs BuildKit (`COPY --chmod`), or null
 * @example
 * ```ts
 * import { firstBuildKitOnlyInstruction } from "./dockerfile.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(
 *   firstBuildKitOnlyInstruction("FROM a\nCOPY --chmod=755 x /x\n"),
 *   { line: 2, feature: "COPY --chmod" },
 * );
 * ```
 */
export function firstBuildKitOnlyInstruction(
  text: string,
): { line: number; feature: string } | null {
  for (const { keyword, args, line } of dockerfileInstructions(text)) {
    // An instruction's flags come before its arguments (`RUN --mount=… make`).
    for (const word of args.split(/\s+/)) {
      if (!word.startsWith("--")) break;
      const flag = word.replace(/=.*$/, "");
      if (BUILDKIT_ONLY_FLAGS.includes(flag)) return { line, feature: `${keyword} ${flag}` };
    }
    if (/<<-?\s*["']?[A-Za-z_]/.test(args) && ["RUN", "COPY", "ADD"].includes(keyword)) {
      return { line, feature: `${keyword} here-document` };
    }
  }
  return null;
}
