import { deepEqual, equal, ok } from "node:assert/strict";
import {
  CLI_REFERENCE_COMMAND,
  CLI_REFERENCE_PATH,
  cliReference,
  writeCliReference,
} from "./write_cli_reference.ts";
import { COMMANDS } from "../cli/main.ts";
import { help as summarizeHelp } from "../cli/summarize.ts";

const ROOT = new URL("..", import.meta.url);

Deno.test("cliReference() is the committed docs/cli.md, byte for byte", async () => {
  const committed = await Deno.readTextFile(new URL(CLI_REFERENCE_PATH, ROOT));
  ok(
    committed === await cliReference(),
    `${CLI_REFERENCE_PATH} differs from the commands' --help: run ${CLI_REFERENCE_COMMAND}`,
  );
});

Deno.test("cliReference() holds one section per registered command, its help verbatim", async () => {
  const reference = await cliReference();
  const headings = [...reference.matchAll(/^## `([^`]+)`$/gm)].map((match) => match[1]);
  deepEqual(headings, ["ledgerbench", ...Object.keys(COMMANDS)]);
  ok(reference.includes(`\n${summarizeHelp.trimEnd()}\n`));
});

Deno.test("writeCliReference() writes the same bytes twice", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-cli-reference-" });
  try {
    const path = await writeCliReference(`${dir}/cli.md`);
    const first = await Deno.readTextFile(path);
    await writeCliReference(path);
    equal(await Deno.readTextFile(path), first);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
