import { deepEqual, equal, throws } from "node:assert/strict";
import { parseEgressResolve } from "./egress_resolve.ts";

Deno.test("parseEgressResolve: named host and port are mapped, case aside; others resolve", () => {
  const resolve = parseEgressResolve(
    " deb.debian.org:80=203.0.113.80:80, Astral.SH:443=127.0.0.1:8443,x.org:443=[::1]:9 ",
  );
  deepEqual(resolve("deb.debian.org", 80), { hostname: "203.0.113.80", port: 80 });
  deepEqual(resolve("astral.sh", 443), { hostname: "127.0.0.1", port: 8443 });
  deepEqual(resolve("x.org", 443), { hostname: "::1", port: 9 });
  equal(resolve("astral.sh", 80), undefined);
  equal(parseEgressResolve("")("a", 1), undefined);
});

Deno.test("parseEgressResolve: an entry that is not HOST:PORT=ADDRESS:PORT is named", () => {
  throws(() => parseEgressResolve("a:1=b:2,pypi.org=1.2.3.4:443"), {
    message: 'LEDGERBENCH_EGRESS_RESOLVE: "pypi.org=1.2.3.4:443" is not HOST:PORT=ADDRESS:PORT',
  });
  throws(() => parseEgressResolve("a:0=b:2"), /is not HOST:PORT=ADDRESS:PORT/);
});
