/**
 * Test helpers for tasks in their own environments (issue 12): the offline
 * Python toolchain image they build on (tests/fixtures/toolchain/
 * build_python_base.sh: the host's Python over busybox, loaded with `docker
 * import`; nothing is pulled), a hand-written suite over it, and a
 * scripted-provider script for the Codex CLI.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { equal } from "node:assert/strict";
import type { ProviderScriptInput } from "../analysis/schema/provider_script.ts";
import { type CliResult, cliWithEnv } from "./_cli_run.ts";

/**
 * A Dockerfile line giving the busybox-based toolchain image a `bash`: a
 * two-line script running busybox's shell (Harbor runs `bash
 * /tests/test.sh`, and its images must have bash).
 */
export const BASH_STAND_IN =
  "RUN printf '#!/bin/sh\\nexec /bin/sh \"$@\"\\n' > /bin/bash && chmod 755 /bin/bash";

/**
 * Builds (or reuses) the Python toolchain image.
 *
 * @returns its reference, `ledgerbench-test/python:<tag>`
 * @throws {Error} when the script fails (its stderr in the message)
 */
export async function buildPythonBase(): Promise<string> {
  const script = new URL("./fixtures/toolchain/build_python_base.sh", import.meta.url).pathname;
  const out = await new Deno.Command("bash", { args: [script], stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`build_python_base.sh failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * A hand-written suite whose two tasks need Python: `py-mean` built from a
 * Dockerfile over `python` (a RUN step proves the build is offline),
 * verified by the JSON line; `py-double` naming `python` itself, working in
 * `/app`, verified by a Harbor-style `test.sh` entry writing
 * `/logs/verifier/reward.txt` with its hidden files at `/tests`. Each has
 * the scripted agents' answers and an oracle `solution/solve.sh`.
 *
 * @param python the base image reference ({@link buildPythonBase})
 * @returns path → text (`.sh` files are to be made executable)
 */
export function pythonSuiteFiles(python: string): Record<string, string> {
  return {
    "suite.json": JSON.stringify({
      suite_id: "python-suite",
      tasks: [
        {
          task_id: "py-mean",
          environment: { dockerfile: "environment/Dockerfile" },
          limits: { wall_ms_cap: 600000 },
        },
        {
          task_id: "py-double",
          environment: { image: python },
          workdir: "/app",
          verifier: { entry: "test.sh", mount: "/tests", verdict: "reward", pass_threshold: 1 },
          limits: { wall_ms_cap: 600000 },
        },
      ],
    }),
    "tasks/py-mean/environment/Dockerfile": [
      `FROM ${python}`,
      // A RUN step, offline: the build has no network.
      `RUN python3 -c "import statistics; print(statistics.mean([1, 2]))" > /toolchain-checked`,
      "",
    ].join("\n"),
    "tasks/py-mean/workspace/TASK.md":
      "ledgerbench-task: py-mean\nMake mean.py print the mean of the numbers in the file $1.\n",
    "tasks/py-mean/workspace/mean.py": "print(0)\n",
    "tasks/py-mean/verifier/verify.sh": [
      "#!/bin/sh",
      'shared=$(mktemp -d /scratch/shared.XXXXXX) && chmod 755 "$shared"',
      'printf "2\\n4\\n9\\n" > "$shared/input.txt" && chmod 644 "$shared/input.txt"',
      'out=$("$LEDGERBENCH_AS_CANDIDATE" python3 /workspace/mean.py "$shared/input.txt")',
      'if [ "$out" = "5.0" ]; then passed=true; else passed=false; fi',
      'echo "{\\"resolved\\": $passed, \\"checks\\": [{\\"name\\": \\"mean\\", \\"passed\\": $passed}]}"',
      "",
    ].join("\n"),
    "tasks/py-mean/answer.md":
      "```file:mean.py\nimport sys\nnums = [float(x) for x in open(sys.argv[1])]\nprint(sum(nums) / len(nums))\n```\n",
    "tasks/py-mean/wrong_answer.md": "```file:mean.py\nprint(5)\n```\n",
    "tasks/py-mean/solution/solve.sh": [
      "#!/bin/sh",
      "cat > /workspace/mean.py <<'EOF'",
      "import sys",
      "nums = [float(x) for x in open(sys.argv[1])]",
      "print(sum(nums) / len(nums))",
      "EOF",
      "",
    ].join("\n"),
    "tasks/py-double/workspace/TASK.md":
      "ledgerbench-task: py-double\nMake /app/double.py print twice its argument.\n",
    "tasks/py-double/workspace/double.py": "import sys\nprint(sys.argv[1])\n",
    "tasks/py-double/verifier/test.sh": [
      "#!/bin/sh",
      "# Harbor's contract: the reward goes to /logs/verifier/reward.txt.",
      'if [ "$(python3 /app/double.py "$(cat /tests/input.txt)")" = 42 ]; then',
      "  echo 1 > /logs/verifier/reward.txt",
      "else",
      "  echo 0 > /logs/verifier/reward.txt",
      "fi",
      "",
    ].join("\n"),
    "tasks/py-double/verifier/input.txt": "21\n",
    "tasks/py-double/answer.md":
      "```file:double.py\nimport sys\nprint(int(sys.argv[1]) * 2)\n```\n",
    "tasks/py-double/wrong_answer.md": "```file:double.py\nprint(41)\n```\n",
    "tasks/py-double/solution/solve.sh":
      "#!/bin/sh\nprintf 'import sys\\nprint(int(sys.argv[1]) * 2)\\n' > /app/double.py\n",
  };
}

/**
 * Writes `files` under `dir`, making each `.sh` file executable.
 *
 * @param dir the suite directory to create
 * @param files path → text
 */
export async function writeSuite(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
    if (path.endsWith(".sh")) await Deno.chmod(`${dir}/${path}`, 0o755);
  }
}

/**
 * Imports the Harbor-format tasks of `<dir>/harbor` with `suite import
 * harbor` into `<dir>/<out>` (default `suite`), asserted to succeed.
 *
 * @param dir a directory of the test's, holding the tasks in `harbor/`
 * @param options further `suite import harbor` arguments, variables for the CLI, the suite's name
 * @returns the CLI's result (its stdout lists the tasks)
 */
export async function importHarborSuite(
  dir: string,
  options: { importArgs?: string[]; env?: Record<string, string>; out?: string } = {},
): Promise<CliResult> {
  const imported = await cliWithEnv(
    options.env ?? {},
    "suite",
    "import",
    "harbor",
    `${dir}/harbor`,
    "--out",
    `${dir}/${options.out ?? "suite"}`,
    ...(options.importArgs ?? []),
  );
  equal(imported.code, 0, imported.stderr);
  return imported;
}

/**
 * Imports the Harbor-format tasks of `<dir>/harbor` into `<dir>/suite`
 * ({@link importHarborSuite}) and proves them with `suite check`, each step
 * asserted to succeed.
 *
 * @param dir a directory of the test's, holding the tasks in `harbor/`
 * @param options further `suite import harbor` and `suite check` arguments, and variables for the CLI
 * @returns the suite directory and the directory `suite check` wrote
 */
export async function importCheckedHarborSuite(
  dir: string,
  options: { importArgs?: string[]; checkArgs?: string[]; env?: Record<string, string> } = {},
): Promise<{ suite: string; checkDir: string }> {
  const env = options.env ?? {};
  const suite = `${dir}/suite`;
  await importHarborSuite(dir, { importArgs: options.importArgs, env });
  const check = await cliWithEnv(env, "suite", "check", suite, ...(options.checkArgs ?? []));
  const summary = await Deno.readTextFile(`${suite}/check.json`).catch(() => "{}");
  equal(check.code, 0, check.stderr + check.stdout + summary);
  return { suite, checkDir: /written: (.+)\n/.exec(check.stdout)![1] };
}

/** A real agent's shell tool, as a script asks for it: its model and its tool call for a command. */
export interface ShellAgent {
  model: string;
  toolCall(cmd: string): { name: string; arguments: string };
}

/** The Codex CLI (model `m-codex`): `exec_command`, run with busybox `sh`. */
export const CODEX_SHELL: ShellAgent = {
  model: "m-codex",
  toolCall: (cmd) => ({ name: "exec_command", arguments: JSON.stringify({ cmd }) }),
};

/** opencode (model `m-opencode`): its `bash` tool. */
export const OPENCODE_SHELL: ShellAgent = {
  model: "m-opencode",
  toolCall: (command) => ({
    name: "bash",
    arguments: JSON.stringify({ command, description: "Write the answer" }),
  }),
};

/** The Gemini CLI (model `gemini-2.5-flash`): `run_shell_command` (no `$(...)` allowed). */
export const GEMINI_SHELL: ShellAgent = {
  model: "gemini-2.5-flash",
  toolCall: (command) => ({
    name: "run_shell_command",
    arguments: JSON.stringify({ command, description: "Write the answer" }),
  }),
};

/**
 * A script for a real agent: at each task, one shell tool call that writes
 * `content` to `path` (through `base64 -d`, so nothing needs quoting), then
 * "Done." once the tool's result comes back.
 *
 * @param agent the agent's model and shell tool
 * @param writes per task, the file to write and its content
 * @returns the script
 */
export function shellToolScript(
  agent: ShellAgent,
  writes: Array<{ task: string; path: string; content: string }>,
): ProviderScriptInput {
  return {
    model: agent.model,
    rules: [
      ...writes.map(({ task, path, content }) => ({
        turn: 0,
        contains: `ledgerbench-task: ${task}\n`,
        reply: {
          tool_calls: [
            agent.toolCall(
              `echo '${Buffer.from(content, "utf8").toString("base64")}' | base64 -d > ${path}`,
            ),
          ],
          usage: { prompt_tokens: 1200, completion_tokens: 30 },
        },
      })),
      {
        turn: 1,
        last: "tool_result",
        reply: { content: "Done.", usage: { prompt_tokens: 1300, completion_tokens: 5 } },
      },
    ],
    default: { content: "" },
  };
}
