import assert from "node:assert/strict";
import { cli, cliCommand, SAMPLE } from "../tests/_cli_run.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";

Deno.test("view: bad input is one line naming the file, line, field or option, never a stack trace", async () => {
  await using dir = await tempDir();
  const bad = `${dir.path}/bad.jsonl`;
  await Deno.writeTextFile(bad, "{not json\n");
  const cases: [string[], number, RegExp][] = [
    [["view"], 1, /^error: Missing argument: LEDGER\n/],
    [
      ["view", SAMPLE, "--host", "0.0.0.0"],
      1,
      /^error: Option "--host": "0\.0\.0\.0" is not a loopback/,
    ],
    [["view", SAMPLE, "--port", "70000"], 1, /^error: Option "--port"/],
    [
      ["view", SAMPLE, "--out", `${dir.path}/o`, "--port", "8"],
      1,
      /^error: Option "--out" writes files/,
    ],
    [["view", `${dir.path}/missing.jsonl`], 2, /^error: .*missing\.jsonl/],
    [["view", bad], 2, /^error: .*bad\.jsonl:1: not valid JSON/],
    [
      ["view", SAMPLE, "--artifacts", `${dir.path}/none`],
      2,
      /^error: Option "--artifacts": ".*none" is not a directory\n$/,
    ],
  ];
  for (const [args, code, message] of cases) {
    const result = await cli(...args);
    assert.equal(result.code, code, args.join(" "));
    assert.match(result.stderr, message, args.join(" "));
    assert.ok(!/^\s+at /m.test(result.stderr), `${args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stdout, "");
  }
});

Deno.test("view: a missing default artifact store is a warning, and the rows are still served", async () => {
  await using dir = await tempDir();
  const ledger = `${dir.path}/ledger.jsonl`;
  const row = JSON.parse((await Deno.readTextFile(SAMPLE)).split("\n")[0]);
  row.episode_log_digest = `sha256:${"a".repeat(64)}`;
  await Deno.writeTextFile(ledger, JSON.stringify(row) + "\n");
  // --width 400: the warning pinned on one line
  const child = cliCommand(["view", ledger, "--host", "localhost", "--width", "400"]).spawn();
  const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  while (!printed.includes("\n")) printed += (await out.read()).value ?? "";
  const url = /http:\/\/\S+\//.exec(printed)![0];
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const page = await (await fetch(url)).text();
  assert.ok(page.includes('<tr data-line="1">'));
  child.kill("SIGTERM");
  assert.equal((await child.status).code, 0);
  await out.cancel();
  const stderr = await new Response(child.stderr).text();
  assert.match(
    stderr,
    /^warning: .*ledger\.jsonl:1: field "episode_log_digest": No artifact store at/,
  );
});

Deno.test("view --errata: corrected rows are marked, and their page names the erratum", async () => {
  const ledger = "ledgers/examples/synthetic_ledger.jsonl";
  const child = cliCommand(["view", ledger, "--errata", "ledgers/examples/synthetic_errata.jsonl"])
    .spawn();
  const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  while (!printed.includes("\n")) printed += (await out.read()).value ?? "";
  const url = /http:\/\/\S+\//.exec(printed)![0];
  try {
    const table = await (await fetch(`${url}?agent=agent-delta&task=D04`)).text();
    assert.match(
      table,
      /errata ledgers\/examples\/synthetic_errata\.jsonl applied \(2 corrections/,
    );
    assert.match(
      table,
      /<td class="outcome invalid">invalid <span class="corrected" title="erratum errata-0002 \(invalidate_episode\)">corrected<\/span><\/td>/,
    );
    const id = encodeURIComponent("synthetic-2026-09/agent-beta/E11/1");
    const page = await (await fetch(`${url}episode?id=${id}`)).text();
    assert.match(
      page,
      /Corrected by erratum errata-0001 \(rescore_episode, errata line 1\): recorded failed, now resolved\./,
    );
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await out.cancel();
    await child.stderr.cancel();
  }
});

Deno.test("view at a narrow width: the address stays whole on the first line, no line wider", async () => {
  const ledger = "ledgers/examples/synthetic_ledger.jsonl";
  const child = cliCommand(["view", ledger, "--width", "40"]).spawn();
  const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  // the address line, then the episodes line under it
  while (printed.split("\n").length < 3) printed += (await out.read()).value ?? "";
  try {
    const [first, ...rest] = printed.split("\n");
    // "ledgerbench view: http://127.0.0.1:NNNNN/" is 41 columns (an ephemeral port has 5
    // digits): the address alone
    assert.match(first, /^(ledgerbench view: )?http:\/\/127\.0\.0\.1:\d+\/$/);
    // folded, the path cut where it does not fit: the same characters
    assert.match(
      rest.join("").replace(/\s+/g, ""),
      /^\(Ctrl-Cstops\)351episodesofledgers\/examples\/synthetic_ledger\.jsonl$/,
    );
    for (const line of printed.split("\n")) assert.ok([...line].length <= 40, line);
    const url = /http:\/\/\S+\//.exec(first)![0];
    assert.ok((await (await fetch(url)).text()).includes("<table"));
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await out.cancel();
    await child.stderr.cancel();
  }
});

Deno.test("view --out: an episode log that is a fifo in the artifact store is refused at once, naming the line and field", async () => {
  await using dir = await tempDir();
  const ledger = `${dir.path}/ledger.jsonl`;
  const row = JSON.parse((await Deno.readTextFile(SAMPLE)).split("\n")[0]);
  const hex = "b".repeat(64);
  row.episode_log_digest = `sha256:${hex}`;
  await Deno.writeTextFile(ledger, JSON.stringify(row) + "\n");
  await Deno.mkdir(`${dir.path}/artifacts/sha256`, { recursive: true });
  const fifo = await new Deno.Command("mkfifo", {
    args: [`${dir.path}/artifacts/sha256/${hex}.episode-log.json`],
  }).output();
  assert.ok(fifo.success);
  // Before, the page's read of the fifo waited for a writer forever.
  const result = await cli("view", ledger, "--out", `${dir.path}/site`, "--width", "400");
  assert.match(
    result.stderr,
    /ledger\.jsonl:1: field "episode_log_digest": Cannot open episode log "sha256:b{64}": ".*\.episode-log\.json" is not a regular file/,
  );
  assert.ok(!/^\s+at /m.test(result.stderr), result.stderr);
});
