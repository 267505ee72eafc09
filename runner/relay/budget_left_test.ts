import assert from "node:assert/strict";
import { startRelay } from "./relay.ts";
import { startScriptedProvider } from "./scripted_provider.ts";

Deno.test("startRelay() tells the agent its budget left in every model call's headers and at GET /relay/budget", async () => {
  const provider = await startScriptedProvider({
    default: { content: "ok", usage: { prompt_tokens: 100, completion_tokens: 20 } },
  }, { apiKey: "up" });
  const dir = await Deno.makeTempDir();
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: provider.baseUrl,
    upstreamKey: "up",
    tokenCap: 1000,
    stepCap: 2,
    wallCapMs: 600_000,
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
  const call = async () => {
    const response = await fetch("http://relay/v1/chat/completions", {
      client,
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    await response.body?.cancel();
    return [
      ...["tokens", "steps", "seconds"].map((name) =>
        response.headers.get(`ledgerbench-${name}-left`)
      ),
      response.headers.get("ledgerbench-prompt-bound"),
    ];
  };
  const ask = async () => await (await fetch("http://relay/relay/budget", { client })).json();
  try {
    const [tokens, steps, seconds, bound] = await call();
    // a whole answer, sent once its usage was counted: 1000 - (100 + 20); one step of two
    // taken; the prompt's bound: its 57 bytes and 48 for a cap field, a token a byte
    assert.deepEqual([tokens, steps, bound], ["880", "1", "105"]);
    assert.ok(Number(seconds) <= 600 && Number(seconds) >= 590);
    const after = await ask();
    assert.deepEqual(
      { ...after, seconds_left: null },
      {
        tokens_left: 880, // 1000 - (100 + 20) once the call settled
        steps_left: 1,
        seconds_left: null,
        token_cap: 1000,
        step_cap: 2,
        wall_cap_s: 600,
      },
    );
    await call();
    // refused for the step cap: the headers still tell what is left
    assert.deepEqual((await call()).slice(0, 2), ["760", "0"]);
    assert.equal(relay.totals().budget_requests, 1);
  } finally {
    client.close();
    await relay.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("startRelay() sends no budget header for a cap the plan does not set", async () => {
  const provider = await startScriptedProvider({ default: { content: "ok" } }, { apiKey: "up" });
  const dir = await Deno.makeTempDir();
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: provider.baseUrl,
    upstreamKey: "up",
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
  try {
    const response = await fetch("http://relay/v1/chat/completions", {
      client,
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    await response.body?.cancel();
    assert.deepEqual(
      [...response.headers.keys()].filter((name) => name.startsWith("ledgerbench-")),
      [],
    );
    const budget = await (await fetch("http://relay/relay/budget", { client })).json();
    assert.deepEqual(Object.values(budget), [null, null, null, null, null, null]);
  } finally {
    client.close();
    await relay.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
});
