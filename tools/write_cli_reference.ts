/**
 * Writes the CLI reference, `docs/cli.md`, from every command's `--help`
 * (`deno task cli-reference`), so that the reference is generated, never
 * written by hand (denoland/deployctl's habit: each subcommand exports its
 * `help`, examples first). A test compares the committed file with what this
 * script writes, so the two cannot drift.
 *
 * Usage: `deno run --allow-read --allow-write=docs/cli.md tools/write_cli_reference.ts [--out FILE]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { COMMANDS, main } from "../cli/main.ts";
import { ExitCode } from "../cli/_command.ts";

/** The committed reference, relative to the repository root. */
export const CLI_REFERENCE_PATH = "docs/cli.md";

/** The command that regenerates {@link CLI_REFERENCE_PATH}, for drift messages. */
export const CLI_REFERENCE_COMMAND = "npx deno task cli-reference";

/**
 * What `ledgerbench ARGS --help` prints, run in process through the CLI's own
 * entry ({@link main}), so the reference holds exactly the bytes a user sees.
 *
 * @param args the command words before `--help` (none: the command list)
 * @returns the help text
 * @throws {Error} when the CLI does not exit 0 or writes to stderr
 */
async function helpOf(args: string[]): Promise<string> {
  let stdout = "";
  let stderr = "";
  const code = await main([...args, "--help"], {
    stdout: (text) => stdout += text,
    stderr: (text) => stderr += text,
  });
  if (code !== ExitCode.ok || stderr !== "") {
    throw new Error(`"ledgerbench ${[...args, "--help"].join(" ")}" exited ${code}: ${stderr}`);
  }
  return stdout;
}

/**
 * A fenced `text` block holding `text` verbatim: the fence is one backtick
 * longer than the longest run of backticks inside (CommonMark's rule for a
 * fence's closing line), so no help text can end it early.
 */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}text\n${text.replace(/\n+$/, "")}\n${fence}`;
}

/**
 * The CLI reference as Markdown: the command list (`ledgerbench --help`),
 * then each registered command's `--help` in the order `--help` lists them
 * ({@link COMMANDS}), each under a heading `## name` with its one-line
 * summary. Deterministic: the help texts are constants of the command
 * modules.
 *
 * @returns the text of {@link CLI_REFERENCE_PATH}
 * @example Every registered command has a section
 * ```ts
 * import { cliReference } from "./write_cli_reference.ts";
 * const reference = await cliReference();
 * if (!reference.includes("\n## `summarize`\n")) throw new Error("no summarize section");
 * ```
 */
export async function cliReference(): Promise<string> {
  const sections = [
    "# CLI reference",
    `<!-- Generated from each command's --help by tools/write_cli_reference.ts: do not edit; run \`${CLI_REFERENCE_COMMAND}\`. -->`,
    "Every command of `npx deno task ledgerbench`, as its `--help` prints it (examples first). What the " +
    "numbers mean and where their rules come from: [analysis.md](analysis.md); the guides: " +
    "[README.md](README.md).",
    Object.entries(COMMANDS).map(([name, entry]) => `- [\`${name}\`](#${name}): ${entry.summary}`)
      .join("\n"),
    "## `ledgerbench`",
    fenced(await helpOf([])),
  ];
  for (const [name, entry] of Object.entries(COMMANDS)) {
    sections.push(`## \`${name}\``, entry.summary, fenced(await helpOf([name])));
  }
  return sections.join("\n\n") + "\n";
}

/**
 * Writes {@link cliReference} to `path`.
 *
 * @param path where to write (the repository's {@link CLI_REFERENCE_PATH} by default)
 * @returns the path written
 * @throws {Deno.errors.PermissionDenied} without write permission on `path`
 */
export async function writeCliReference(path: string = CLI_REFERENCE_PATH): Promise<string> {
  await Deno.writeTextFile(path, await cliReference());
  return path;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { out: { type: "string", default: CLI_REFERENCE_PATH }, help: { type: "boolean" } },
  });
  if (values.help) {
    console.log(
      `Usage: ${CLI_REFERENCE_COMMAND} [--out FILE]\n\nRegenerates ${CLI_REFERENCE_PATH} from every command's --help.`,
    );
  } else {
    console.log(`wrote ${await writeCliReference(values.out)}`);
  }
}
