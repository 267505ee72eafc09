import assert from "node:assert/strict";
import { forwardInNamespace, forwardInNamespaceAvailable } from "./forward_in_namespace.ts";
import { startRelay } from "./relay.ts";
import { startScriptedProvider } from "./scripted_provider.ts";
import { requestFingerprint } from "./request_fingerprint.ts";
import { processInNewNamespace } from "../sandbox/_namespace_process_for_test.ts";

const KEY = "sk-namespace-forwarder-test";

// Root (CAP_SYS_ADMIN for setns), FFI and util-linux's unshare: as on the CI machines.
const ignore = Deno.build.os !== "linux" || Deno.uid() !== 0 || !forwardInNamespaceAvailable();

/** Runs a fetch from inside the namespace of `pid` (a client as the sandboxed agent would be). */
async function fetchInside(pid: number, url: string, body: unknown): Promise<string> {
  const script = `const r = await fetch(${JSON.stringify(url)}, { method: "POST", ` +
    `headers: { "content-type": "application/json" }, body: ${
      JSON.stringify(JSON.stringify(body))
    } });` +
    `console.log(r.status + " " + await r.text());`;
  const output = await new Deno.Command("nsenter", {
    args: ["-t", String(pid), "-n", Deno.execPath(), "eval", "--no-config", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(output.success ? output.stdout : output.stderr).trim();
}

const ownNamespace = () => Deno.readLinkSync("/proc/thread-self/ns/net");

Deno.test({
  name: "forwardInNamespace() listens inside the other namespace only and pipes to the relay",
  ignore,
  async fn() {
    const provider = await startScriptedProvider({ default: { content: "done" } }, { apiKey: KEY });
    const dir = await Deno.makeTempDir({ prefix: "forward_in_namespace_test_" });
    const relay = await startRelay(`${dir}/relay.sock`, {
      upstreamBaseUrl: provider.baseUrl,
      upstreamKey: KEY,
    });
    const isolated = await processInNewNamespace("ip link set lo up");
    // A host listener holds the port in the runner's namespace: a bind there would fail,
    // so a forwarder on the same port proves the listener lives in the other namespace.
    const host = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = host.addr.port;
    const before = ownNamespace();
    const forwarder = forwardInNamespace({ pid: isolated.pid, socketPath: relay.socketPath, port });
    try {
      assert.equal(forwarder.port, port);
      // The runner's thread is back in its own namespace.
      assert.equal(ownNamespace(), before);
      assert.notEqual(Deno.readLinkSync(`/proc/${isolated.pid}/ns/net`), before);

      const body = { model: "m", messages: [{ role: "user", content: "hello" }] };
      const answer = await fetchInside(
        isolated.pid,
        `http://127.0.0.1:${port}/v1/chat/completions`,
        body,
      );
      assert.match(answer, /^200 /);
      assert.equal(JSON.parse(answer.slice(4)).choices[0].message.content, "done");
      const records = relay.records();
      assert.equal(records.length, 1);
      assert.equal(records[0].fingerprint, requestFingerprint(body));
      // The agent's side never carried the key; the relay added it upstream.
      assert.deepEqual(provider.requests().map((r) => r.authorization), [`Bearer ${KEY}`]);

      // The port is taken inside that namespace now: a second listener is refused,
      // and the thread still returns home.
      assert.throws(
        () => forwardInNamespace({ pid: isolated.pid, socketPath: relay.socketPath, port }),
        /^Error: Cannot start forwarder: cannot listen on 127\.0\.0\.1:\d+ in the namespace of process \d+: /,
      );
      assert.equal(ownNamespace(), before);

      await forwarder.close();
      // Closed: nothing listens inside any more.
      assert.doesNotMatch(
        await fetchInside(isolated.pid, `http://127.0.0.1:${port}/v1/chat/completions`, body),
        /^200 /,
      );
      assert.equal(relay.records().length, 1);
    } finally {
      await forwarder.close();
      host.close();
      await isolated.stop();
      await relay.close();
      await provider.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "forwardInNamespace() reports a process that does not exist",
  ignore,
  fn() {
    const before = ownNamespace();
    assert.throws(
      // pid 2^22 + 1 is above Linux's largest pid_max, so no such process exists.
      () => forwardInNamespace({ pid: 4_194_305, socketPath: "/nonexistent.sock", port: 0 }),
      /^Error: Cannot start forwarder: cannot open the network namespace of process 4194305 /,
    );
    assert.equal(ownNamespace(), before);
  },
});
