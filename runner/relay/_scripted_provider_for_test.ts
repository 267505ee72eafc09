/**
 * Test helpers for the scripted provider's tests: a provider for the span of
 * one test, a JSON POST, and a reader of server-sent events.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ProviderScriptInput } from "../../analysis/schema/provider_script.ts";
import { type ScriptedProvider, startScriptedProvider } from "./scripted_provider.ts";

/** The upstream key the tests' providers accept. */
export const TEST_KEY = "sk-upstream-test";

/**
 * Runs `run` against a provider answering from `script`, closing it after.
 *
 * @param script The script.
 * @param run The test body.
 */
export async function withProvider(
  script: ProviderScriptInput,
  run: (provider: ScriptedProvider) => Promise<void>,
): Promise<void> {
  const provider = await startScriptedProvider(script, { apiKey: TEST_KEY });
  try {
    await run(provider);
  } finally {
    await provider.close();
  }
}

/**
 * POSTs `body` as JSON to `<baseUrl>/<path>` with `headers`.
 *
 * @param baseUrl The provider's base URL.
 * @param path e.g. `responses`.
 * @param body The request body.
 * @param headers Credential and version headers.
 * @returns Status, headers and the body text.
 */
export async function post(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${baseUrl}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * Splits an SSE body into its events, checking each is `event:` (optional)
 * then `data:` and a blank line.
 *
 * @param raw The stream's text.
 * @returns Each event's name (null without an `event:` line) and parsed data (`[DONE]` as a string).
 */
export function sseEvents(raw: string): { event: string | null; data: unknown }[] {
  assert.equal(raw.endsWith("\n\n"), true);
  return raw.slice(0, -2).split("\n\n").map((block) => {
    const lines = block.split("\n");
    const event = lines.length === 2 ? lines[0] : null;
    if (event !== null) assert.match(event, /^event: /);
    const data = lines.at(-1)!;
    assert.match(data, /^data: /);
    const text = data.slice("data: ".length);
    return {
      event: event === null ? null : event.slice("event: ".length),
      data: text === "[DONE]" ? text : JSON.parse(text),
    };
  });
}
