import assert from "node:assert/strict";
import { dockerAvailable } from "./docker_available.ts";
import { dockerSocketPath } from "./docker_client.ts";

Deno.test("dockerAvailable() explains a missing socket", async () => {
  const result = await dockerAvailable({ socketPath: "/nonexistent/ledgerbench/docker.sock" });
  assert.equal(result.available, false);
  assert.equal(result.socketPath, "/nonexistent/ledgerbench/docker.sock");
  if (!result.available) {
    assert.equal(result.code, "no_socket");
    assert.match(result.reason, /^No Docker socket at "\/nonexistent\/ledgerbench\/docker\.sock"/);
  }
});

Deno.test("dockerAvailable() explains a path that is not a socket", async () => {
  const file = await Deno.makeTempFile();
  try {
    const result = await dockerAvailable({ socketPath: file });
    assert.equal(result.available, false);
    if (!result.available) {
      assert.equal(result.code, "not_a_socket");
      assert.equal(result.reason, `Not a socket: "${file}"`);
    }
  } finally {
    await Deno.remove(file);
  }
});

const engine = await dockerAvailable();
if (!engine.available) console.warn(`Docker engine tests skipped: ${engine.reason}`);

Deno.test({
  name: "dockerAvailable() reports the engine version when the engine answers",
  ignore: !engine.available,
}, async () => {
  const result = await dockerAvailable();
  assert.equal(result.available, true);
  if (!result.available) return;
  assert.equal(result.socketPath, dockerSocketPath());
  assert.match(result.serverVersion, /^\d+\.\d+/);
  assert.match(result.apiVersion, /^1\.\d+$/);
});

Deno.test("dockerSocketPath() prefers the option, then a unix DOCKER_HOST", () => {
  assert.equal(dockerSocketPath({ socketPath: "/x.sock" }), "/x.sock");
  const saved = Deno.env.get("DOCKER_HOST");
  try {
    Deno.env.set("DOCKER_HOST", "unix:///run/user/1000/docker.sock");
    assert.equal(dockerSocketPath(), "/run/user/1000/docker.sock");
    Deno.env.set("DOCKER_HOST", "tcp://10.0.0.1:2375");
    assert.equal(dockerSocketPath(), "/var/run/docker.sock");
  } finally {
    if (saved === undefined) Deno.env.delete("DOCKER_HOST");
    else Deno.env.set("DOCKER_HOST", saved);
  }
});

Deno.test({
  name: "dockerAvailable() tells a missing Deno permission from a missing engine",
  ignore: !engine.available,
}, async () => {
  // A child Deno without --allow-net may not open the socket.
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    const module = new URL("./docker_available.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { dockerAvailable } from "${module}";\n` +
        `console.log(JSON.stringify(await dockerAvailable()));\n`,
    );
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", `--config=${config}`, "--allow-read", "--allow-env", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const result = JSON.parse(new TextDecoder().decode(output.stdout));
    assert.equal(result.available, false);
    assert.equal(result.code, "no_permission");
    assert.match(result.reason, /^Deno may not use the Docker socket ".+": Requires \w+ access/);
  } finally {
    await Deno.remove(script);
  }
});
