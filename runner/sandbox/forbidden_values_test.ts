import { rejects } from "node:assert/strict";
import { refuseForbiddenValues } from "./forbidden_values.ts";
import { SandboxError } from "./sandbox_error.ts";

const KEY = "sk-live-0123456789";

Deno.test("refuseForbiddenValues() refuses the key in a variable's name or value, the command or a workspace file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/nested`);
    await Deno.writeTextFile(`${dir}/nested/notes.txt`, "nothing here\n");
    const clean = { env: { OPENAI_API_KEY: "sandbox" }, argv: ["agent", "--fast"], workspace: dir };
    await refuseForbiddenValues(clean, [KEY, ""]);
    const refused = (why: RegExp) => (e: unknown) =>
      e instanceof SandboxError && e.code === "forbidden_value" && why.test(e.message);
    await rejects(
      refuseForbiddenValues({ ...clean, env: { NOTE: `Bearer ${KEY}` } }, [KEY]),
      refused(/^Refusing to start the candidate: environment variable "NOTE" contains/),
    );
    await rejects(
      refuseForbiddenValues({ ...clean, env: { [KEY]: "x" } }, [KEY]),
      refused(/environment variable ".*" contains a forbidden value$/),
    );
    await rejects(
      refuseForbiddenValues({ ...clean, argv: ["agent", `--key=${KEY}`] }, [KEY]),
      refused(/its command contains a forbidden value$/),
    );
    await Deno.writeTextFile(`${dir}/nested/config.toml`, `key = "${KEY}"\n`);
    await rejects(
      refuseForbiddenValues(clean, [KEY]),
      refused(/workspace file "nested\/config\.toml" contains a forbidden value$/),
    );
    // No value to look for: nothing refused.
    await refuseForbiddenValues(clean, [""]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
