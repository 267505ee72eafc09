/**
 * The test CA (tests/_test_ca.ts, issue 22): its leaves verify against it
 * with `openssl verify` as TLS server certificates for their names, carry
 * the names as subjectAltNames, and processes racing to create it end up
 * with one CA. Every check goes through the openssl command line, not the
 * code under test.
 *
 * @module
 */
import { deepEqual, equal, match, notEqual, rejects } from "node:assert/strict";
import { testCa, testCaDir } from "./_test_ca.ts";

const decoder = new TextDecoder();

/** Runs `openssl args...` in `cwd`; returns its exit code and both outputs. */
async function openssl(cwd: string, ...args: string[]) {
  const out = await new Deno.Command("openssl", { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test("testCa() is one CA per machine, in its fixed directory", async () => {
  const ca = await testCa();
  equal(ca.dir, testCaDir());
  equal(ca.caCertPem, await Deno.readTextFile(`${ca.dir}/ca.crt`));
  equal((await Deno.stat(`${ca.dir}/ca.key`)).mode! & 0o077, 0, "the CA key is owner-only");
  const text = await openssl(ca.dir, "x509", "-in", "ca.crt", "-noout", "-text");
  equal(text.code, 0, text.stderr);
  match(text.stdout, /CA:TRUE/);
  match(text.stdout, /Certificate Sign/);
});

Deno.test("certFor() signs a leaf that openssl verify accepts for its names, with its SANs", async () => {
  const ca = await testCa();
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-ca-test-" });
  try {
    const leaf = await ca.certFor(["astral.sh", "*.example.test", "127.0.0.1"]);
    await Deno.writeTextFile(`${dir}/leaf.crt`, leaf.certPem);
    await Deno.writeTextFile(`${dir}/leaf.key`, leaf.keyPem);
    await Deno.writeTextFile(`${dir}/ca.crt`, ca.caCertPem);
    const verify = (...extra: string[]) =>
      openssl(dir, "verify", "-CAfile", "ca.crt", "-purpose", "sslserver", ...extra, "leaf.crt");
    const ok = await verify("-verify_hostname", "astral.sh");
    equal(ok.code, 0, ok.stderr);
    equal(ok.stdout, "leaf.crt: OK\n");
    equal((await verify("-verify_hostname", "files.example.test")).code, 0, "the wildcard");
    equal((await verify("-verify_ip", "127.0.0.1")).code, 0, "the address");
    notEqual((await verify("-verify_hostname", "pypi.org")).code, 0, "a name not in the SANs");
    const san = await openssl(dir, "x509", "-in", "leaf.crt", "-noout", "-ext", "subjectAltName");
    equal(san.code, 0, san.stderr);
    match(san.stdout, /DNS:astral\.sh, DNS:\*\.example\.test, IP Address:127\.0\.0\.1/);
    // The key is the certificate's: both give the same public key.
    const fromCert = await openssl(dir, "x509", "-in", "leaf.crt", "-noout", "-pubkey");
    const fromKey = await openssl(dir, "pkey", "-in", "leaf.key", "-pubout");
    equal(fromKey.stdout, fromCert.stdout);
    // Each call is a new key and serial.
    const again = await ca.certFor(["astral.sh"]);
    notEqual(again.keyPem, leaf.keyPem);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("certFor() refuses an empty list and a value that is no host name", async () => {
  const ca = await testCa();
  await rejects(() => ca.certFor([]), /no host given/);
  await rejects(
    () => ca.certFor(["astral.sh", "a b\nCN = evil"]),
    /^Error: Cannot make a test certificate: "a b\nCN = evil" is not a DNS name or an IP address$/,
  );
});

Deno.test("testCa() made by four racing processes is one CA, with no temporary left", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "ledgerbench-ca-race-" });
  try {
    const module = new URL("./_test_ca.ts", import.meta.url).href;
    const code = `const { testCa } = await import(${JSON.stringify(module)});\n` +
      "console.log(JSON.stringify((await testCa()).caCertPem));";
    const outputs = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["eval", "--quiet", code],
          env: { TMPDIR: tmp },
          stdout: "piped",
          stderr: "piped",
        }).output();
        equal(out.code, 0, decoder.decode(out.stderr));
        return JSON.parse(decoder.decode(out.stdout)) as string;
      }),
    );
    match(outputs[0], /^-----BEGIN CERTIFICATE-----\n/);
    deepEqual(outputs, [outputs[0], outputs[0], outputs[0], outputs[0]]);
    equal(await Deno.readTextFile(`${tmp}/ledgerbench-test-ca/ca.crt`), outputs[0]);
    const left = [];
    for await (const entry of Deno.readDir(tmp)) left.push(entry.name);
    deepEqual(left, ["ledgerbench-test-ca"]);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
