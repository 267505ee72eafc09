/**
 * A certificate authority for tests (issue 22): the stand-in base images
 * (`_stand_in_bases.ts`) trust it, so a test proxy holding a leaf it signed
 * can serve `https://astral.sh/...` to a task's verifier without a real
 * certificate. The CA is made once per machine with the `openssl` command
 * line and kept in `${TMPDIR:-/tmp}/ledgerbench-test-ca` (`ca.crt`,
 * `ca.key`), so every test process, and every stand-in image built from it,
 * shares one CA. It is created in a temporary sibling directory and renamed
 * into place, so two processes racing to create it cannot leave a
 * half-written one: the loser of the rename reads the winner's.
 *
 * Keys are ECDSA P-256 (fast to make; OpenSSL, rustls, Go and Python all
 * accept them). The CA is trusted only by images that copy it in; it is a
 * test fixture, never a credential.
 *
 * @module
 */

/** A leaf certificate and its private key, both PEM. */
export interface LeafCertificate {
  /** The leaf's certificate (PEM), signed by the test CA. */
  certPem: string;
  /** The leaf's private key (PEM, PKCS #8, unencrypted). */
  keyPem: string;
}

/** The machine's test CA. */
export interface TestCa {
  /** The directory holding `ca.crt` and `ca.key`. */
  dir: string;
  /** The CA's certificate (PEM): what a client must trust. */
  caCertPem: string;
  /**
   * Signs a fresh leaf certificate (a new key each call, valid 90 days) for
   * `hosts`, each a subjectAltName: `DNS:` for a name (a leading `*.` is a
   * wildcard), `IP:` for an IPv4 or IPv6 address; the first is also the
   * subject's CN.
   *
   * @param hosts at least one DNS name or IP address
   * @returns the leaf's certificate and key
   * @throws {Error} on an empty list or a value that is neither, or when openssl fails
   */
  certFor(hosts: string[]): Promise<LeafCertificate>;
}

/** The directory the CA is kept in: `${TMPDIR:-/tmp}/ledgerbench-test-ca`. */
export function testCaDir(): string {
  return `${systemTempDir()}/ledgerbench-test-ca`;
}

let machineCa: Promise<TestCa> | undefined;

/**
 * The machine's test CA, made on first use (see the module doc) and then
 * read from {@link testCaDir}; memoized per process.
 *
 * @returns the CA, with `certFor` to sign leaves
 * @throws {Error} when `openssl` is missing or fails, or when the directory
 *   exists without `ca.crt` and `ca.key` (remove it to start over)
 * @example
 * ```ts ignore
 * const ca = await testCa();
 * const { certPem, keyPem } = await ca.certFor(["astral.sh"]);
 * ```
 */
export function testCa(): Promise<TestCa> {
  machineCa ??= openOrCreateCa().catch((error) => {
    machineCa = undefined;
    throw error;
  });
  return machineCa;
}

/** The CA's own `openssl req` configuration: a self-signed CA, path length 0. */
const CA_CONFIG = `[req]
distinguished_name = dn
x509_extensions = v3_ca
prompt = no
[dn]
O = ledgerbench
CN = ledgerbench test CA (trusted only by test images)
[v3_ca]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
`;

async function openOrCreateCa(): Promise<TestCa> {
  const dir = testCaDir();
  const existing = await readCa(dir);
  if (existing !== null) return existing;
  await Deno.mkdir(systemTempDir(), { recursive: true });
  const temp = await Deno.makeTempDir({ dir: systemTempDir(), prefix: "ledgerbench-test-ca.tmp-" });
  try {
    await Deno.writeTextFile(`${temp}/ca.cnf`, CA_CONFIG);
    await openssl(temp, [
      "req",
      "-x509",
      "-new",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-sha256",
      "-days",
      "3650",
      "-config",
      "ca.cnf",
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
    ]);
    await Deno.chmod(`${temp}/ca.key`, 0o600);
    await Deno.remove(`${temp}/ca.cnf`);
    try {
      // Atomic: the directory appears whole or not at all. Onto an existing
      // non-empty directory (another process won the race) rename fails.
      await Deno.rename(temp, dir);
    } catch {
      await Deno.remove(temp, { recursive: true });
    }
  } catch (error) {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
    throw error;
  }
  const made = await readCa(dir);
  if (made === null) throw new Error(`Cannot create the test CA in "${dir}"`);
  return made;
}

/**
 * The CA in `dir`; null when `dir` does not exist. A read that finds no
 * file is retried once if the directory then exists: another process may
 * have renamed it into place between the two looks.
 */
async function readCa(dir: string): Promise<TestCa | null> {
  for (let attempt = 0;; attempt++) {
    try {
      const caCertPem = await Deno.readTextFile(`${dir}/ca.crt`);
      await Deno.stat(`${dir}/ca.key`);
      return { dir, caCertPem, certFor: (hosts) => signLeaf(dir, hosts) };
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    try {
      await Deno.stat(dir);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
    if (attempt > 0) {
      throw new Error(
        `The test CA directory "${dir}" lacks ca.crt or ca.key: remove it and a new CA is made`,
      );
    }
  }
}

/** A DNS name (optionally a `*.` wildcard) of letters, digits and hyphens. */
const DNS_NAME =
  /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const IPV4 =
  /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
const IPV6 = /^[0-9a-f:.]+$/i;

/** The subjectAltName entry of `host`; null for neither a DNS name nor an address. */
function altName(host: string): string | null {
  if (IPV4.test(host) || (host.includes(":") && IPV6.test(host))) return `IP:${host}`;
  return DNS_NAME.test(host) && host.length <= 253 ? `DNS:${host}` : null;
}

async function signLeaf(caDir: string, hosts: string[]): Promise<LeafCertificate> {
  if (hosts.length === 0) throw new Error("Cannot make a test certificate: no host given");
  const names = hosts.map((host) => {
    const name = altName(host);
    if (name === null) {
      throw new Error(
        `Cannot make a test certificate: "${host}" is not a DNS name or an IP address`,
      );
    }
    return name;
  });
  const temp = await Deno.makeTempDir({ prefix: "ledgerbench-test-leaf-" });
  try {
    await Deno.writeTextFile(
      `${temp}/leaf.cnf`,
      `[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = ${hosts[0].slice(0, 64)}\n`,
    );
    await Deno.writeTextFile(
      `${temp}/leaf.ext`,
      [
        `subjectAltName = ${names.join(", ")}`,
        "basicConstraints = critical, CA:FALSE",
        "keyUsage = critical, digitalSignature",
        "extendedKeyUsage = serverAuth",
        "subjectKeyIdentifier = hash",
        "authorityKeyIdentifier = keyid, issuer",
        "",
      ].join("\n"),
    );
    await openssl(temp, [
      "req",
      "-new",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-config",
      "leaf.cnf",
      "-keyout",
      "leaf.key",
      "-out",
      "leaf.csr",
    ]);
    // A random positive 128-bit serial, so that no serial file is shared by racing signers.
    const serial = crypto.getRandomValues(new Uint8Array(16));
    serial[0] = (serial[0] & 0x7f) | 0x01;
    await openssl(temp, [
      "x509",
      "-req",
      "-in",
      "leaf.csr",
      "-CA",
      `${caDir}/ca.crt`,
      "-CAkey",
      `${caDir}/ca.key`,
      "-set_serial",
      `0x${[...serial].map((b) => b.toString(16).padStart(2, "0")).join("")}`,
      "-sha256",
      "-days",
      "90",
      "-extfile",
      "leaf.ext",
      "-out",
      "leaf.crt",
    ]);
    return {
      certPem: await Deno.readTextFile(`${temp}/leaf.crt`),
      keyPem: await Deno.readTextFile(`${temp}/leaf.key`),
    };
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
}

/** Runs `openssl args...` in `cwd`; its stderr is the error on failure. */
async function openssl(cwd: string, args: string[]): Promise<void> {
  let out;
  try {
    out = await new Deno.Command("openssl", { args, cwd, stdout: "piped", stderr: "piped" })
      .output();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error("The test CA needs the openssl command line: apt-get install openssl");
    }
    throw error;
  }
  if (!out.success) {
    const tail = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" | ");
    throw new Error(`openssl ${args[0]} failed (exit ${out.code}): ${tail}`);
  }
}

/**
 * The system's temporary directory, `${TMPDIR:-/tmp}` (where
 * `Deno.makeTempDir` puts its directories too), without a trailing slash.
 *
 * @returns the directory
 */
export function systemTempDir(): string {
  const dir = Deno.env.get("TMPDIR");
  return dir === undefined || dir === "" ? "/tmp" : dir.replace(/\/+$/, "") || "/";
}
