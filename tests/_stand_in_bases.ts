/**
 * Offline stand-ins for the public base images real tasks name (issue 22):
 * Harbor's tasks say `FROM ubuntu:24.04` and then `RUN apt-get update &&
 * apt-get install -y python3 ...`, but no image registry is reachable from
 * our machines. A stand-in is a Debian root file system made by
 * `debootstrap --variant=minbase` from the machine's own Debian package
 * source, loaded with `docker import` under the public tag, so those
 * `apt-get` steps work here with the build's network. It is not Ubuntu
 * (`/etc/os-release` says Debian, the packages are the machine's release),
 * only the same shape: minbase has what the `ubuntu:24.04` image has that
 * tasks rely on (bash, apt, gpgv, mawk, perl-base) and, like it, no
 * `ca-certificates`, `curl` or `python3`.
 *
 * What the root gets beyond debootstrap's, so that apt works as on the
 * machine and a later TLS client trusts the test proxy:
 *
 * - the machine's apt sources on the mirror's host (`.sources` and `.list`
 *   files whose keyrings the root has), replacing debootstrap's one line;
 * - the machine's local apt settings: the files of `/etc/apt/apt.conf.d`
 *   (and `/etc/apt/apt.conf`) that no package owns (`dpkg-query -S`), such as
 *   `99artifact-registry` (`Acquire::Check-Valid-Until "false"`, which a
 *   snapshot mirror needs), except the `docker-*` files of the image the
 *   machine itself came from;
 * - the test CA (`_test_ca.ts`) at
 *   `/usr/local/share/ca-certificates/ledgerbench-test-ca.crt`, so that
 *   when a task installs `ca-certificates` (or `curl`, which brings it),
 *   `update-ca-certificates` trusts it;
 *
 * and less: no apt lists or package cache, no `/dev` entries, no
 * `resolv.conf` or `hostname` of the machine. The image carries the labels
 * `ledgerbench.stand-in=1` and `ledgerbench.stand-in.ca=<SHA-256 of the CA
 * certificate>`, `CMD ["/bin/bash"]` and the `PATH` of `ubuntu:24.04`.
 *
 * @module
 */
import { pathExists } from "../inputs/input_file.ts";
import { testCa } from "./_test_ca.ts";
import { withMachineLock } from "./_machine_lock.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { buildImage } from "../runner/docker/build_image.ts";

/** The label every stand-in carries (`1`); an image without it is real and never replaced. */
export const STAND_IN_LABEL = "ledgerbench.stand-in";

/** The label holding the SHA-256 (hex) of the test CA certificate the stand-in trusts. */
export const STAND_IN_CA_LABEL = "ledgerbench.stand-in.ca";

/** Where the test CA goes in the root (`update-ca-certificates` reads this directory). */
export const STAND_IN_CA_PATH = "/usr/local/share/ca-certificates/ledgerbench-test-ca.crt";

/** The `PATH` the `ubuntu:24.04` image sets (`docker image inspect ubuntu:24.04`). */
const UBUNTU_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** debootstrap's deadline: it took 40 to 98 s here. */
const DEBOOTSTRAP_TIMEOUT_MS = 10 * 60_000;

/**
 * The image ID of `tag`, building the stand-in first when needed. Rules, in
 * order: a `tag` present without the label `ledgerbench.stand-in=1` is a
 * real image, used as it is and never replaced; a stand-in that trusts the
 * machine's current test CA is reused; otherwise (absent, or a stand-in of
 * a test CA since removed from the temp directory) it is built as the
 * module doc says and replaces the old one. Concurrent callers, in this
 * process or others, are serialized by a lock file
 * (`${TMPDIR:-/tmp}/ledgerbench-stand-in-bases.lock`, `flock(2)`), and the
 * one that waited reuses what the first built. A fresh build took 64 to
 * 117 s here (debootstrap 58 to 98 s of it, with the machine's load; the
 * import 3 to 8 s, removing the root 2 to 14 s); it needs root,
 * `debootstrap` and the machine's Debian mirror. Another `ubuntu:*` is the
 * same stand-in under its tag, and so is an `alpine:*`; a `python:*` adds
 * Debian's Python to it (`deriveStandIn`).
 *
 * @param tag the public tag to stand in for
 * @returns the image ID (`sha256:...`)
 * @throws {Error} when `debootstrap` is not installed (the message says how
 *   to install it), when not run as root, when the machine has no apt
 *   source for its own release, or when debootstrap or the import fails
 * @example
 * ```ts ignore
 * const id = await standInBase(); // "ubuntu:24.04"
 * ```
 */
export async function standInBase(tag = UBUNTU_TAG): Promise<string> {
  const ca = await testCa();
  const caDigest = sha256Hex(ca.caCertPem);
  const ready = (image: LocalImage | null) =>
    image !== null &&
    (image.labels[STAND_IN_LABEL] !== "1" || image.labels[STAND_IN_CA_LABEL] === caDigest);
  const found = await localImage(tag);
  if (ready(found)) return found!.id;
  // A derived stand-in starts from the Ubuntu one, made (under the lock) first.
  const ubuntu = tag === UBUNTU_TAG ? null : await standInBase(UBUNTU_TAG);
  return await withMachineLock("ledgerbench-stand-in-bases", async () => {
    const now = await localImage(tag);
    if (ready(now)) return now!.id;
    const id = ubuntu === null
      ? await buildStandIn(tag, ca.caCertPem, caDigest)
      : await deriveStandIn(tag, ubuntu);
    if (now !== null && now.id !== id) {
      // The stand-in it replaced, now untagged: ours to remove (refused if in use).
      await new Deno.Command("docker", { args: ["rmi", now.id], stdout: "null", stderr: "null" })
        .output();
    }
    return id;
  });
}

/** The tag the debootstrapped stand-in is built under; the others derive from it. */
const UBUNTU_TAG = "ubuntu:24.04";

/**
 * A stand-in for another public base, from the Ubuntu one: another
 * `ubuntu:*` is the same image under its tag (either is only Debian in
 * Ubuntu's shape), and so is an `alpine:*` (Debian's `sh`, coreutils and
 * `sleep infinity` in place of busybox's: enough for a sidecar that runs a
 * shell line, not for `apk`); a `python:*` adds Debian's `python3` and
 * `python-is-python3` (the image's `python` and `python3`; not its pip),
 * installed from the machine's mirror over the host's network.
 */
async function deriveStandIn(tag: string, ubuntu: string): Promise<string> {
  if (tag.startsWith("ubuntu:") || tag.startsWith("alpine:")) {
    const tagged = await new Deno.Command("docker", { args: ["tag", ubuntu, tag], stderr: "piped" })
      .output();
    if (!tagged.success) {
      throw new Error(
        `Cannot tag the stand-in base "${tag}": ${new TextDecoder().decode(tagged.stderr).trim()}`,
      );
    }
  } else if (tag.startsWith("python:")) {
    const context = await Deno.makeTempDir({ prefix: "ledgerbench-stand-in-python-" });
    try {
      await Deno.writeTextFile(
        `${context}/Dockerfile`,
        [
          // BuildKit reads a FROM as a reference, never an image ID.
          `FROM ${UBUNTU_TAG}`,
          "RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq " +
          "--no-install-recommends python3 python-is-python3 && rm -rf /var/lib/apt/lists/*",
          'CMD ["python3"]',
          "",
        ].join("\n"),
      );
      const built = await buildImage({ context, dockerfile: "Dockerfile", tag, network: "host" });
      if (!built.ok) throw new Error(`Cannot build the stand-in base "${tag}": ${built.failure}`);
    } finally {
      await removeTree(context);
    }
  } else {
    throw new Error(
      `No stand-in is known for the base "${tag}" (ubuntu:*, alpine:* and python:* are)`,
    );
  }
  const made = await localImage(tag);
  if (made === null) throw new Error(`The stand-in base "${tag}" is gone after its build`);
  return made.id;
}

/**
 * One rule for the tests that build a stand-in, as tests/_docker_engine.ts
 * has for the engine: on a developer's machine without `debootstrap` (or
 * not root) they are skipped with a loud message; under `CI=true` (set by
 * `.ci/run`, which installs debootstrap) a missing tool is a failure.
 *
 * @param testFile the test file, for the messages
 * @returns true when a stand-in can be built; false (after the warning) when not, outside CI
 * @throws {Error} under `CI=true` when `debootstrap` is missing or the tests are not root
 */
export async function requireStandInTools(testFile: string): Promise<boolean> {
  const problem = (await findDebootstrap()) === null
    ? "debootstrap is not installed (apt-get install -y debootstrap; .ci/run installs it)"
    : Deno.uid() !== 0
    ? "debootstrap needs root"
    : null;
  if (problem === null) return true;
  if (Deno.env.get("CI") === "true") {
    throw new Error(`${testFile} builds a stand-in base image: ${problem}`);
  }
  console.warn(`${testFile} skipped: cannot build a stand-in base image: ${problem}`);
  return false;
}

/** An image present in the engine: its ID and labels. */
interface LocalImage {
  id: string;
  labels: Record<string, string>;
}

/** `ref`'s ID and labels, or null when the engine has no such image (never pulls). */
async function localImage(ref: string): Promise<LocalImage | null> {
  const out = await new Deno.Command("docker", {
    args: ["image", "inspect", "--format", "{{json .Id}} {{json .Config.Labels}}", ref],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const stderr = new TextDecoder().decode(out.stderr);
    if (/no such image/i.test(stderr)) return null;
    throw new Error(`Cannot inspect image "${ref}": ${stderr.trim()}`);
  }
  const text = new TextDecoder().decode(out.stdout).trim();
  const space = text.indexOf(" ");
  return {
    id: JSON.parse(text.slice(0, space)),
    labels: JSON.parse(text.slice(space + 1)) ?? {},
  };
}

/** debootstrap, the root's adjustments and `docker import`; returns the new image ID. */
async function buildStandIn(tag: string, caCertPem: string, caDigest: string): Promise<string> {
  const debootstrap = await findDebootstrap();
  if (debootstrap === null) {
    throw new Error(
      `Cannot build the stand-in base "${tag}": debootstrap is not installed ` +
        "(apt-get install -y debootstrap; .ci/run installs it)",
    );
  }
  if (Deno.uid() !== 0) {
    throw new Error(`Cannot build the stand-in base "${tag}": debootstrap needs root`);
  }
  const release = await machineRelease();
  const sources = await machineSources();
  const mirror = sources.find((source) =>
    source.types.includes("deb") && source.suites.includes(release) &&
    source.components.includes("main")
  );
  if (mirror === undefined) {
    throw new Error(
      `Cannot build the stand-in base "${tag}": no apt source of this machine offers ` +
        `"deb ... ${release} main" (/etc/apt/sources.list, /etc/apt/sources.list.d)`,
    );
  }
  const uri = mirror.uris[0];
  const started = performance.now();
  console.error(`building the stand-in base "${tag}": debootstrap ${release} from ${uri}`);
  const work = await Deno.makeTempDir({ prefix: "ledgerbench-stand-in-" });
  const seconds = (from: number) => ((performance.now() - from) / 1000).toFixed(1);
  let id: string;
  let bootstrapS: string;
  let importS: string;
  try {
    const root = `${work}/root`;
    const bootstrapped = await new Deno.Command(debootstrap, {
      args: ["--variant=minbase", release, root, uri],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(DEBOOTSTRAP_TIMEOUT_MS),
    }).output();
    bootstrapS = seconds(started);
    if (!bootstrapped.success) {
      const log = await Deno.readTextFile(`${root}/debootstrap/debootstrap.log`).catch(() => "");
      const tail = (new TextDecoder().decode(bootstrapped.stderr) + log).trim().split("\n")
        .slice(-4).join(" | ");
      throw new Error(
        `Cannot build the stand-in base "${tag}": debootstrap failed (exit ` +
          `${bootstrapped.code}): ${tail}`,
      );
    }
    const importing = performance.now();
    await copyAptSources(root, sources, new URL(uri).host);
    await copyAptSettings(root);
    await Deno.mkdir(`${root}${STAND_IN_CA_PATH.slice(0, STAND_IN_CA_PATH.lastIndexOf("/"))}`, {
      recursive: true,
    });
    await Deno.writeTextFile(`${root}${STAND_IN_CA_PATH}`, caCertPem, { mode: 0o644 });
    await cleanRoot(root);
    id = await importRoot(root, tag, [
      'CMD ["/bin/bash"]',
      `ENV PATH=${UBUNTU_PATH}`,
      `LABEL ${STAND_IN_LABEL}=1`,
      `LABEL ${STAND_IN_CA_LABEL}=${caDigest}`,
      `LABEL ledgerbench.stand-in.source=${JSON.stringify(`debian ${release} ${uri}`)}`,
    ]);
    importS = seconds(importing);
  } finally {
    await removeTree(work);
  }
  console.error(
    `built the stand-in base "${tag}" (${id.slice(0, 19)}) in ${seconds(started)} s ` +
      `(debootstrap ${bootstrapS} s, import ${importS} s, the rest removing the root)`,
  );
  return id;
}

/** `debootstrap`'s path (PATH, then the sbin directories a non-login PATH may lack); null if absent. */
async function findDebootstrap(): Promise<string | null> {
  const dirs = [...(Deno.env.get("PATH") ?? "").split(":"), "/usr/sbin", "/sbin"];
  for (const dir of dirs.filter((d) => d !== "")) {
    try {
      const info = await Deno.stat(`${dir}/debootstrap`);
      if (info.isFile && (info.mode ?? 0) & 0o111) return `${dir}/debootstrap`;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return null;
}

/** The machine's release codename (`VERSION_CODENAME` of /etc/os-release: `bookworm`). */
async function machineRelease(): Promise<string> {
  const text = await Deno.readTextFile("/etc/os-release");
  const codename = text.match(/^VERSION_CODENAME="?([a-z0-9-]+)"?$/m)?.[1];
  if (codename === undefined) {
    throw new Error("Cannot build a stand-in base: /etc/os-release names no VERSION_CODENAME");
  }
  return codename;
}

/** One enabled apt source entry, from a deb822 stanza or a one-line entry. */
interface AptSource {
  /** The file it is in. */
  file: string;
  types: string[];
  uris: string[];
  suites: string[];
  components: string[];
  /** Keyring files it names (`Signed-By`, `signed-by=`). */
  signedBy: string[];
}

/** The machine's enabled apt sources, in apt's order (sources.list, then sources.list.d by name). */
async function machineSources(): Promise<AptSource[]> {
  const files = ["/etc/apt/sources.list"];
  try {
    const names = [];
    for await (const entry of Deno.readDir("/etc/apt/sources.list.d")) {
      if (/^[\w.-]+\.(list|sources)$/.test(entry.name)) names.push(entry.name);
    }
    files.push(...names.sort().map((name) => `/etc/apt/sources.list.d/${name}`));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const sources: AptSource[] = [];
  for (const file of files) {
    let text;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    sources.push(
      ...(file.endsWith(".sources") ? deb822Sources(file, text) : lineSources(file, text)),
    );
  }
  return sources;
}

/** The enabled stanzas of a deb822 `.sources` file (sources.list(5)). */
function deb822Sources(file: string, text: string): AptSource[] {
  const stanzas = text.split(/\n\s*\n/);
  const sources: AptSource[] = [];
  for (const stanza of stanzas) {
    const fields = new Map<string, string>();
    let last: string | null = null;
    for (const line of stanza.split("\n")) {
      if (line.startsWith("#")) continue;
      if (/^\s/.test(line) && last !== null) {
        fields.set(last, `${fields.get(last)} ${line.trim()}`);
        continue;
      }
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      last = line.slice(0, colon).trim().toLowerCase();
      fields.set(last, line.slice(colon + 1).trim());
    }
    const list = (name: string) => (fields.get(name) ?? "").split(/\s+/).filter((w) => w !== "");
    if (list("uris").length === 0 || fields.get("enabled")?.toLowerCase() === "no") continue;
    sources.push({
      file,
      types: list("types"),
      uris: list("uris"),
      suites: list("suites"),
      components: list("components"),
      signedBy: list("signed-by").filter((item) => item.startsWith("/")),
    });
  }
  return sources;
}

/** The entries of a one-line `.list` file: `deb [options] URI SUITE COMPONENT...`. */
function lineSources(file: string, text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    const entry = line.match(/^(deb|deb-src)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s*(.*)$/);
    if (entry === null) continue;
    const options = (entry[2] ?? "").split(/\s+/);
    sources.push({
      file,
      types: [entry[1]],
      uris: [entry[3]],
      suites: [entry[4]],
      components: entry[5].split(/\s+/).filter((w) => w !== ""),
      signedBy: options.filter((o) => o.startsWith("signed-by=")).flatMap((o) =>
        o.slice("signed-by=".length).split(",")
      ),
    });
  }
  return sources;
}

/**
 * Copies into the root every source file whose enabled entries are all on
 * the mirror's `host` and whose keyrings the root has; when one is copied,
 * debootstrap's own `/etc/apt/sources.list` goes (else apt warns of
 * targets configured twice).
 */
async function copyAptSources(root: string, sources: AptSource[], host: string): Promise<void> {
  const files = [...new Set(sources.map((source) => source.file))];
  let copied = false;
  for (const file of files) {
    const entries = sources.filter((source) => source.file === file);
    const onMirror = entries.every((source) =>
      source.uris.every((uri) => {
        try {
          return new URL(uri).host === host;
        } catch {
          return false;
        }
      })
    );
    if (!onMirror) continue;
    let keyrings = true;
    for (const keyring of entries.flatMap((source) => source.signedBy)) {
      keyrings &&= await pathExists(`${root}${keyring}`);
    }
    if (!keyrings) continue;
    if (!copied && file !== "/etc/apt/sources.list") {
      await Deno.remove(`${root}/etc/apt/sources.list`).catch(() => {});
    }
    copied = true;
    await Deno.copyFile(file, `${root}${file}`);
  }
}

/**
 * Copies the machine's local apt settings into the root: the files of
 * `/etc/apt/apt.conf.d` that no package owns, but the `docker-*` ones, and
 * `/etc/apt/apt.conf`.
 */
async function copyAptSettings(root: string): Promise<void> {
  const dir = "/etc/apt/apt.conf.d";
  const candidates: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && !entry.name.startsWith("docker-")) candidates.push(`${dir}/${entry.name}`);
  }
  const owned = new Set<string>();
  if (candidates.length > 0) {
    // Owned paths come out as "package[, package]: /path"; unowned ones only on stderr.
    const out = await new Deno.Command("dpkg-query", {
      args: ["-S", ...candidates],
      stdout: "piped",
      stderr: "null",
    }).output();
    for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
      const path = line.slice(line.indexOf(": ") + 2);
      if (line.includes(": ")) owned.add(path);
    }
  }
  if (await pathExists("/etc/apt/apt.conf")) candidates.push("/etc/apt/apt.conf");
  for (const file of candidates.filter((file) => !owned.has(file))) {
    await Deno.copyFile(file, `${root}${file}`);
  }
}

/** Removes what an image should not carry: apt's lists and cache, the machine's names, devices, logs. */
async function cleanRoot(root: string): Promise<void> {
  const emptied = ["/var/lib/apt/lists", "/var/cache/apt/archives", "/var/cache/apt", "/dev"];
  for (const dir of emptied) {
    for await (const entry of Deno.readDir(`${root}${dir}`)) {
      if (entry.isDirectory && dir !== "/dev") continue;
      if (entry.name === "lock") continue;
      await Deno.remove(`${root}${dir}/${entry.name}`, { recursive: true });
    }
  }
  for (const file of ["/etc/resolv.conf", "/etc/hostname", "/var/log/bootstrap.log"]) {
    await Deno.remove(`${root}${file}`).catch(() => {});
  }
}

/** `tar -C root -c . | docker import --change ... - tag`; returns the image ID. */
async function importRoot(root: string, tag: string, changes: string[]): Promise<string> {
  const tar = new Deno.Command("tar", {
    args: ["--numeric-owner", "-C", root, "-c", "."],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const imported = new Deno.Command("docker", {
    args: ["import", ...changes.flatMap((change) => ["--change", change]), "-", tag],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const text = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();
  const [, tarStderr, tarStatus, id, importStderr, importStatus] = await Promise.all([
    // A failed pipe shows as the failure of one side, reported below.
    tar.stdout.pipeTo(imported.stdin).catch(() => {}),
    text(tar.stderr),
    tar.status,
    text(imported.stdout),
    text(imported.stderr),
    imported.status,
  ]);
  if (!tarStatus.success) {
    throw new Error(`Cannot import the stand-in base "${tag}": tar failed: ${tarStderr.trim()}`);
  }
  if (!importStatus.success) {
    throw new Error(
      `Cannot import the stand-in base "${tag}": docker import failed: ${importStderr.trim()}`,
    );
  }
  return id.trim();
}
