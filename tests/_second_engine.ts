/**
 * A second Docker engine that a test starts, kills and restarts itself (issue
 * 9, item 1), never touching the shared one: its own socket, data root, exec
 * root and pid file, `--iptables=false --bridge=none`, and the containerd it
 * starts under its own exec root. Only the processes it started are signalled,
 * by pid.
 *
 * @module
 */

/** A test's own engine. */
export interface SecondEngine {
  /** `unix://` address for `DOCKER_HOST`. */
  host: string;
  /** Pid of the running dockerd (changes on restart). */
  pid: number;
  /** SIGKILLs dockerd (its containerd and containers stay, as after a crash). */
  kill(): Promise<void>;
  /** Starts dockerd again on the same roots and waits until it answers. */
  restart(): Promise<void>;
  /** Stops dockerd and its containerd (SIGTERM, then SIGKILL) and removes the roots. */
  stop(): Promise<void>;
}

/** Whether `dockerd` can be run here at all (root and the binary). */
export function secondEngineSupported(): boolean {
  if (Deno.uid() !== 0) return false;
  try {
    return new Deno.Command("dockerd", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

/**
 * Starts a second engine under a fresh temporary directory and loads `images`
 * into it from the shared engine (`docker save | docker load`, offline).
 *
 * @param images image references present on the shared engine
 * @returns the engine
 * @throws {Error} when it does not answer within 30 s or a load fails
 */
export async function startSecondEngine(images: readonly string[]): Promise<SecondEngine> {
  const root = await Deno.makeTempDir({ prefix: "ledgerbench-engine-" });
  const socket = `${root}/docker.sock`;
  const host = `unix://${socket}`;
  let daemon: Deno.ChildProcess | null = null;
  const launch = async () => {
    const log = await Deno.open(`${root}/dockerd.log`, { append: true, create: true });
    daemon = new Deno.Command("dockerd", {
      args: [
        "--host",
        host,
        "--data-root",
        `${root}/data`,
        "--exec-root",
        `${root}/exec`,
        "--pidfile",
        `${root}/docker.pid`,
        "--iptables=false",
        "--bridge=none",
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    daemon.stderr.pipeTo(log.writable).catch(() => {});
    engine.pid = daemon.pid;
    const deadline = Date.now() + 30_000;
    while (!docker(host, ["version"]).success) {
      if (Date.now() > deadline) throw new Error(`The second engine did not answer: see ${root}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const containerdPid = (): number | null => {
    try {
      return Number(Deno.readTextFileSync(`${root}/exec/containerd/containerd.pid`).trim());
    } catch {
      return null;
    }
  };
  const engine: SecondEngine = {
    host,
    pid: 0,
    async kill() {
      daemon?.kill("SIGKILL");
      await daemon?.status;
      daemon = null;
    },
    restart: () => launch(),
    async stop() {
      if (daemon !== null) {
        daemon.kill("SIGTERM");
        const timer = setTimeout(() => daemon?.kill("SIGKILL"), 15_000);
        await daemon.status;
        clearTimeout(timer);
      }
      const pid = containerdPid();
      if (pid !== null && alive(pid)) {
        Deno.kill(pid, "SIGTERM");
        for (let i = 0; i < 100 && alive(pid); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        if (alive(pid)) Deno.kill(pid, "SIGKILL");
      }
      new Deno.Command("sh", {
        args: ["-c", `grep -o " ${root}[^ ]*" /proc/mounts | sort -r | xargs -r umount -l`],
      }).outputSync();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
  try {
    await launch();
    const save = new Deno.Command("sh", {
      args: ["-c", 'docker save "$@" | DOCKER_HOST="$0" docker load -q', host, ...images],
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    if (!save.success) {
      throw new Error(`Cannot load images: ${new TextDecoder().decode(save.stderr).trim()}`);
    }
  } catch (error) {
    await engine.stop();
    throw error;
  }
  return engine;
}

/** Runs `docker -H host ...args` to its end. */
export function docker(host: string, args: string[]): Deno.CommandOutput {
  return new Deno.Command("docker", {
    args: ["-H", host, ...args],
    stdout: "piped",
    stderr: "null",
  })
    .outputSync();
}

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}
