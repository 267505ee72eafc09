import assert from "node:assert/strict";
import { episode } from "../analysis/_ledger_for_test.ts";
import { viewHandler } from "./_view_server.ts";
import { CONTENT_SECURITY_POLICY } from "../viewer/_html.ts";
import { handLedger } from "../viewer/_ledger_for_test.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { loadViewLedger } from "./_view_rows.ts";

const ROWS = [
  { row: episode("alpha", "t1", true), line: 1 },
  { row: episode("beta", "t1", false), line: 2 },
  {
    row: episode("alpha", "t2", null, { status: "invalid", invalid_reason: "harness_error" }),
    line: 3,
  },
];
const handler = viewHandler({
  ledger: handLedger(ROWS),
  place: { ledger: "l.jsonl", artifacts: "/nonexistent", named: false },
  hosts: new Set(["127.0.0.1:9"]),
});
/** A request as a browser sends it to the server (a Request built here carries no Host). */
const get = (path: string, init: RequestInit = {}) =>
  handler(new Request(`http://127.0.0.1:9${path}`, { ...init, headers: { host: "127.0.0.1:9" } }));

Deno.test("viewHandler() sends every page with the strict policy, nosniff and no referrer", async () => {
  for (const path of ["/", "/episode?id=r/alpha/t1/1", "/compare?task=t1&left=alpha&right=beta"]) {
    const response = await get(path);
    assert.equal(response.status, 200, path);
    assert.equal(response.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
    assert.match(CONTENT_SECURITY_POLICY, /^default-src 'none'; script-src 'self';/);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(response.headers.get("referrer-policy"), "no-referrer");
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    await response.body?.cancel();
  }
});

Deno.test("viewHandler() filters the table by outcome and invalid reason from the query", async () => {
  const html = await (await get("/?outcome=invalid&invalid=harness_error")).text();
  assert.deepEqual(html.match(/<tr data-line="(\d+)">/g), ['<tr data-line="3">']);
  const failed = await (await get("/?outcome=failed")).text();
  assert.deepEqual(failed.match(/<tr data-line="(\d+)">/g), ['<tr data-line="2">']);
});

Deno.test("viewHandler() puts both agents side by side and says when one has no episode", async () => {
  const html = await (await get("/compare?task=t2&left=alpha&right=beta")).text();
  assert.ok(
    html.includes('<div class="side" id="left"><p><a href="episode?id=r%2Falpha%2Ft2%2F1">'),
  );
  assert.ok(html.includes('title="beta">beta</span> has no episode on'));
  // A row whose log cannot be read still shows its summary and says why.
  const missing = await (await get("/episode?id=r/alpha/t1/1")).text();
  assert.ok(missing.includes("No episode log is stored for this row"));
});

Deno.test("viewHandler() refuses another Host (421), other methods (405) and unknown pages (404)", async () => {
  const rebound = await handler(
    new Request("http://127.0.0.1:9/", { headers: { host: "attacker.example:9" } }),
  );
  assert.equal(rebound.status, 421);
  await rebound.body?.cancel();
  const post = await get("/", { method: "POST", body: "x" });
  assert.equal(post.status, 405);
  await post.body?.cancel();
  for (const path of ["/artifacts/sha256/", "/episode?id=nope", "/../ledger.jsonl"]) {
    const response = await get(path);
    assert.equal(response.status, 404, path);
    await response.body?.cancel();
  }
  const script = await get("/assets/view.js");
  assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
  await script.body?.cancel();
});

Deno.test("viewHandler(): a ledger changed after the index was built is one sentence on the page (500)", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/ledger.jsonl`;
  const rows = ROWS.map((r) => JSON.stringify(r.row));
  await Deno.writeTextFile(path, rows.join("\n") + "\n");
  const changing = viewHandler({
    ledger: await loadViewLedger(path),
    place: { ledger: path, artifacts: "/nonexistent", named: false },
    hosts: new Set(["127.0.0.1:9"]),
  });
  const episode = (id: string) =>
    changing(
      new Request(`http://127.0.0.1:9/episode?id=${encodeURIComponent(id)}`, {
        headers: { host: "127.0.0.1:9" },
      }),
    );
  const before = await episode("r/beta/t1/1");
  assert.equal(before.status, 200);
  assert.match(await before.text(), /r\/beta\/t1\/1/);
  await Deno.writeTextFile(path, [rows[1], rows[0], rows[2]].join("\n") + "\n");
  const after = await episode("r/beta/t1/1");
  assert.equal(after.status, 500);
  assert.match(
    await after.text(),
    /<p class="problem">.*ledger\.jsonl:2: the ledger changed after view read it: start view again<\/p>/,
  );
});
