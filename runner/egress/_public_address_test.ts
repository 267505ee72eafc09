import assert from "node:assert/strict";
import { isPublicAddress } from "./_public_address.ts";

Deno.test("isPublicAddress() accepts public IPv4 and IPv6 addresses", () => {
  // deb.debian.org (Fastly), pypi.org, a Cloudflare IPv6 address: public unicast
  for (const address of ["151.101.2.132", "8.8.8.8", "2606:4700::6810:84e5", "2a04:4e42::644"]) {
    assert.equal(isPublicAddress(address), true, address);
  }
});

Deno.test("isPublicAddress() refuses loopback, private, link-local and special ranges", () => {
  for (
    const address of [
      "127.0.0.1",
      "127.255.255.254",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254", // cloud metadata
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "192.0.2.1",
      "::",
      "::1",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "2001:db8::1",
      "::ffff:127.0.0.1", // IPv4-mapped loopback
      "::ffff:7f00:1", // the same, in hex
      "64:ff9b::10.0.0.1", // NAT64 of a private address
      "2002:c0a8:0101::1", // 6to4 of 192.168.1.1
      "fe80::1%eth0", // a zone id: not an address we accept
      "localhost",
      "",
    ]
  ) {
    assert.equal(isPublicAddress(address), false, address);
  }
});

Deno.test("isPublicAddress() judges IPv4 inside IPv6 as IPv4 and bounds each range exactly", () => {
  assert.equal(isPublicAddress("::ffff:8.8.8.8"), true);
  assert.equal(isPublicAddress("64:ff9b::8.8.8.8"), true);
  assert.equal(isPublicAddress("2002:0808:0808::1"), true);
  // the edges of 172.16.0.0/12 and 100.64.0.0/10
  assert.equal(isPublicAddress("172.15.255.255"), true);
  assert.equal(isPublicAddress("172.32.0.0"), true);
  assert.equal(isPublicAddress("100.63.255.255"), true);
  assert.equal(isPublicAddress("100.128.0.0"), true);
  // malformed text
  for (const text of ["1.2.3", "1.2.3.256", "1:2:3:4:5:6:7", "1::2::3", "::g"]) {
    assert.equal(isPublicAddress(text), false, text);
  }
});
