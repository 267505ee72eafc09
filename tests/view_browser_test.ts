/// <reference lib="dom" />
/**
 * `ledgerbench view` in a real headless browser (issue 25): Debian's
 * chromium driven by puppeteer-core (pinned in package.json; it downloads no
 * browser). The CLI runs as a subprocess, as a user runs it, on the
 * demo ledger (`ledgers/demo/` with the artifacts/ the demo leaves beside
 * it, which git does not keep; without them the demo is run once, in
 * Docker), on a ledger of hostile strings built here (no Docker), and on the
 * 14-agent field-scale ledger (about 10,000 imported rows).
 *
 * Needs chromium (`.ci/install_chromium.sh`; `LEDGERBENCH_CHROMIUM` names
 * another binary). Without it the tests fail when `CI` is "true" and are
 * skipped with a warning otherwise. With `LEDGERBENCH_VIEW_SHOTS=DIR` they
 * save PNG screenshots of the table, an episode page and the side-by-side
 * view into DIR (never into the repository); `LEDGERBENCH_VIEW_DEMO=LEDGER`
 * names another demo ledger (one with the workspace diffs of a newer run).
 *
 * @module
 */
import assert from "node:assert/strict";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { cli, cliCommand } from "./_cli_run.ts";
import { demoLedger } from "./_demo_ledger.ts";
import { importFieldScaleLedger } from "./_field_scale_ledger.ts";
import { Episode } from "../analysis/schema/records.ts";
import { storeEpisodeLog } from "../runner/episode_log_store.ts";
import { storeArtifact } from "../runner/sandbox/artifact_store.ts";
import { workspaceDiff } from "../runner/sandbox/workspace_diff.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { toolConversation } from "../viewer/_call_body_for_test.ts";

const CHROMIUM = Deno.env.get("LEDGERBENCH_CHROMIUM") ?? "chromium";
const SHOTS = Deno.env.get("LEDGERBENCH_VIEW_SHOTS");

async function chromiumMissing(): Promise<string | null> {
  try {
    const out = await new Deno.Command(CHROMIUM, {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    return out.success ? null : `"${CHROMIUM} --version" failed`;
  } catch {
    return `"${CHROMIUM}" is not installed`;
  }
}

const missing = await chromiumMissing();
const required = Deno.env.get("CI") === "true";
if (missing !== null && !required) {
  console.warn(
    `\n!!! view_browser_test: SKIPPED: ${missing}.\n` +
      "!!! Run `bash .ci/install_chromium.sh` (Debian's chromium); CI=true makes this a failure.\n",
  );
}

/** A browser test: skipped without chromium, failing under CI. */
function browserTest(name: string, fn: (browser: Browser) => Promise<void>) {
  Deno.test({
    name,
    ignore: missing !== null && !required,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      if (missing !== null) {
        throw new Error(
          `Cannot run the browser tests: ${missing}: run "bash .ci/install_chromium.sh"`,
        );
      }
      const browser = await puppeteer.launch({
        executablePath: await resolveBinary(CHROMIUM),
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
      });
      try {
        await fn(browser);
      } finally {
        await browser.close();
      }
    },
  });
}

async function resolveBinary(name: string): Promise<string> {
  if (name.includes("/")) return name;
  const out = await new Deno.Command("sh", { args: ["-c", `command -v ${name}`], stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout).trim();
}

/** A running `ledgerbench view`, stopped on dispose. */
interface Viewer extends AsyncDisposable {
  url: string;
}

/** Starts `ledgerbench view LEDGER --port 0` and reads the URL it prints. */
async function startView(ledger: string, ...extra: string[]): Promise<Viewer> {
  const child = cliCommand(["view", ledger, ...extra]).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  while (!printed.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    printed += value;
  }
  const url = /http:\/\/\S+\//.exec(printed)?.[0];
  if (url === undefined) {
    child.kill("SIGTERM");
    const stderr = await new Response(child.stderr).text();
    throw new Error(`view printed no URL: ${printed}${stderr}`);
  }
  return {
    url,
    [Symbol.asyncDispose]: async () => {
      child.kill("SIGTERM");
      await child.status;
      await reader.cancel().catch(() => {});
      await child.stderr.cancel().catch(() => {});
    },
  };
}

/** A page that records dialogs and the console's CSP reports. */
async function openPage(
  browser: Browser,
): Promise<{ page: Page; dialogs: string[]; csp: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  const dialogs: string[] = [];
  const csp: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss().catch(() => {});
  });
  page.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) csp.push(message.text());
  });
  return { page, dialogs, csp };
}

async function shot(page: Page, name: string, fullPage = true) {
  if (SHOTS === undefined) return;
  await Deno.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage });
}

const cellTexts = (page: Page, column: number) =>
  page.$$eval(
    "#episodes tbody tr",
    (rows, i) => rows.map((row) => (row.children[i] as HTMLElement).textContent ?? ""),
    column,
  );

/** The whole ids of an id column (a cell shows an id shortened, its title holds it whole). */
const cellIds = (page: Page, column: number) =>
  page.$$eval(
    "#episodes tbody tr",
    (rows, i) =>
      rows.map((row) => row.children[i].querySelector(".id")?.getAttribute("title") ?? ""),
    column,
  );

/** The whole ids shown in an element. */
const idsIn = (page: Page, selector: string) =>
  page.$$eval(`${selector} .id`, (ids) => ids.map((id) => id.getAttribute("title") ?? ""));

browserTest("view: the demo table narrows by agent, then by outcome", async (browser) => {
  await using viewer = await startView(await demoLedger());
  const { page, csp } = await openPage(browser);
  await page.goto(viewer.url);
  assert.equal((await cellTexts(page, 1)).length, 14);
  await shot(page, "table");
  // Choosing an agent submits the form (the page's one script).
  await Promise.all([
    page.waitForNavigation(),
    page.select('#filters select[name="agent"]', "solver-weak"),
  ]);
  assert.deepEqual(new Set(await cellTexts(page, 1)), new Set(["solver-weak"]));
  assert.equal((await cellTexts(page, 1)).length, 7);
  await page.select('#filters select[name="outcome"]', "failed");
  await page.waitForNavigation();
  // The demo's weak agent resolves 5 of 7 (docs/demo.md, "What the main job does").
  assert.deepEqual(await cellTexts(page, 3), ["failed", "failed"]);
  const query = new URL(page.url()).searchParams;
  assert.deepEqual([query.get("agent"), query.get("outcome")], ["solver-weak", "failed"]);
  // Tokens and wall time are numbers here (the runner records them).
  for (const tokens of await cellTexts(page, 6)) assert.match(tokens, /^[\d,]+$/);
  for (const wall of await cellTexts(page, 7)) assert.match(wall, /^\d+\.\d\d s$/);
  assert.deepEqual(csp, []);
});

browserTest(
  "view: a demo episode page shows its verdict, transcript and stdout",
  async (browser) => {
    await using viewer = await startView(await demoLedger());
    const { page, csp } = await openPage(browser);
    await page.goto(viewer.url);
    // The episode's link in the table, found by its id (a demo run's row order is its own).
    const id = "demo/solver-strong/a1-locate/1";
    const index = (await page.$$eval(
      "#episodes tbody tr",
      (rows) => rows.map((row) => row.querySelector("a")?.textContent ?? ""),
    )).indexOf(id);
    assert.ok(index >= 0, `the table links ${id}`);
    await Promise.all([
      page.waitForNavigation(),
      page.click(`#episodes tbody tr:nth-child(${index + 1}) a`),
    ]);
    const body = await page.$eval("main", (m) => (m as HTMLElement).innerText);
    assert.match(body, /demo\/solver-strong\/a1-locate\/1/);
    assert.match(body, /Verdict: resolved, 2 checks/);
    assert.match(body, /definition_located/);
    // The transcript: the task as the agent sent it, the model's reply.
    assert.match(body, /Find where the shell function `compute_ember2_kestrel` is \*\*defined\*\*/);
    assert.match(body, /```file:answer\.txt\nsrc\/thistle\.sh:16/);
    assert.match(await page.$eval("pre.stdout", (p) => p.textContent ?? ""), /"agent":"solver"/);
    assert.ok(await page.$("section.diff"));
    await shot(page, "episode_demo");
    assert.deepEqual(csp, []);
  },
);

browserTest("view: two demo agents side by side on one task", async (browser) => {
  await using viewer = await startView(await demoLedger());
  const { page, csp } = await openPage(browser);
  await page.goto(`${viewer.url}compare?task=b3-report&left=solver-strong&right=solver-weak`);
  const left = await page.$eval("#left", (e) => (e as HTMLElement).innerText);
  const right = await page.$eval("#right", (e) => (e as HTMLElement).innerText);
  assert.match(left, /demo\/solver-strong\/b3-report\/1/);
  assert.match(right, /demo\/solver-weak\/b3-report\/1/);
  assert.match(left, /Transcript/);
  assert.match(right, /Transcript/);
  await shot(page, "side_by_side");
  // The table's form picks the task and the two agents (choosing does not submit it).
  await page.goto(viewer.url);
  await page.type('#compare-form input[name="task"]', "b1-range");
  await page.select('#compare-form select[name="left"]', "solver-weak");
  await page.select('#compare-form select[name="right"]', "solver-strong");
  await Promise.all([page.waitForNavigation(), page.click("#compare-form button")]);
  assert.deepEqual(
    [(await idsIn(page, "#left"))[0], (await idsIn(page, "#right"))[0]],
    ["demo/solver-weak/b1-range/1", "demo/solver-strong/b1-range/1"],
  );
  // The episode page links to the same view.
  await page.goto(`${viewer.url}episode?id=${encodeURIComponent("demo/solver-weak/b3-report/1")}`);
  await Promise.all([page.waitForNavigation(), page.click(".compare-links a")]);
  assert.match(await page.$eval("#right", (e) => (e as HTMLElement).innerText), /solver-strong/);
  assert.deepEqual(csp, []);
});

// ---------------------------------------------------------------- hostile strings

/** Each sets a global flag if it ever runs. */
const HOSTILE = {
  agent: `<img src=x onerror="window.__pwned='agent'">agent`,
  task: `</script><script>window.__pwned='task'</script>`,
  notes: `<a href="javascript:window.__pwned='notes'">click</a> "quoted' \u202e`,
  user: `<img src=x onerror=window.__pwned='transcript'> read </textarea><svg onload=alert(1)>`,
  tool: `{"cmd":"<script>window.__pwned='tool'</script>"}`,
  stdout: `<img src=x onerror="window.__pwned='stdout'">\njavascript:alert(document.cookie)\n`,
  file: `<svg onload="window.__pwned='diff'">.txt`,
};

function chatBodies() {
  return toolConversation({
    user: HOSTILE.user,
    tool: "shell",
    arguments: HOSTILE.tool,
    result: HOSTILE.stdout,
    reply: "Done <b>bold</b>",
  });
}

/** A ledger of three rows (two agents on the hostile task, one imported row) and its store. */
async function hostileLedger(dir: string): Promise<string> {
  const start = `${dir}/start`;
  const end = `${dir}/end`;
  await Deno.mkdir(start, { recursive: true });
  await Deno.mkdir(end, { recursive: true });
  await Deno.writeTextFile(`${start}/TASK.md`, "# Task\n");
  await Deno.writeTextFile(
    `${end}/TASK.md`,
    "# Task\n<script>window.__pwned='diff-line'</script>\n",
  );
  await Deno.writeTextFile(`${end}/${HOSTILE.file}`, "x\n");
  const store = `${dir}/artifacts`;
  const artifact = await storeArtifact(end, store);
  const diff = await workspaceDiff(start, artifact.dir);
  const rows: unknown[] = [];
  for (const [agent, resolved] of [[HOSTILE.agent, false], ["plain-agent", true]] as const) {
    const episodeId = `r/${agent}/${HOSTILE.task}/1`;
    const log = await storeEpisodeLog(store, {
      episode_id: episodeId,
      stdoutTail: HOSTILE.stdout,
      stderrTail: `warning: ${HOSTILE.agent}\n`,
      records: [],
      bodies: chatBodies(),
      verifier: {
        mode: "sealed",
        stdoutTail: JSON.stringify({
          resolved,
          checks: [{ name: "hostile_check", passed: resolved, detail: HOSTILE.user }],
        }) + "\n",
        stderrTail: "",
      },
      workspaceDiff: diff,
    });
    rows.push(Episode.parse({
      run_id: "r",
      agent_id: agent,
      task_id: HOSTILE.task,
      seed: 1,
      resolved,
      prompt_tokens: 120,
      completion_tokens: 30,
      tool_calls: 1,
      model_calls: 2,
      wall_ms: 2500,
      price_table_id: "p",
      artifact_digest: artifact.digest,
      episode_log_digest: log.digest,
      notes: HOSTILE.notes,
    }));
  }
  rows.push(Episode.parse({
    run_id: "imp",
    agent_id: "imported-agent",
    task_id: HOSTILE.task,
    seed: null,
    resolved: true,
    prompt_tokens: null,
    completion_tokens: null,
    tool_calls: null,
    wall_ms: null,
    price_table_id: "none",
    provenance: {
      evidence_kind: "imported",
      format: "inspect",
      importer_version: "inspect/1",
      model: null,
      position: "samples[3]",
      reported_cost_usd: null,
      source: `logs/${HOSTILE.notes}.json`,
      source_sha256: "0".repeat(64),
      tokens_reported_by: "harness",
    },
  }));
  const ledger = `${dir}/ledger.jsonl`;
  await Deno.writeTextFile(ledger, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
  return ledger;
}

/** Nothing hostile ran, and the page shows the strings as text. */
async function assertInert(
  page: Page,
  dialogs: string[],
  csp: string[],
  where: string,
  script = "assets/view.js",
) {
  assert.equal(
    await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned),
    undefined,
    where,
  );
  assert.deepEqual(dialogs, [], where);
  // No escaping slip at all: the policy never had to block anything.
  assert.deepEqual(csp, [], where);
  assert.equal(await page.$$eval("img, svg, iframe, object, embed", (e) => e.length), 0, where);
  assert.deepEqual(
    await page.$$eval("script", (s) => s.map((e) => e.getAttribute("src"))),
    [script],
    where,
  );
  assert.equal(
    await page.$$eval(
      "a",
      (a) => a.filter((e) => /^\s*javascript:/i.test(e.getAttribute("href") ?? "")).length,
    ),
    0,
    where,
  );
}

browserTest(
  "view: hostile strings in ids, notes, transcript, stdout and diff stay text",
  async (browser) => {
    await using dir = {
      path: await Deno.makeTempDir(),
      [Symbol.asyncDispose]: () => removeTree(dir.path),
    };
    const ledger = await hostileLedger(dir.path);
    await using viewer = await startView(ledger);
    const { page, dialogs, csp } = await openPage(browser);

    await page.goto(viewer.url);
    await assertInert(page, dialogs, csp, "table");
    const agents = await cellIds(page, 1);
    assert.ok(agents.includes(HOSTILE.agent), agents.join(" | "));
    assert.ok((await cellIds(page, 2)).every((task) => task === HOSTILE.task));
    // Shortened keeping the real tail, the whole id in the title.
    assert.ok((await cellTexts(page, 2))[0].endsWith("</script>"));
    // Imported rows without counts say so, never 0.
    assert.ok((await cellTexts(page, 6)).includes("not recorded"));
    await page.select('#filters select[name="agent"]', HOSTILE.agent);
    await page.waitForNavigation();
    assert.deepEqual(await cellIds(page, 1), [HOSTILE.agent]);
    await assertInert(page, dialogs, csp, "filtered table");

    await Promise.all([page.waitForNavigation(), page.click("#episodes tbody tr:first-child a")]);
    await assertInert(page, dialogs, csp, "episode page");
    const main = await page.$eval("main", (m) => m.textContent ?? "");
    for (const value of [HOSTILE.user, HOSTILE.tool, HOSTILE.file, "Done <b>bold</b>"]) {
      assert.ok(main.includes(value), `episode page shows ${value}`);
    }
    assert.ok(main.includes(HOSTILE.stdout.split("\n")[0]));
    // The notes' U+202E is shown as an escape, as the report shows it.
    assert.ok(main.includes(`${HOSTILE.notes.slice(0, -1)}\\u202e`));
    assert.ok(main.includes("<script>window.__pwned='diff-line'</script>"));
    assert.equal(await page.$eval("strong.outcome", (e) => e.textContent), "not resolved");
    await shot(page, "episode_hostile");

    await Promise.all([page.waitForNavigation(), page.click(".compare-links a")]);
    await assertInert(page, dialogs, csp, "side by side");
    assert.ok((await idsIn(page, "#left")).includes(HOSTILE.agent));
    assert.ok((await idsIn(page, "#right")).includes("plain-agent"));

    // An imported row: one sentence naming its source and position, nothing more.
    await page.goto(
      `${viewer.url}episode?id=${encodeURIComponent(`imp/imported-agent/${HOSTILE.task}/1`)}`,
    );
    await assertInert(page, dialogs, csp, "imported episode");
    const imported = await page.$eval("p.imported", (p) => p.textContent ?? "");
    assert.ok(imported.includes(`logs/${HOSTILE.notes.slice(0, -1)}\\u202e.json`), imported);
    assert.ok(imported.includes("samples[3]"));
    assert.equal(await page.$("section.transcript"), null);

    // Even a slip of escaping would run nothing: the policy blocks inline handlers.
    await page.evaluate(() => {
      document.body.insertAdjacentHTML(
        "beforeend",
        `<img src="data:," onerror="window.__pwned='slip'">`,
      );
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(
      await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned),
      undefined,
    );
  },
);

browserTest(
  "view: the 14-agent field-scale ledger pages its ~10,000 rows, 100 at a time, served and static",
  async (browser) => {
    await using dir = {
      path: await Deno.makeTempDir(),
      [Symbol.asyncDispose]: () => removeTree(dir.path),
    };
    const { ledger } = await importFieldScaleLedger(dir.path, 730);
    const lines = (await Deno.readTextFile(ledger)).split("\n").filter((l) => l !== "").length;
    await using viewer = await startView(ledger);
    const { page, csp } = await openPage(browser);
    await page.goto(viewer.url);
    assert.equal((await cellTexts(page, 1)).length, 100);
    await shot(page, "table_field_scale", false);
    const pager = await page.$eval(".pager", (p) => p.textContent ?? "");
    assert.ok(pager.startsWith(`Page 1 of ${Math.ceil(lines / 100)}`), pager);
    // The field-scale table records no tokens: "not recorded", never 0.
    assert.deepEqual(new Set(await cellTexts(page, 6)), new Set(["not recorded"]));
    const agent = (await cellIds(page, 1))[0];
    await page.select('#filters select[name="agent"]', agent);
    await page.waitForNavigation();
    assert.deepEqual(new Set(await cellIds(page, 1)), new Set([agent]));
    await Promise.all([page.waitForNavigation(), page.click(".pager a[rel=next]")]);
    assert.match(await page.$eval(".pager", (p) => p.textContent ?? ""), /^Page 2 of /);
    assert.deepEqual(new Set(await cellIds(page, 1)), new Set([agent]));
    const served = {
      query: new URL(page.url()).search,
      episodes: await cellIds(page, 0),
      count: await page.$eval("#match-count", (e) => e.textContent),
      pager: await page.$eval(".pager", (p) => p.textContent),
    };
    await Promise.all([page.waitForNavigation(), page.click("#episodes tbody tr:first-child a")]);
    assert.match(
      await page.$eval("p.imported", (p) => p.textContent ?? ""),
      /imported \(table\) from "/,
    );
    assert.deepEqual(csp, []);

    // The static export shows the same page of the same filter, from its row files.
    const written = await cli("view", ledger, "--out", `${dir.path}/site`);
    assert.equal(written.code, 0, written.stderr);
    await page.goto(`file://${dir.path}/site/index.html${served.query}`);
    await page.waitForSelector("#episodes[data-rendered]");
    assert.deepEqual(await cellIds(page, 0), served.episodes);
    assert.equal(await page.$eval("#match-count", (e) => e.textContent), served.count);
    assert.equal(await page.$eval(".pager", (p) => p.textContent), served.pager);
    await Promise.all([page.waitForNavigation(), page.click(".pager a[rel=prev]")]);
    await page.waitForSelector("#episodes[data-rendered]");
    assert.match(await page.$eval(".pager", (p) => p.textContent ?? ""), /^Page 1 of /);
    assert.deepEqual(new Set(await cellIds(page, 1)), new Set([agent]));
    await Promise.all([page.waitForNavigation(), page.click("#episodes tbody tr:last-child a")]);
    const anchor = new URL(page.url()).hash;
    assert.match(
      await page.$eval(`${anchor} p.imported`, (p) => p.textContent ?? ""),
      /imported \(table\) from "/,
    );
    assert.deepEqual(csp, []);
  },
);

browserTest(
  "view --out: the static table filters and pages by its script, and links side by side",
  async (browser) => {
    await using dir = {
      path: await Deno.makeTempDir(),
      [Symbol.asyncDispose]: () => removeTree(dir.path),
    };
    const ledger = await hostileLedger(dir.path);
    const written = await cli("view", ledger, "--out", `${dir.path}/site`);
    assert.equal(written.code, 0, written.stderr);
    assert.match(written.stdout, /wrote 3 episodes and 2 side-by-side pages in 7 files/);
    const { page, dialogs, csp } = await openPage(browser);
    await page.goto(`file://${dir.path}/site/index.html`);
    await assertInert(page, dialogs, csp, "static table");
    assert.equal((await cellIds(page, 1)).length, 3);
    // The script answers the query from the export's row files: no server.
    const choose = async (name: string, value: string) => {
      await Promise.all([
        page.waitForNavigation(),
        page.select(`#filters select[name="${name}"]`, value),
      ]);
      await page.waitForSelector("#episodes[data-rendered]");
    };
    await choose("agent", "plain-agent");
    assert.deepEqual(await cellIds(page, 1), ["plain-agent"]);
    assert.equal(await page.$eval("#match-count", (e) => e.textContent), "1");
    await choose("agent", "");
    await choose("outcome", "resolved");
    assert.equal((await cellIds(page, 1)).length, 2);
    assert.deepEqual(csp, []);
    assert.equal(
      await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned),
      undefined,
    );
    await page.type('#filters input[name="task"]', "no such task");
    await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
    await page.waitForSelector("#episodes[data-rendered]");
    assert.equal((await cellIds(page, 1)).length, 0);
    assert.equal(await page.$eval("#no-match", (e) => (e as HTMLElement).hidden), false);
    await choose("outcome", "");
    await page.goto(`file://${dir.path}/site/index.html?outcome=resolved`);
    await page.waitForSelector("#episodes[data-rendered]");
    await Promise.all([
      page.waitForNavigation(),
      page.click("#episodes tbody tr a"),
    ]);
    // Episodes are grouped a hundred to a file, each at its line's anchor.
    const anchor = new URL(page.url()).hash;
    assert.equal(anchor, "#line-2");
    await assertInert(page, dialogs, csp, "static episode", "../assets/view.js");
    assert.ok((await page.$eval("main", (m) => m.textContent ?? "")).includes(HOSTILE.user));
    await Promise.all([page.waitForNavigation(), page.click(`${anchor} .compare-links a`)]);
    await assertInert(page, dialogs, csp, "static side by side", "../assets/view.js");
    assert.ok((await idsIn(page, "#left")).includes("plain-agent"));
    assert.ok((await idsIn(page, "#right")).includes(HOSTILE.agent));
  },
);
