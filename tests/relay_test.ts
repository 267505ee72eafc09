/**
 * Integration test of the host relay through a real sandbox: a `--network
 * none` container with the seed-000 flags, the forwarder entered into its
 * network namespace with nsenter, the relay on a host unix socket, the
 * scripted provider on host loopback. Needs a Docker engine, nsenter and
 * root; ignored (with the reason printed) where they are missing.
 *
 * The container image is a one-file root filesystem (the static busybox)
 * loaded with `docker import`, built here so this test does not depend on
 * containers/build_images.sh.
 */
import assert from "node:assert/strict";
import { startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import { startRelay } from "../runner/relay/relay.ts";
import { startForwarder } from "../runner/relay/start_forwarder.ts";
import { evidenceGate } from "../runner/relay/evidence_gate.ts";

const IMAGE = "ledgerbench-relay-test:busybox";
const BUSYBOX = "/usr/bin/busybox";
const KEY = "sk-upstream-integration-5a1e";
const PORT_IN_SANDBOX = 8080;

async function run(
  command: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" })
    .output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function whyNotRunnable(): Promise<string | null> {
  if (Deno.uid() !== 0) return "not root (nsenter needs CAP_SYS_ADMIN)";
  try {
    if ((await run("nsenter", ["--version"])).code !== 0) return "nsenter does not run";
    if ((await run("docker", ["version"])).code !== 0) return "the Docker engine is not reachable";
    await Deno.stat(BUSYBOX);
  } catch (error) {
    return `missing tool: ${error instanceof Error ? error.message : error}`;
  }
  return null;
}

const skipReason = await whyNotRunnable();
if (skipReason !== null) {
  if (Deno.env.get("CI") === "true") {
    throw new Error(`tests/relay_test.ts cannot run in CI: ${skipReason}`);
  }
  console.error(`tests/relay_test.ts ignored: ${skipReason}`);
}

async function ensureImage(): Promise<void> {
  if ((await run("docker", ["image", "inspect", IMAGE])).code === 0) return;
  const root = await Deno.makeTempDir({ prefix: "relay_image_" });
  try {
    await Deno.mkdir(`${root}/bin`);
    await Deno.mkdir(`${root}/tmp`);
    await Deno.copyFile(BUSYBOX, `${root}/bin/busybox`);
    await Deno.chmod(`${root}/bin/busybox`, 0o755);
    const built = await run("sh", ["-c", `tar -C '${root}' -c . | docker import - ${IMAGE}`]);
    assert.equal(built.code, 0, `docker import failed: ${built.stderr}`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * Runs busybox inside the container (docker exec joins its namespaces). Never
 * pass `wget -T`: Debian's busybox-static 1.35 segfaults with it; without a
 * route, connections fail at once anyway.
 */
function inSandbox(container: string, ...args: string[]) {
  return run("docker", ["exec", container, "/bin/busybox", ...args]);
}

function hostAddress(): string | null {
  const address = Deno.networkInterfaces().find((i) =>
    i.family === "IPv4" && !i.address.startsWith("127.")
  );
  return address?.address ?? null;
}

Deno.test({
  name: "relay reaches a --network none container through the nsenter forwarder, and nothing else",
  ignore: skipReason !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await ensureImage();
    const provider = await startScriptedProvider({
      model: "scripted-integration",
      rules: [{ contains: "solve", reply: { content: "the answer is 42" } }],
      default: { content: "hello from the provider" },
    }, { apiKey: KEY });
    // A server on every host address: the sandbox must not reach it either.
    const canary = Deno.serve(
      { hostname: "0.0.0.0", port: 0, onListen: () => {} },
      () => new Response("canary"),
    );
    const dir = await Deno.makeTempDir({ prefix: "relay_it_" });
    const relay = await startRelay(`${dir}/relay.sock`, {
      upstreamBaseUrl: provider.baseUrl,
      upstreamKey: KEY,
      stepCap: 2,
    });
    const name = `ledgerbench-relay-test-${crypto.randomUUID().slice(0, 8)}`;
    let forwarder: Awaited<ReturnType<typeof startForwarder>> | null = null;
    try {
      const started = await run("docker", [
        "run",
        "-d",
        "--name",
        name,
        "--network",
        "none",
        "--read-only",
        "--cap-drop",
        "ALL",
        "--security-opt",
        "no-new-privileges:true",
        "--pids-limit",
        "128",
        "--memory",
        "1g",
        "-e",
        `OPENAI_BASE_URL=http://127.0.0.1:${PORT_IN_SANDBOX}/v1`,
        "-e",
        "OPENAI_API_KEY=dummy-agent-token",
        IMAGE,
        "/bin/busybox",
        "sleep",
        "300",
      ]);
      assert.equal(started.code, 0, `docker run failed: ${started.stderr}`);
      const inspected = await run("docker", ["inspect", "-f", "{{.State.Pid}}", name]);
      const pid = Number(inspected.stdout.trim());
      assert.ok(pid > 0, `no pid for the container: "${inspected.stdout}"`);

      forwarder = await startForwarder({
        pid,
        socketPath: relay.socketPath,
        port: PORT_IN_SANDBOX,
      });
      assert.equal(forwarder.port, PORT_IN_SANDBOX);

      // The agent's call, as a sandboxed program would make it, with its dummy token.
      const post = (content: string) =>
        inSandbox(
          name,
          "wget",
          "-q",
          "-O",
          "-",
          "--header",
          "Content-Type: application/json",
          "--header",
          "Authorization: Bearer dummy-agent-token",
          "--post-data",
          JSON.stringify({ model: "any", messages: [{ role: "user", content }] }),
          `http://127.0.0.1:${PORT_IN_SANDBOX}/v1/chat/completions`,
        );
      const first = await post("please solve the task");
      assert.equal(first.code, 0, `wget failed: ${first.stderr}`);
      const answer = JSON.parse(first.stdout);
      assert.equal(answer.choices[0].message.content, "the answer is 42");
      assert.equal(answer.model, "scripted-integration");
      assert.equal((await post("again")).code, 0);
      // stepCap 2: the third call is refused by the relay, and the agent sees the refusal.
      const third = await post("once more");
      assert.notEqual(third.code, 0);
      assert.match(third.stderr, /403/);

      // The provider saw the relay's key and nothing else; the agent's token never left the host.
      assert.deepEqual(provider.requests().map((r) => r.authorization), [
        `Bearer ${KEY}`,
        `Bearer ${KEY}`,
      ]);
      assert.equal(relay.stopReason(), "step_cap");
      const gate = evidenceGate(relay.records());
      assert.equal(gate.status, "scored");
      assert.equal(gate.model_calls, 2);
      assert.equal(gate.evidence.server_model_id, "scripted-integration");

      // Nothing else is reachable: not the provider on host loopback ...
      const direct = await inSandbox(
        name,
        "wget",
        "-q",
        "-O",
        "-",
        `http://127.0.0.1:${provider.port}/v1/models`,
      );
      assert.notEqual(direct.code, 0, "the sandbox reached the provider directly");
      // ... nor a server on the host's own address, which the host itself reaches.
      const address = hostAddress();
      if (address !== null) {
        const url = `http://${address}:${canary.addr.port}/`;
        assert.equal(await (await fetch(url)).text(), "canary");
        const escaped = await inSandbox(name, "wget", "-q", "-O", "-", url);
        assert.notEqual(escaped.code, 0, `the sandbox reached "${url}"`);
      }
      // No route at all: /proc/net/route holds only its header line.
      const routes = await inSandbox(name, "cat", "/proc/net/route");
      assert.equal(routes.stdout.trim().split("\n").length, 1, routes.stdout);
      // The key is in neither the environment nor the filesystem; the socket is not visible.
      const env = await inSandbox(name, "env");
      assert.equal(env.stdout.includes(KEY), false);
      assert.match(env.stdout, /OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:8080\/v1/);
      const grep = await inSandbox(
        name,
        "grep",
        "-rl",
        KEY,
        "/bin",
        "/tmp",
        "/proc/1/environ",
        "/proc/1/cmdline",
      );
      assert.equal(grep.stdout, "");
      assert.notEqual((await inSandbox(name, "ls", relay.socketPath)).code, 0);
    } finally {
      await forwarder?.close();
      await run("docker", ["rm", "-f", name]);
      await relay.close();
      await provider.close();
      await canary.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
