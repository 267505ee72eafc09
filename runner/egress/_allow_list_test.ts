import assert from "node:assert/strict";
import { allowingRule, normalizeHost, parseAllowList } from "./_allow_list.ts";

Deno.test("parseAllowList() reads host, host:port, *.suffix and IPv6 entries", () => {
  assert.deepEqual(
    parseAllowList(["Astral.sh", "mirror.test:8080", "*.pythonhosted.org", "[::1]:3128"]),
    [
      { entry: "Astral.sh", host: "astral.sh", suffix: false, port: null },
      { entry: "mirror.test:8080", host: "mirror.test", suffix: false, port: 8080 },
      { entry: "*.pythonhosted.org", host: "pythonhosted.org", suffix: true, port: null },
      { entry: "[::1]:3128", host: "[::1]", suffix: false, port: 3128 },
    ],
  );
});

Deno.test("allowingRule() matches exact names, suffixes and ports", () => {
  const rules = parseAllowList(["astral.sh", "*.pythonhosted.org", "mirror.test:8080"]);
  const allowed = (host: string, port: number) => allowingRule(rules, host, port)?.entry ?? null;
  assert.equal(allowed("astral.sh", 443), "astral.sh");
  assert.equal(allowed("astral.sh", 80), "astral.sh");
  assert.equal(allowed("astral.sh", 8443), null); // no port named: 80 and 443 only
  assert.equal(allowed("evil.astral.sh", 443), null); // exact means exact
  assert.equal(allowed("files.pythonhosted.org", 443), "*.pythonhosted.org");
  assert.equal(allowed("a.b.pythonhosted.org", 443), "*.pythonhosted.org");
  assert.equal(allowed("pythonhosted.org", 443), null); // a suffix needs a label before it
  assert.equal(allowed("evilpythonhosted.org", 443), null); // and a dot
  assert.equal(allowed("mirror.test", 8080), "mirror.test:8080");
  assert.equal(allowed("mirror.test", 80), null); // a named port is the only one
});

Deno.test("normalizeHost() lowercases names and refuses what is not one", () => {
  assert.equal(normalizeHost("PyPI.org"), "pypi.org");
  assert.equal(normalizeHost("[::1]"), "[::1]");
  assert.equal(normalizeHost("a".repeat(63) + ".org"), "a".repeat(63) + ".org");
  for (
    const text of [
      "",
      "astral.sh.",
      "-a.org",
      "a-.org",
      "a..org",
      "a b",
      "a%2e.org",
      "a".repeat(64),
      "x".repeat(254),
    ]
  ) {
    assert.equal(normalizeHost(text), null, text);
  }
});
