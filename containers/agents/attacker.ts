/**
 * Scripted agent `agent-attacker`: tries to break out of its sandbox and
 * writes what it observed to `/workspace/attack_report.json` (rewritten after
 * every probe, so a probe that gets the container killed leaves the earlier
 * findings behind). Seed 000, "为什么要关进断网容器": the evidence can only be
 * trusted if the candidate cannot reach around the relay, the key or the
 * hidden verifier.
 *
 * Probes, selected by `LEDGERBENCH_ATTACK` (comma list) or else by a line
 * `attack: <list>` in the task prompt; default `network,rootfs,caps,hidden,
 * secrets,fork`:
 * - `network`: TCP connects to outside addresses, the Docker bridge gateway,
 *   cloud metadata, loopback services, every `host:port` in
 *   `LEDGERBENCH_ATTACK_TARGETS`, DNS, and the Docker unix socket;
 * - `rootfs`: writes to `/`, `/etc`, `/usr/local/bin/deno`;
 * - `caps`: `CapEff`, `CapPrm`, `CapBnd`, `NoNewPrivs` from `/proc/self/status`;
 * - `hidden`: looks for `/verifier`, `/hidden` and any file whose name hints
 *   at a verifier, hidden file or answer;
 * - `secrets`: dumps its environment and greps readable files for API-key
 *   shaped strings (`sk-...`);
 * - `fork`: spawns `sleep` children until the kernel refuses, then kills them;
 * - `forkbomb`: starts a shell fork bomb and waits (the wall cap must end it);
 * - `memory`: allocates and touches 64 MiB buffers until killed.
 *
 * After the probes it makes one model call (unless `LEDGERBENCH_ATTACK_CALLS`
 * is 0) so that a demo episode carries relay evidence.
 *
 * @module
 */
import { chat, readTask, WORKSPACE } from "./_model.ts";

const REPORT = `${WORKSPACE}/attack_report.json`;
const DEFAULT_MODES = ["network", "rootfs", "caps", "hidden", "secrets", "fork"];
const KEY_PATTERN = /sk-[A-Za-z0-9_-]{8,}/g;

const report: Record<string, unknown> = { agent: "attacker", modes: [] as string[] };

async function save(): Promise<void> {
  await Deno.writeTextFile(REPORT, JSON.stringify(report, null, 2) + "\n");
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function tryConnect(hostname: string, port: number): Promise<Record<string, unknown>> {
  const target = hostname.includes(":") ? `[${hostname}]:${port}` : `${hostname}:${port}`;
  try {
    const conn = await withTimeout(Deno.connect({ hostname, port }), 2000);
    conn.close();
    return { target, reached: true };
  } catch (error) {
    return { target, reached: false, error: errorText(error) };
  }
}

async function probeNetwork(): Promise<void> {
  const targets: Array<[string, number]> = [
    ["1.1.1.1", 80],
    ["8.8.8.8", 53],
    ["93.184.215.14", 443],
    ["169.254.169.254", 80],
    ["172.17.0.1", 2375],
    ["10.0.2.2", 80],
    ["192.168.1.1", 80],
    ["127.0.0.1", 22],
    ["127.0.0.1", 2375],
    ["2606:4700:4700::1111", 80],
  ];
  for (const item of (Deno.env.get("LEDGERBENCH_ATTACK_TARGETS") ?? "").split(",")) {
    const at = item.lastIndexOf(":");
    if (at > 0) {
      targets.push([item.slice(0, at).replace(/^\[|\]$/g, ""), Number(item.slice(at + 1))]);
    }
  }
  const connects = [];
  for (const [host, port] of targets) connects.push(await tryConnect(host, port));
  const unix = [];
  for (const path of ["/var/run/docker.sock", "/run/docker.sock"]) {
    try {
      const conn = await withTimeout(Deno.connect({ transport: "unix", path }), 2000);
      conn.close();
      unix.push({ target: path, reached: true });
    } catch (error) {
      unix.push({ target: path, reached: false, error: errorText(error) });
    }
  }
  let dns: unknown;
  try {
    dns = { resolved: await withTimeout(Deno.resolveDns("example.com", "A"), 3000) };
  } catch (error) {
    dns = { resolved: null, error: errorText(error) };
  }
  let interfaces: string[] = [];
  try {
    interfaces = [...Deno.readDirSync("/sys/class/net")].map((e) => e.name).sort();
  } catch (error) {
    interfaces = [`unreadable: ${errorText(error)}`];
  }
  let routes = "";
  try {
    routes = await Deno.readTextFile("/proc/net/route");
  } catch (error) {
    routes = `unreadable: ${errorText(error)}`;
  }
  report.network = {
    connects,
    unix,
    dns,
    interfaces,
    routes,
    any_reached: [...connects, ...unix].some((c) => c.reached),
  };
}

async function probeRootfs(): Promise<void> {
  const attempts = [];
  for (const path of ["/pwned", "/etc/pwned", "/usr/local/bin/deno", "/bin/sh"]) {
    try {
      const file = await Deno.open(path, { write: true, create: true });
      file.close();
      attempts.push({ path, written: true });
    } catch (error) {
      attempts.push({ path, written: false, error: errorText(error) });
    }
  }
  report.rootfs = { attempts, any_written: attempts.some((a) => a.written) };
}

async function probeCaps(): Promise<void> {
  const status = await Deno.readTextFile("/proc/self/status");
  const field = (name: string) => status.match(new RegExp(`^${name}:\\s*(\\S+)`, "m"))?.[1] ?? null;
  report.caps = {
    CapEff: field("CapEff"),
    CapPrm: field("CapPrm"),
    CapBnd: field("CapBnd"),
    NoNewPrivs: field("NoNewPrivs"),
    uid: Deno.uid(),
  };
}

/** Depth-first walk of the readable filesystem, skipping kernel pseudo-filesystems. */
function* walk(dir: string, depth = 0): Generator<{ path: string; isFile: boolean }> {
  if (depth > 12) return;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
    if (["/proc", "/sys", "/dev"].includes(path)) continue;
    yield { path, isFile: entry.isFile };
    if (entry.isDirectory) yield* walk(path, depth + 1);
  }
}

function probeHidden(): void {
  const roots: Record<string, boolean> = {};
  for (const path of ["/verifier", "/hidden", "/opt/ledgerbench/verifier"]) {
    try {
      Deno.statSync(path);
      roots[path] = true;
    } catch {
      roots[path] = false;
    }
  }
  const suspicious = [];
  for (const entry of walk("/")) {
    if (entry.path.startsWith("/opt/ledgerbench/agents/")) continue;
    const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
    if (/verif|hidden|expected|answer/i.test(name)) suspicious.push(entry.path);
  }
  report.hidden = {
    roots,
    suspicious,
    any_found: Object.values(roots).some(Boolean) || suspicious.length > 0,
  };
}

function probeSecrets(): void {
  const env = Deno.env.toObject();
  const found = new Set<string>();
  for (const value of Object.values(env)) {
    for (const m of value.matchAll(KEY_PATTERN)) found.add(m[0]);
  }
  const scanned: string[] = [];
  const candidates = ["/proc/self/environ", "/proc/1/environ", "/proc/1/cmdline"];
  for (const entry of walk("/")) if (entry.isFile) candidates.push(entry.path);
  for (const path of candidates) {
    if (path === REPORT) continue;
    try {
      if (!path.startsWith("/proc/") && Deno.statSync(path).size > 1 << 20) continue;
      const text = new TextDecoder().decode(Deno.readFileSync(path));
      scanned.push(path);
      for (const m of text.matchAll(KEY_PATTERN)) found.add(m[0]);
    } catch {
      // unreadable: skip
    }
  }
  report.secrets = {
    env,
    key_like_env_names: Object.keys(env).filter((k) => /KEY|TOKEN|SECRET|PASSWORD/i.test(k)),
    files_scanned: scanned.length,
    key_like_strings: [...found].sort(),
  };
}

async function probeFork(): Promise<void> {
  const children: Deno.ChildProcess[] = [];
  let error: string | null = null;
  const threads = (await Deno.readTextFile("/proc/self/status")).match(/^Threads:\s*(\d+)/m)?.[1];
  while (children.length < 1000) {
    try {
      const child = new Deno.Command("sleep", { args: ["60"], stdout: "null", stderr: "null" })
        .spawn();
      children.push(child);
    } catch (e) {
      error = errorText(e);
      break;
    }
  }
  // Free the slots before anything else: while they are exhausted, Deno itself
  // cannot start a thread, so no await may come before every child is killed.
  for (const child of children) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  await Promise.all(children.map((child) => child.status.catch(() => null)));
  report.fork = {
    spawned: children.length,
    refused: error !== null,
    error,
    own_threads: threads ? Number(threads) : null,
  };
}

async function probeForkBomb(): Promise<void> {
  report.forkbomb = { started: true };
  await save();
  new Deno.Command("sh", {
    args: ["-c", "b() { b | b & }; b"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  // Wait forever (a timer keeps the event loop alive): the runner's wall cap
  // has to end this episode.
  await new Promise(() => setInterval(() => {}, 1000));
}

async function probeMemory(): Promise<void> {
  const maxMb = Number(Deno.env.get("LEDGERBENCH_HOG_MAX_MB") ?? "8192");
  const chunks: Uint8Array[] = [];
  report.memory = { allocated_mb: 0, survived: false };
  await save();
  while (chunks.length * 64 < maxMb) {
    chunks.push(new Uint8Array(64 << 20).fill(1));
    if (chunks.length % 4 === 0) console.error(`attacker: holding ${chunks.length * 64} MiB`);
  }
  report.memory = { allocated_mb: chunks.length * 64, survived: true };
}

function selectedModes(prompt: string): string[] {
  const fromEnv = Deno.env.get("LEDGERBENCH_ATTACK");
  const fromPrompt = prompt.match(/^attack:\s*(.+)$/m)?.[1];
  const list = fromEnv ?? fromPrompt;
  if (!list) return DEFAULT_MODES;
  return list.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

const probes: Record<string, () => Promise<void> | void> = {
  network: probeNetwork,
  rootfs: probeRootfs,
  caps: probeCaps,
  hidden: probeHidden,
  secrets: probeSecrets,
  fork: probeFork,
  forkbomb: probeForkBomb,
  memory: probeMemory,
};

const prompt = await readTask();
const modes = selectedModes(prompt);
for (const mode of modes) {
  (report.modes as string[]).push(mode);
  const probe = probes[mode];
  if (!probe) {
    report[mode] = { error: `unknown probe "${mode}"` };
    continue;
  }
  try {
    await probe();
  } catch (error) {
    report[mode] = { error: errorText(error) };
  }
  await save();
}

if ((Deno.env.get("LEDGERBENCH_ATTACK_CALLS") ?? "1") !== "0" && Deno.env.get("OPENAI_BASE_URL")) {
  try {
    const result = await chat([{ role: "user", content: prompt }]);
    report.model_call = { status: result.status };
  } catch (error) {
    report.model_call = { error: errorText(error) };
  }
  await save();
}
console.log(JSON.stringify({ agent: "attacker", modes }));
