import { equal, match, ok, rejects } from "node:assert/strict";
import Docker from "dockerode";
import { engineCall, EngineDeadlineError } from "./engine_call.ts";
import { tempDir } from "../_temp_dir_for_test.ts";

/**
 * A fake engine on a unix socket that reads each request and never answers
 * (as a killed engine's wait was never answered, issue 9 item 1); it keeps
 * the request lines it saw and counts the connections the client closed.
 */
function silentEngine(socket: string) {
  const seen = { requests: [] as string[], closed: 0 };
  const listener = Deno.listen({ transport: "unix", path: socket });
  const serve = async () => {
    for await (const conn of listener) {
      (async () => {
        const buffer = new Uint8Array(65536);
        let text = "";
        for (;;) {
          const n = await conn.read(buffer).catch(() => null);
          if (n === null) break;
          text += new TextDecoder().decode(buffer.subarray(0, n));
          const line = text.split("\r\n")[0];
          if (text.includes("\r\n\r\n") && !seen.requests.includes(line)) seen.requests.push(line);
        }
        seen.closed++;
        conn.close();
      })();
    }
  };
  const served = serve().catch(() => {});
  return {
    seen,
    close: async () => {
      listener.close();
      await served;
    },
  };
}

Deno.test("engineCall() rejects a container wait the engine never answers at its deadline and aborts the request", async () => {
  await using temp = await tempDir();
  const engine = silentEngine(`${temp.path}/docker.sock`);
  try {
    const docker = new Docker({ socketPath: `${temp.path}/docker.sock` });
    const wait = engineCall(
      "wait for container c1",
      (abortSignal) => docker.getContainer("c1").wait({ abortSignal }),
      { deadlineMs: 200 },
    );
    await rejects(wait, (error: unknown) => {
      ok(error instanceof EngineDeadlineError);
      equal(
        error.message,
        'The Docker engine did not answer "wait for container c1" within 200 ms: the engine is lost or stalled',
      );
      return true;
    });
    for (let i = 0; i < 50 && engine.seen.closed === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    equal(engine.seen.requests.length, 1);
    match(engine.seen.requests[0], /^POST \/containers\/c1\/wait(\?.*)? HTTP\/1\.1$/);
    equal(engine.seen.closed, 1);
  } finally {
    await engine.close();
  }
});

Deno.test("engineCall() passes results and errors through", async () => {
  equal(await engineCall("inspect c3", () => Promise.resolve(42)), 42);
  await rejects(
    engineCall("inspect c4", () => Promise.reject(new Error("no such container"))),
    /^Error: no such container$/,
  );
});
