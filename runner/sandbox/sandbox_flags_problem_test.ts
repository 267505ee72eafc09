import { equal } from "node:assert/strict";
import { sandboxCreateOptions } from "./_run_container.ts";
import { type FlagsReader, sandboxFlagsProblem } from "./sandbox_flags_problem.ts";

const PID = 4242;
const CGROUP = "/libpod_parent/libpod-0123";

/** The verifier's request (run_verifier.ts's flags): caps kept, extra tmpfs, ro and rw binds. */
const CREATE = sandboxCreateOptions({
  image: "sha256:abc",
  env: {},
  user: "0:0",
  workingDir: "/tmp",
  labels: {},
  pidsLimit: 64,
  memoryBytes: 256 * 1024 ** 2,
  nanoCpus: 500_000_000,
  tmpfsBytes: 64 * 1024 ** 2,
  extraTmpfs: { "/logs": { bytes: 64 * 1024 ** 2, mode: "0755" } },
  capAdd: ["SETUID", "SETGID", "KILL"],
  binds: ["/h/verifier:/verifier:ro", "/h/channel:/ledgerbench/channel:rw"],
});

/** `/proc/<pid>/status`: SETUID (7), SETGID (6) and KILL (5) are bits 0xe0. */
const STATUS = [
  "Name:\tsh",
  "Uid:\t0\t0\t0\t0",
  "Gid:\t0\t0\t0\t0",
  "CapInh:\t0000000000000000",
  "CapPrm:\t00000000000000e0",
  "CapEff:\t00000000000000e0",
  "CapBnd:\t00000000000000e0",
  "CapAmb:\t0000000000000000",
  "NoNewPrivs:\t1",
].join("\n");

/** Podman 4.3.1's mountinfo of such a container (read on our machine), with the sandbox's mounts. */
const MOUNTINFO = [
  "78 52 0:41 / / ro,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w",
  "80 78 0:44 / /run ro,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,size=4k",
  "81 78 0:45 / /tmp rw,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,size=65536k",
  "82 78 0:46 / /logs rw,nosuid,nodev,relatime - tmpfs tmpfs rw,size=65536k,mode=755",
  "79 78 0:46 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
  "83 78 0:47 / /dev rw,nosuid,noexec - tmpfs tmpfs rw,size=65536k,mode=755",
  "84 78 0:48 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro",
  "85 84 0:51 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,mode=755",
  "86 85 0:30 / /sys/fs/cgroup/pids ro,nosuid,nodev,noexec,relatime - cgroup cgroup rw,pids",
  "87 83 0:50 / /dev/pts rw,nosuid,noexec,relatime - devpts devpts rw,gid=5,mode=620",
  "88 83 0:43 / /dev/mqueue rw,nosuid,nodev,noexec,relatime - mqueue mqueue rw",
  "89 83 0:40 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=64000k",
  "90 78 254:0 /h/verifier /verifier ro,relatime - ext4 /dev/vda rw",
  "91 78 254:0 /h/channel /ledgerbench/channel rw,relatime - ext4 /dev/vda rw",
  "92 78 254:0 /etc/hosts /etc/hosts ro,nosuid,nodev,noexec,relatime - ext4 /dev/vda rw",
  "93 79 0:52 / /proc/keys rw,nosuid,noexec - tmpfs tmpfs rw,size=65536k,mode=755",
].join("\n");

/** A host whose files are `files` (a missing one throws NotFound, a null one EINVAL). */
function host(changes: Record<string, string | null | undefined> = {}): FlagsReader {
  const files: Record<string, string | null | undefined> = {
    [`/proc/${PID}/stat`]: `${PID} (sh) S 1 ${"0 ".repeat(17)}777 0`,
    [`/proc/${PID}/status`]: STATUS,
    [`/proc/${PID}/mountinfo`]: MOUNTINFO,
    [`/proc/${PID}/cgroup`]: ["8:pids:", "4:memory:", "1:cpu:"].map((c) => c + CGROUP).join("\n"),
    [`/sys/fs/cgroup/pids${CGROUP}/pids.max`]: "64\n",
    [`/sys/fs/cgroup/memory${CGROUP}/memory.limit_in_bytes`]: "268435456\n",
    [`/sys/fs/cgroup/memory${CGROUP}/memory.memsw.limit_in_bytes`]: "268435456\n",
    [`/sys/fs/cgroup/cpu${CGROUP}/cpu.cfs_quota_us`]: "50000\n",
    [`/sys/fs/cgroup/cpu${CGROUP}/cpu.cfs_period_us`]: "100000\n",
    "/proc/meminfo": "MemTotal: 100 kB\nSwapTotal: 0 kB\n",
    ...changes,
  };
  return {
    readText(path) {
      const text = files[path];
      if (text === null) throw Object.assign(new Error("Invalid argument"), { code: "EINVAL" });
      if (text === undefined) throw new Deno.errors.NotFound(`No such file: ${path}`);
      return text;
    },
    exists: (path) => files[path] !== undefined,
  };
}

const problem = (changes?: Record<string, string | null | undefined>) =>
  sandboxFlagsProblem(CREATE, PID, { read: host(changes) });

Deno.test("sandboxFlagsProblem() accepts a container with every flag it asked for", () => {
  equal(problem(), null);
});

Deno.test("sandboxFlagsProblem() names capabilities, no-new-privileges and the user", () => {
  // 0xe1: CHOWN (bit 0) kept besides the three asked for.
  equal(
    problem({
      [`/proc/${PID}/status`]: STATUS.replace(
        "CapBnd:\t00000000000000e0",
        "CapBnd:\t00000000000000e1",
      ),
    }),
    '--cap-drop ALL --cap-add SETUID --cap-add SETGID --cap-add KILL: the bounding set is "CHOWN", ' +
      '"KILL", "SETGID", "SETUID"',
  );
  equal(
    problem({
      [`/proc/${PID}/status`]: STATUS.replace("NoNewPrivs:\t1", "NoNewPrivs:\t0")
        .replace("Uid:\t0\t0", "Uid:\t0\t1000"),
    }),
    '--security-opt no-new-privileges: NoNewPrivs is "0"; --user 0:0: Uid is "0\t1000\t0\t0"',
  );
});

Deno.test("sandboxFlagsProblem() names a writable root, unasked writable mounts and tmpfs options", () => {
  const mounts = MOUNTINFO
    .replace("/ / ro,relatime", "/ / rw,relatime")
    .replace("/run ro,nosuid", "/run rw,nosuid")
    .replace(
      "/tmp rw,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,size=65536k",
      "/tmp rw,nosuid,nodev,relatime - tmpfs tmpfs rw",
    )
    .replace(
      "/logs rw,nosuid,nodev,relatime - tmpfs tmpfs rw,size=65536k,mode=755",
      "/logs rw,nosuid,nodev,relatime - tmpfs tmpfs rw,size=65536k",
    )
    .replace("/verifier ro,relatime", "/verifier rw,relatime");
  equal(
    problem({ [`/proc/${PID}/mountinfo`]: mounts }),
    [
      "--read-only: the root file system is writable",
      '--read-only: mount "/run" (tmpfs) is writable',
      '--read-only: mount "/verifier" (ext4) is writable',
      '--tmpfs /tmp:rw,nosuid,nodev,noexec,size=67108864: mounted without "noexec"',
      "--tmpfs /tmp:rw,nosuid,nodev,noexec,size=67108864: its size is unbounded",
      '--tmpfs /logs:rw,nosuid,nodev,exec,size=67108864,mode=0755: its mode is "1777"',
      "-v /verifier:ro: the mount is writable",
    ].join("; "),
  );
});

Deno.test("sandboxFlagsProblem() names the pids, memory, swap and CPU limits the cgroup lacks", () => {
  equal(
    problem({
      [`/sys/fs/cgroup/pids${CGROUP}/pids.max`]: "max\n",
      [`/sys/fs/cgroup/memory${CGROUP}/memory.limit_in_bytes`]: "9223372036854771712\n",
      [`/sys/fs/cgroup/memory${CGROUP}/memory.memsw.limit_in_bytes`]: undefined,
      "/proc/meminfo": "SwapTotal: 1024 kB\n",
      [`/sys/fs/cgroup/cpu${CGROUP}/cpu.cfs_quota_us`]: "-1\n",
    }),
    [
      '--pids-limit 64: pids.max is "max"',
      '--memory 268435456: the limit is "9223372036854771712"',
      "--memory-swap 268435456: the host has swap and no swap accounting",
      '--cpus 0.5: the quota is "-1" per "100000" µs',
    ].join("; "),
  );
  // Without swap on the host, no swap accounting is no swap.
  equal(
    problem({ [`/sys/fs/cgroup/memory${CGROUP}/memory.memsw.limit_in_bytes`]: undefined }),
    null,
  );
});

Deno.test("sandboxFlagsProblem() reads cgroup v2's unified files", () => {
  const unified = `/sys/fs/cgroup${CGROUP}`;
  equal(
    problem({
      [`/proc/${PID}/cgroup`]: `0::${CGROUP}\n`,
      [`${unified}/pids.max`]: "64\n",
      [`${unified}/memory.max`]: "268435456\n",
      [`${unified}/memory.swap.max`]: "0\n",
      [`${unified}/cpu.max`]: "50000 100000\n",
    }),
    null,
  );
});

Deno.test("sandboxFlagsProblem() gives null for a process that exits during the check", () => {
  // The mountinfo of an exiting process: EINVAL (its namespaces are gone).
  equal(problem({ [`/proc/${PID}/mountinfo`]: null }), null);
  // Gone altogether: its stat has gone with it.
  equal(problem({ [`/proc/${PID}/stat`]: undefined, [`/proc/${PID}/cgroup`]: undefined }), null);
  // A live process whose file cannot be read is a problem, not a pass.
  equal(
    problem({ [`/sys/fs/cgroup/pids${CGROUP}/pids.max`]: undefined }),
    `"/sys/fs/cgroup/pids${CGROUP}/pids.max" cannot be read: No such file: ` +
      `/sys/fs/cgroup/pids${CGROUP}/pids.max`,
  );
});
