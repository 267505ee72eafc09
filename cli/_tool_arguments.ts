/**
 * A tool call's arguments, as the export formats need them: Inspect's
 * `ToolCall.arguments` (`tool/_tool_call.py`, inspect_ai 0.3.260) and
 * ATIF's `ToolCall.arguments` (`models/trajectories/tool_call.py`, Harbor
 * commit 7d91dbf) are both a JSON object.
 *
 * @module
 */

/**
 * The arguments text of a transcript's tool call as a JSON object: parsed
 * when it is one, else kept as `{"input": <text>}` (text that is not JSON,
 * or JSON that is not an object).
 *
 * @param text the arguments as the transcript holds them
 * @returns an object
 * @example
 * ```ts
 * import { toolArguments } from "./_tool_arguments.ts";
 * const parsed = toolArguments('{"cmd":"ls"}');
 * const kept = toolArguments("ls -l");
 * if (parsed.cmd !== "ls" || kept.input !== "ls -l") throw new Error();
 * ```
 */
export function toolArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // not JSON: kept as text
  }
  return { input: text };
}
