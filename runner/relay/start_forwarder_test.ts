import assert from "node:assert/strict";
import { startForwarder } from "./start_forwarder.ts";
import { startRelay } from "./relay.ts";
import { startScriptedProvider } from "./scripted_provider.ts";
import { requestFingerprint } from "./request_fingerprint.ts";

const KEY = "sk-forwarder-test";

Deno.test("startForwarder() pipes TCP to the relay socket byte for byte", async () => {
  const provider = await startScriptedProvider({ default: { content: "done" } }, { apiKey: KEY });
  const dir = await Deno.makeTempDir({ prefix: "forwarder_test_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: provider.baseUrl,
    upstreamKey: KEY,
  });
  // pid null: the runner's own network namespace (the nsenter path is tested in tests/relay_test.ts).
  const forwarder = await startForwarder({ pid: null, socketPath: relay.socketPath, port: 0 });
  try {
    assert.ok(forwarder.port > 0);
    // A body of about 1 MiB crosses many 64 KiB reads of the pump in both directions.
    const big = "ab€".repeat(200_000);
    const body = { model: "m", messages: [{ role: "user", content: big }] };
    const answers = await Promise.all([0, 1, 2].map(async () => {
      const response = await fetch(`http://127.0.0.1:${forwarder.port}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() };
    }));
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.equal(answer.json.choices[0].message.content, "done");
    }
    const records = relay.records();
    assert.equal(records.length, 3);
    for (const record of records) assert.equal(record.fingerprint, requestFingerprint(body));
    // "ab€" is 5 UTF-8 bytes: 1,000,000 bytes of content -> 250,000 prompt tokens (derivedUsage).
    assert.equal(records[0].usage?.prompt_tokens, 250_000);
    assert.deepEqual(provider.requests().map((r) => (r.body as typeof body).messages[0].content), [
      big,
      big,
      big,
    ]);
  } finally {
    await forwarder.close();
    await relay.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
  // close() waited for the process to end.
  await assert.rejects(() => Deno.stat(`/proc/${forwarder.pid}/cmdline`), Deno.errors.NotFound);
});

Deno.test("startForwarder() reports a namespace it cannot enter", async () => {
  const dir = await Deno.makeTempDir({ prefix: "forwarder_test_" });
  try {
    await assert.rejects(
      // pid 2^22 + 1 is above Linux's largest pid_max, so no such process exists.
      () => startForwarder({ pid: 4_194_305, socketPath: `${dir}/none.sock`, port: 0 }),
      /^Error: Cannot start forwarder: the process exited before listening: "nsenter: /,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("forwarder_main.ts exits on its own when its stdin closes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "forwarder_test_" });
  const socket = `${dir}/relay.sock`;
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-config",
        `--allow-net=127.0.0.1,unix:${socket}`,
        `--allow-read=${socket}`,
        `--allow-write=${socket}`,
        new URL("./forwarder_main.ts", import.meta.url).pathname,
        socket,
        "0",
      ],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.match((await reader.read()).value ?? "", /^ready \d+\n$/);
    // The runner dying closes this pipe; the forwarder must then leave the namespace.
    await child.stdin.close();
    const status = await child.status;
    assert.equal(status.code, 0);
    assert.equal(status.signal, null);
    await reader.cancel();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("forwarder_main.ts refuses bad arguments", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", new URL("./forwarder_main.ts", import.meta.url).pathname, "/x"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 2);
  assert.match(
    new TextDecoder().decode(output.stderr),
    /usage: forwarder_main\.ts <socket path> <port>/,
  );
});
