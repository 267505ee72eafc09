/**
 * The prompt bound against text a tokenizer bills at one token per byte
 * (issue 21's attack: rare-script text billed as a byte-level tokenizer
 * bills it reached 48,008 tokens under a cap of 20,000 when the bound was a
 * third of the bytes): on every API the relay meters, an agent sending such
 * prompts until refused stays within the token cap, and no prompt passes its
 * bound. The scripted provider bills prompts at one token per UTF-8 byte
 * (`prompt_billing: "bytes"`) and counts them the same way at its count
 * endpoints.
 */
import assert from "node:assert/strict";
import { startRelay } from "./relay.ts";
import { startScriptedProvider } from "./scripted_provider.ts";
import type { UpstreamKind } from "./api/upstream_kind.ts";

const CAP = 20_000;
/** Old Italic and Cyrillic extended letters: 15 UTF-8 bytes a group, billed 15 tokens. */
const DENSE = "\u{10300}\u{10301}\u{10302}ꙮ".repeat(400);

const APIS: { kind: UpstreamKind; path: string; body: (text: string) => unknown }[] = [
  {
    kind: "openai",
    path: "/v1/chat/completions",
    body: (text) => ({ model: "m", messages: [{ role: "user", content: text }] }),
  },
  { kind: "openai", path: "/v1/responses", body: (text) => ({ model: "m", input: text }) },
  {
    kind: "anthropic",
    path: "/v1/messages",
    body: (text) => ({ model: "m", max_tokens: 64, messages: [{ role: "user", content: text }] }),
  },
  {
    kind: "gemini",
    path: "/v1beta/models/m:generateContent",
    body: (text) => ({ contents: [{ role: "user", parts: [{ text }] }] }),
  },
];

for (const api of APIS) {
  Deno.test(`dense prompts billed a token a byte stay within the token cap: ${api.path}`, async () => {
    const provider = await startScriptedProvider(
      { model: "m", prompt_billing: "bytes", default: { content: "ok" } },
      { apiKey: "up" },
    );
    const dir = await Deno.makeTempDir();
    const relay = await startRelay(`${dir}/relay.sock`, {
      upstreamBaseUrl: provider.baseUrl,
      upstreamKey: "up",
      upstreamKind: api.kind,
      tokenCap: CAP,
    });
    const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
    try {
      for (let call = 0; call < 20; call++) {
        const response = await fetch(`http://relay${api.path}`, {
          client,
          method: "POST",
          headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
          body: JSON.stringify(api.body(DENSE)),
        });
        await response.body?.cancel();
        if (response.status === 403) break;
        assert.equal(response.status, 200);
      }
      const forwarded = relay.records().filter((record) => record.forwarded);
      assert.ok(forwarded.length >= 2, `${forwarded.length} calls forwarded`);
      for (const record of forwarded) {
        // 6,000 bytes of text: billed 6,000 tokens, within the call's bound
        assert.ok(record.usage!.prompt_tokens >= 6_000);
        assert.ok(record.usage!.prompt_tokens <= record.prompt_bound!, JSON.stringify(record));
      }
      assert.equal(relay.records().at(-1)?.refusal, "token_cap");
      assert.ok(relay.totals().total_tokens <= CAP, `${relay.totals().total_tokens}`);
    } finally {
      client.close();
      await relay.close();
      await provider.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
