/**
 * Starts the in-sandbox relay endpoint: `forwarder_main.ts` run with
 * `nsenter -t <container pid> -n`, listening on 127.0.0.1:<port> inside the
 * container's network namespace and piping to the host relay's unix socket
 * (issue 3, "One episode" 2: the design "tried on our machines").
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** Options of {@linkcode startForwarder}. */
export interface ForwarderOptions {
  /**
   * A process id inside the candidate container (the container's init pid,
   * as `docker inspect` reports it). Null runs the forwarder in the runner's
   * own network namespace: for tests and benchmarks only, never for an agent.
   */
  pid: number | null;
  /** The relay's unix socket (host path). */
  socketPath: string;
  /** Port on 127.0.0.1 inside the namespace; 0 picks a free one. */
  port: number;
  /** The deno binary; default `Deno.execPath()`. */
  denoPath?: string;
  /** The nsenter binary; default `nsenter` on PATH. */
  nsenterPath?: string;
  /** How long to wait for `ready`, in ms (default 15000). */
  readyTimeoutMs?: number;
}

/** A running forwarder. */
export interface Forwarder {
  /** The port it listens on inside the namespace. */
  port: number;
  /** The forwarder process id (in the host's pid namespace). */
  pid: number;
  /** Closes its stdin (it exits on that) and waits for it to end; kills it after 2 s. */
  close(): Promise<void>;
}

const MAIN_PATH = fileURLToPath(new URL("./forwarder_main.ts", import.meta.url));

/**
 * Starts the forwarder and resolves once it listens.
 *
 * Command (with `pid` set): `nsenter -t <pid> -n <deno> run --no-config
 * --no-lock --allow-net=127.0.0.1,unix:<socket> --allow-read=<socket> --allow-write=<socket>
 * runner/relay/forwarder_main.ts <socket> <port>`, with an environment holding
 * only `PATH`, `HOME`, `DENO_DIR` and `DENO_NO_UPDATE_CHECK=1` (nothing of the
 * runner's environment, where an upstream key may live). The child prints
 * `ready <port>`; its stdin stays open as a lifeline, so it exits if the
 * runner dies. Requires root (or CAP_SYS_ADMIN) when `pid` is set. Startup
 * costs one deno process launch (about 50 to 150 ms).
 *
 * Because the container keeps `--network none`, the forwarder is the only
 * thing listening in its namespace and the relay is the only thing the
 * forwarder reaches.
 *
 * @param options Container pid, relay socket and port.
 * @returns The running forwarder.
 * @throws {Error} when the child exits or stays silent before `ready`: `Cannot start forwarder: <reason>`
 * @example
 * ```ts ignore
 * import { startForwarder } from "./start_forwarder.ts";
 * const forwarder = await startForwarder({ pid: 4242, socketPath: "/tmp/ep1/relay.sock", port: 8080 });
 * // inside the container: OPENAI_BASE_URL=http://127.0.0.1:8080/v1
 * await forwarder.close();
 * ```
 */
export async function startForwarder(options: ForwarderOptions): Promise<Forwarder> {
  const deno = options.denoPath ?? Deno.execPath();
  const denoArgs = [
    "run",
    "--no-config",
    "--no-lock",
    `--allow-net=127.0.0.1,unix:${options.socketPath}`,
    `--allow-read=${options.socketPath}`,
    `--allow-write=${options.socketPath}`,
    MAIN_PATH,
    options.socketPath,
    String(options.port),
  ];
  const [command, args] = options.pid === null
    ? [deno, denoArgs]
    : [options.nsenterPath ?? "nsenter", ["-t", String(options.pid), "-n", deno, ...denoArgs]];
  const env: Record<string, string> = { DENO_NO_UPDATE_CHECK: "1" };
  for (const name of ["PATH", "HOME", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const child = new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdin = child.stdin.getWriter();
  const stderrText = new Response(child.stderr).text();
  const timeoutMs = options.readyTimeoutMs ?? 15_000;

  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no "ready" line after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const ready = (async () => {
    let text = "";
    while (true) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the process exited before listening");
      text += value;
      const match = /^ready (\d+)$/m.exec(text);
      if (match !== null) return Number(match[1]);
    }
  })();

  let port: number;
  try {
    port = await Promise.race([ready, timeout]);
  } catch (error) {
    clearTimeout(timer);
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    const stderr = (await stderrText).trim();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Cannot start forwarder: ${reason}${stderr === "" ? "" : `: "${stderr.slice(0, 2000)}"`}`,
    );
  }
  clearTimeout(timer);
  // Keep draining stdout so the child never blocks on a full pipe.
  (async () => {
    while (!(await lines.read()).done) {
      // discard
    }
  })().catch(() => {});

  let closed: Promise<void> | null = null;
  return {
    port,
    pid: child.pid,
    close: () => {
      closed ??= (async () => {
        await stdin.close().catch(() => {});
        const killer = setTimeout(() => {
          try {
            child.kill("SIGKILL");
          } catch {
            // already gone
          }
        }, 2_000);
        await child.status;
        clearTimeout(killer);
        await stderrText;
      })();
      return closed;
    },
  };
}
