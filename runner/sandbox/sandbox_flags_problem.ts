/**
 * The check that a started container has the isolation flags its create
 * request asked for (an engine must run the sandbox with its flags or not
 * at all), made on the running container, from the host, as
 * the network check is (`network_isolation_problem.ts`): an engine that
 * accepts a flag and applies it otherwise, or not at all, is caught before
 * the container's own command runs.
 *
 * @module
 */
import type Docker from "dockerode";
import { parseProcStat } from "../proc_stat.ts";

/** How {@linkcode sandboxFlagsProblem} reads `/proc` and the cgroup files; tests inject their own. */
export interface FlagsReader {
  /** The text of a file (`Deno.readTextFileSync` by default); throws when it cannot be read. */
  readText(path: string): string;
  /** Whether a path exists (`Deno.statSync` by default). */
  exists(path: string): boolean;
}

const HOST: FlagsReader = {
  readText: (path) => Deno.readTextFileSync(path),
  exists: (path) => {
    try {
      Deno.statSync(path);
      return true;
    } catch {
      return false;
    }
  },
};

/** Linux capability numbers (capability.h), by the Engine API's names without `CAP_`. */
const CAPABILITIES = [
  "CHOWN",
  "DAC_OVERRIDE",
  "DAC_READ_SEARCH",
  "FOWNER",
  "FSETID",
  "KILL",
  "SETGID",
  "SETUID",
  "SETPCAP",
  "LINUX_IMMUTABLE",
  "NET_BIND_SERVICE",
  "NET_BROADCAST",
  "NET_ADMIN",
  "NET_RAW",
  "IPC_LOCK",
  "IPC_OWNER",
  "SYS_MODULE",
  "SYS_RAWIO",
  "SYS_CHROOT",
  "SYS_PTRACE",
  "SYS_PACCT",
  "SYS_ADMIN",
  "SYS_BOOT",
  "SYS_NICE",
  "SYS_RESOURCE",
  "SYS_TIME",
  "SYS_TTY_CONFIG",
  "MKNOD",
  "LEASE",
  "AUDIT_WRITE",
  "AUDIT_CONTROL",
  "SETFCAP",
  "MAC_OVERRIDE",
  "MAC_ADMIN",
  "SYSLOG",
  "WAKE_ALARM",
  "BLOCK_SUSPEND",
  "AUDIT_READ",
  "PERFMON",
  "BPF",
  "CHECKPOINT_RESTORE",
] as const;

/**
 * Writable mounts every engine gives a container with a read-only root
 * (Docker 20.10 and Podman 4.3 alike): `/dev` (root's only), its `shm`, the
 * `/sys/fs/cgroup` directory tmpfs, the files the engine writes for the
 * container, and the tmpfs masks below `/proc`.
 */
const ENGINE_WRITABLE = ["/dev", "/dev/shm", "/sys/fs/cgroup", "/etc/hosts", "/etc/hostname"];
const ENGINE_WRITABLE_FILES = ["/etc/resolv.conf", "/run/.containerenv"];

/** File systems that hold no files a process writes (kernel interfaces). */
const INTERFACE_TYPES = new Set(["proc", "sysfs", "devpts", "mqueue", "cgroup", "cgroup2"]);

/** One line of `/proc/<pid>/mountinfo` (proc(5)). */
interface Mount {
  point: string;
  options: string[];
  type: string;
  superOptions: string[];
}

/** Thrown by a read of a process that turned out to be gone. */
class Gone extends Error {}

/**
 * What differs between the flags `create` asks for and what the process
 * `pid` (the container's init, before its gate opens) runs with, one phrase
 * per flag naming it (`--read-only: mount "/run" is writable`), or null when
 * nothing does. Rules, each against the request:
 * - `--cap-drop ALL` with `--cap-add`: the bounding set is exactly the kept
 *   capabilities and the ambient set empty (`/proc/<pid>/status`);
 * - `--security-opt no-new-privileges`: `NoNewPrivs: 1`;
 * - `--user uid[:gid]` (numeric): the real and effective ids;
 * - `--read-only`: the root mount is `ro`, and no file system is writable
 *   but the requested tmpfs, the `rw` binds and the engine's own
 *   (`/dev`, `/dev/shm`, `/sys/fs/cgroup`, `/etc/hosts`, `/etc/hostname`,
 *   `/etc/resolv.conf`, `/run/.containerenv`, masks below `/proc`);
 * - `--tmpfs path:opts`: a tmpfs at the path with the requested `ro`,
 *   `nosuid`, `nodev`, `noexec`, `size` (in pages) and `mode`;
 * - `-v src:dst:ro|rw`: a mount at `dst`, read-only when asked;
 * - `--pids-limit`, `--memory`, `--memory-swap` (equal: no swap) and
 *   `--cpus`: the container's cgroup files (`pids.max`;
 *   `memory.limit_in_bytes` and `memory.memsw.limit_in_bytes`, or
 *   `memory.max` and `memory.swap.max`; `cpu.cfs_quota_us` over
 *   `cpu.cfs_period_us`, or `cpu.max`); swap accounting that is off is a
 *   problem only when the host has swap.
 * `--network none` is `networkIsolationProblem`'s. A process that exits
 * during the check (a read fails with `EINVAL`, the error of an exiting
 * process's namespace files, or `/proc/<pid>/stat` is then gone, a
 * zombie's, or another start time's) gives null: nothing of it is left to
 * check; a read that fails otherwise while it lives is a problem (an
 * isolation that cannot be seen is not assumed).
 *
 * Cost: reads of `/proc/<pid>/{status,mountinfo,cgroup}` and at most six
 * cgroup files; synchronous, about a millisecond.
 *
 * @param create the create request (before any engine-specific additions)
 * @param pid the container's init pid on the host
 * @param options `read`: how files are read (the host's by default)
 * @returns the problems, `"; "`-joined, or null
 * @example
 * ```ts ignore
 * import { sandboxFlagsProblem } from "./sandbox_flags_problem.ts";
 * sandboxFlagsProblem(create, info.State.Pid); // '--read-only: mount "/run" is writable'
 * ```
 */
export function sandboxFlagsProblem(
  create: Docker.ContainerCreateOptions,
  pid: number,
  options: { read?: FlagsReader } = {},
): string | null {
  const read = options.read ?? HOST;
  const before = processStart(read, pid);
  const text = (path: string) => {
    try {
      return read.readText(path);
    } catch (error) {
      // An exiting process has no namespaces left to read (EINVAL: its mountinfo), then
      // no entry (ENOENT): nothing of it is left to check.
      const after = processStart(read, pid);
      const exiting = (error as { code?: string }).code === "EINVAL";
      if (exiting || after === null || after !== before) throw new Gone();
      throw new Error(`"${path}" cannot be read: ${(error as Error).message}`);
    }
  };
  try {
    return problems(create, pid, read, text).join("; ") || null;
  } catch (error) {
    if (error instanceof Gone) return null;
    return (error as Error).message;
  }
}

function problems(
  create: Docker.ContainerCreateOptions,
  pid: number,
  read: FlagsReader,
  text: (path: string) => string,
): string[] {
  const host = create.HostConfig ?? {};
  const found: string[] = [];
  const status = fields(text(`/proc/${pid}/status`));
  const list = (value: unknown): string[] => Array.isArray(value) ? value.map(String) : [];
  if (list(host.CapDrop).includes("ALL")) {
    const kept = new Set(list(host.CapAdd).map((cap) => cap.replace(/^CAP_/, "")));
    const bounding = capabilityNames(status.get("CapBnd"));
    const extra = bounding.filter((cap) => !kept.has(cap));
    const missing = [...kept].filter((cap) => !bounding.includes(cap));
    if (extra.length > 0 || missing.length > 0) {
      found.push(
        `--cap-drop ALL${[...kept].map((cap) => ` --cap-add ${cap}`).join("")}: the bounding set ` +
          `is ${bounding.length === 0 ? "empty" : bounding.map((cap) => `"${cap}"`).join(", ")}`,
      );
    }
    if (capabilityNames(status.get("CapAmb")).length > 0) {
      found.push(`--cap-drop ALL: the ambient set is "${status.get("CapAmb")}"`);
    }
  }
  if (list(host.SecurityOpt).some((opt) => /^no-new-privileges(:true)?$/.test(opt))) {
    if (status.get("NoNewPrivs") !== "1") {
      found.push(`--security-opt no-new-privileges: NoNewPrivs is "${status.get("NoNewPrivs")}"`);
    }
  }
  const user = /^(\d+)(?::(\d+))?$/.exec(create.User ?? "");
  if (user !== null) {
    for (const [line, id] of [["Uid", user[1]], ["Gid", user[2]]] as const) {
      const [real, effective] = (status.get(line) ?? "").split(/\s+/);
      if (id !== undefined && (real !== id || effective !== id)) {
        found.push(`--user ${create.User}: ${line} is "${status.get(line)}"`);
      }
    }
  }
  found.push(...mountProblems(host, parseMountinfo(text(`/proc/${pid}/mountinfo`))));
  found.push(...cgroupProblems(host, text(`/proc/${pid}/cgroup`), read, text));
  return found;
}

/**
 * The start time of a live process (`/proc/<pid>/stat` field 22,
 * `parseProcStat`), or null when it is gone, a zombie or dead.
 */
function processStart(read: FlagsReader, pid: number): number | null {
  let stat;
  try {
    stat = parseProcStat(read.readText(`/proc/${pid}/stat`));
  } catch {
    return null;
  }
  return stat === null || /^[ZX]$/.test(stat.state) ? null : stat.startTicks;
}

/** The `Name:\tvalue` lines of a `/proc/<pid>/status`. */
function fields(status: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of status.split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) map.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return map;
}

/** The capability names of a hexadecimal set (`CapBnd` and kin); an unknown bit as its number. */
function capabilityNames(hex: string | undefined): string[] {
  const bits = BigInt(`0x${hex ?? "0"}`);
  const names: string[] = [];
  for (let bit = 0n; bit < 64n; bit++) {
    if ((bits >> bit) & 1n) names.push(CAPABILITIES[Number(bit)] ?? `capability ${bit}`);
  }
  return names;
}

/** The mounts of a `/proc/<pid>/mountinfo`, in order (a later mount on a point hides an earlier). */
function parseMountinfo(mountinfo: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of mountinfo.split("\n")) {
    const parts = line.split(" ");
    const dash = parts.indexOf("-");
    if (dash < 6) continue;
    mounts.push({
      point: parts[4].replace(
        /\\([0-7]{3})/g,
        (_, octal) => String.fromCharCode(parseInt(octal, 8)),
      ),
      options: parts[5].split(","),
      type: parts[dash + 1],
      superOptions: (parts[dash + 3] ?? "").split(","),
    });
  }
  return mounts;
}

function mountProblems(host: Docker.HostConfig, mounts: Mount[]): string[] {
  const found: string[] = [];
  const at = (point: string) => mounts.findLast((mount) => mount.point === point);
  const tmpfs = Object.entries(host.Tmpfs ?? {});
  const binds = (host.Binds ?? []).map((bind) => {
    const [, target, mode = "rw"] = bind.split(":");
    return { target, readOnly: mode.split(",").includes("ro") };
  });
  if (host.ReadonlyRootfs) {
    if (!at("/")?.options.includes("ro")) {
      found.push("--read-only: the root file system is writable");
    }
    const asked = new Set([
      ...tmpfs.map(([path]) => path),
      ...binds.filter((bind) => !bind.readOnly).map((bind) => bind.target),
    ]);
    for (const mount of mounts) {
      if (mount.point === "/" || !mount.options.includes("rw")) continue;
      if (INTERFACE_TYPES.has(mount.type) || asked.has(mount.point)) continue;
      if (ENGINE_WRITABLE.includes(mount.point) || mount.point.startsWith("/proc/")) continue;
      if (ENGINE_WRITABLE_FILES.includes(mount.point)) continue;
      if (at(mount.point) !== mount) continue; // hidden by a later mount on the same point
      found.push(`--read-only: mount "${mount.point}" (${mount.type}) is writable`);
    }
  }
  for (const [path, spec] of tmpfs) {
    const mount = at(path);
    const flag = `--tmpfs ${path}:${spec}`;
    if (mount === undefined || mount.type !== "tmpfs") {
      found.push(`${flag}: ${mount === undefined ? "no mount" : `a ${mount.type} mount`} there`);
      continue;
    }
    const asked = spec.split(",");
    for (const option of ["ro", "nosuid", "nodev", "noexec"]) {
      if (asked.includes(option) && !mount.options.includes(option)) {
        found.push(`${flag}: mounted without "${option}"`);
      }
    }
    const size = asked.find((option) => option.startsWith("size="))?.slice(5);
    const shown = mount.superOptions.find((option) => option.startsWith("size="))?.slice(5);
    // The kernel keeps a tmpfs size in pages and shows it in KiB.
    if (size !== undefined && shown !== `${Math.ceil(Number(size) / 4096) * 4}k`) {
      found.push(`${flag}: its size is ${shown === undefined ? "unbounded" : `"${shown}"`}`);
    }
    const mode = asked.find((option) => option.startsWith("mode="))?.slice(5);
    const shownMode = mount.superOptions.find((option) => option.startsWith("mode="))?.slice(5);
    // The kernel omits the default mode, 1777.
    if (mode !== undefined && parseInt(mode, 8) !== parseInt(shownMode ?? "1777", 8)) {
      found.push(`${flag}: its mode is "${shownMode ?? "1777"}"`);
    }
  }
  for (const bind of binds) {
    const mount = at(bind.target);
    if (mount === undefined) found.push(`-v ${bind.target}: no mount there`);
    else if (bind.readOnly && !mount.options.includes("ro")) {
      found.push(`-v ${bind.target}:ro: the mount is writable`);
    }
  }
  return found;
}

function cgroupProblems(
  host: Docker.HostConfig,
  cgroup: string,
  read: FlagsReader,
  text: (path: string) => string,
): string[] {
  const found: string[] = [];
  const dirs = new Map<string, string>();
  for (const line of cgroup.split("\n")) {
    const [, controllers, path] = line.split(":");
    if (path === undefined) continue;
    if (controllers === "") dirs.set("", `/sys/fs/cgroup${path}`);
    for (const name of controllers.split(",")) {
      if (name !== "") dirs.set(name, `/sys/fs/cgroup/${controllers}${path}`);
    }
  }
  const unified = dirs.get("");
  /** The file of a v1 controller, else of the unified hierarchy. */
  const file = (controller: string, v1: string, v2: string) =>
    dirs.has(controller) ? `${dirs.get(controller)}/${v1}` : `${unified}/${v2}`;
  const value = (path: string) => text(path).trim();
  if (host.PidsLimit !== undefined && host.PidsLimit !== null && host.PidsLimit > 0) {
    const max = value(file("pids", "pids.max", "pids.max"));
    if (max !== String(host.PidsLimit)) {
      found.push(`--pids-limit ${host.PidsLimit}: pids.max is "${max}"`);
    }
  }
  if (host.Memory) {
    const v1 = dirs.has("memory");
    const limit = value(file("memory", "memory.limit_in_bytes", "memory.max"));
    if (limit !== String(host.Memory)) {
      found.push(`--memory ${host.Memory}: the limit is "${limit}"`);
    }
    if (host.MemorySwap) {
      const swapFile = file("memory", "memory.memsw.limit_in_bytes", "memory.swap.max");
      const expected = v1 ? host.MemorySwap : host.MemorySwap - host.Memory;
      if (read.exists(swapFile)) {
        const swap = value(swapFile);
        if (swap !== String(expected)) {
          found.push(`--memory-swap ${host.MemorySwap}: ${swapFile.split("/").pop()} is "${swap}"`);
        }
      } else if (hostHasSwap(text)) {
        found.push(`--memory-swap ${host.MemorySwap}: the host has swap and no swap accounting`);
      }
    }
  }
  if (host.NanoCpus) {
    const cpu = dirs.get("cpu");
    const [quota, period] = cpu === undefined
      ? value(`${unified}/cpu.max`).split(/\s+/)
      : [value(`${cpu}/cpu.cfs_quota_us`), value(`${cpu}/cpu.cfs_period_us`)];
    if (Number(quota) * 1e9 !== host.NanoCpus * Number(period)) {
      found.push(`--cpus ${host.NanoCpus / 1e9}: the quota is "${quota}" per "${period}" µs`);
    }
  }
  return found;
}

function hostHasSwap(text: (path: string) => string): boolean {
  return Number(/^SwapTotal:\s+(\d+)/m.exec(text("/proc/meminfo"))?.[1] ?? 0) > 0;
}
