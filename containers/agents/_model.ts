/**
 * The agent side of the agent ↔ model contract, shared by the scripted agents
 * that run inside the candidate sandbox (seed 000, "宿主中转模式": the agent
 * reaches a model only through the OpenAI-compatible endpoint the host relay
 * exposes inside the sandbox).
 *
 * Contract:
 * - the task prompt is `/workspace/TASK.md` (override: `LEDGERBENCH_TASK_FILE`);
 * - a call POSTs `{"model": $LEDGERBENCH_MODEL, "messages": [...]}` to
 *   `$OPENAI_BASE_URL/chat/completions` with `Authorization: Bearer
 *   $OPENAI_API_KEY` (a dummy token: the real key never enters the sandbox);
 * - the forwarder into the sandbox starts just after the container, so a
 *   refused connection is retried for up to `LEDGERBENCH_CONNECT_WAIT_MS`
 *   (default 15000) milliseconds; HTTP errors (429, 5xx, cap refusals) are
 *   never retried here, they are the relay's verdict.
 *
 * Only Deno built-ins are used: the sandbox has no network and no cache.
 *
 * @module
 */

/** The workspace the runner bind-mounts into the sandbox. */
export const WORKSPACE = "/workspace";

/** One chat message. */
export interface Message {
  role: "system" | "user" | "assistant";
  content: string;
}

/** What one model call returned. */
export interface ChatResult {
  /** HTTP status of the relay's answer. */
  status: number;
  /** `choices[0].message.content`, or null when absent. */
  content: string | null;
  /** The parsed body, or the raw text when it was not JSON. */
  body: unknown;
  /**
   * The budget left as the relay's headers tell it (`ledgerbench-tokens-left`,
   * `ledgerbench-steps-left`, and `ledgerbench-prompt-bound`, what the call's
   * prompt reserved; `runner/relay/budget_left.ts`), null for what is not told.
   */
  left: { tokens: number | null; steps: number | null; promptBound: number | null };
}

/**
 * Reads the task prompt.
 *
 * @returns the text of `/workspace/TASK.md` (or `$LEDGERBENCH_TASK_FILE`), or
 * `""` when the file does not exist
 */
export async function readTask(): Promise<string> {
  const file = Deno.env.get("LEDGERBENCH_TASK_FILE") ?? `${WORKSPACE}/TASK.md`;
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
}

function endpoint(): string {
  const base = Deno.env.get("OPENAI_BASE_URL");
  if (!base) throw new Error('Cannot call the model: "OPENAI_BASE_URL" is not set');
  return `${base.replace(/\/+$/, "")}/chat/completions`;
}

/**
 * POSTs one chat completion request to the relay.
 *
 * Rule: a refused or reset connection is retried every 100 ms until
 * `LEDGERBENCH_CONNECT_WAIT_MS` has passed since the first attempt; any HTTP
 * answer (including 429 and 5xx) is returned as is.
 *
 * @param messages the conversation so far
 * @returns status, the first choice's content and the parsed body
 * @throws {Error} when no connection could be made within the wait
 */
export async function chat(messages: Message[]): Promise<ChatResult> {
  const url = endpoint();
  const waitMs = Number(Deno.env.get("LEDGERBENCH_CONNECT_WAIT_MS") ?? "15000");
  const body = JSON.stringify({
    model: Deno.env.get("LEDGERBENCH_MODEL") ?? "scripted",
    messages,
  });
  const started = Date.now();
  for (;;) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${Deno.env.get("OPENAI_API_KEY") ?? "sandbox"}`,
        },
        body,
      });
    } catch (error) {
      if (Date.now() - started >= waitMs) {
        throw new Error(`Cannot reach the model endpoint: "${url}": ${String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the raw text
    }
    const header = (name: string) => {
      const value = response.headers.get(name);
      return value === null ? null : Number(value);
    };
    return {
      status: response.status,
      content: firstContent(parsed),
      body: parsed,
      left: {
        tokens: header("ledgerbench-tokens-left"),
        steps: header("ledgerbench-steps-left"),
        promptBound: header("ledgerbench-prompt-bound"),
      },
    };
  }
}

/**
 * Asks the model once with `prompt` and returns its answer's content, or
 * exits the agent as the one-call agents do: 2 when the relay answered
 * with an HTTP error (429, 5xx, a cap refusal), 3 when the answer had no
 * message content.
 *
 * @param agent the agent's name, for its messages
 * @param prompt the task prompt
 * @returns the first choice's content
 */
export async function askOnce(agent: string, prompt: string): Promise<string> {
  const result = await chat([{ role: "user", content: prompt }]);
  if (result.status < 200 || result.status >= 300) {
    console.error(`${agent}: the model call failed with HTTP ${result.status}`);
    Deno.exit(2);
  }
  if (result.content === null) {
    console.error(`${agent}: the model answer has no choices[0].message.content`);
    Deno.exit(3);
  }
  return result.content;
}

function firstContent(body: unknown): string | null {
  if (typeof body !== "object" || body === null) return null;
  const choices = (body as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const message = (choices[0] as { message?: { content?: unknown } }).message;
  return typeof message?.content === "string" ? message.content : null;
}

/** One file the model asked to write. */
export interface FileBlock {
  /** Path relative to the workspace. */
  path: string;
  content: string;
}

/**
 * Extracts every block of the form "```file:<relative path>\n<content>\n```"
 * from a model answer, in order.
 *
 * @param text the model's answer
 * @returns the blocks; the content excludes the newline before the closing fence
 */
export function fileBlocks(text: string): FileBlock[] {
  const blocks: FileBlock[] = [];
  const pattern = /```file:([^\n`]+)\n([\s\S]*?)\n?```/g;
  for (const match of text.matchAll(pattern)) {
    blocks.push({ path: match[1].trim(), content: match[2] });
  }
  return blocks;
}

/**
 * Writes one file block under the workspace, creating parent directories.
 *
 * @param block the block to write
 * @param root the workspace root (default `/workspace`)
 * @returns the absolute path written
 * @throws {Error} when the path is absolute or climbs out of the workspace
 */
export async function writeBlock(block: FileBlock, root = WORKSPACE): Promise<string> {
  const parts = block.path.split("/").filter((p) => p !== "" && p !== ".");
  if (block.path.startsWith("/") || parts.includes("..") || parts.length === 0) {
    throw new Error(`Cannot write file block: path "${block.path}" leaves the workspace`);
  }
  const target = `${root}/${parts.join("/")}`;
  if (parts.length > 1) {
    await Deno.mkdir(`${root}/${parts.slice(0, -1).join("/")}`, { recursive: true });
  }
  await Deno.writeTextFile(target, block.content);
  return target;
}
