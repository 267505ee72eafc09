import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { tempDir } from "./_temp_dir_for_test.ts";
import { openEpisodeLog, storeEpisodeLog } from "./episode_log_store.ts";
import { callRecord, refusedRecord } from "./relay/_call_record_for_test.ts";
import { currentRunner } from "./runner_identity.ts";
import { DiskFullError } from "./name_full_disk.ts";

const INPUT = {
  episode_id: "r1/crasher/t1/1",
  stdoutTail: "working\n",
  stderrTail: "crashing on purpose\n",
  records: [callRecord(1), refusedRecord(2, "step_cap")],
  bodies: [{
    index: 1,
    endpoint: "/v1/chat/completions",
    request: { text: '{"model":"m-1"}', bytes: 15, truncated: false },
    response: { text: '{"model":"m-1","usage"', bytes: 90, truncated: true },
  }],
};

Deno.test("storeEpisodeLog() round-trips the tails and the records", async () => {
  await using dir = await tempDir();
  const stored = await storeEpisodeLog(dir.path, INPUT);
  const log = await openEpisodeLog(dir.path, stored.digest);
  assert.deepEqual(log, {
    format: "ledgerbench-episode-log/1",
    episode_id: "r1/crasher/t1/1",
    stdout_tail: "working\n",
    stderr_tail: "crashing on purpose\n",
    calls: INPUT.records,
    calls_omitted: 0,
    bodies: INPUT.bodies,
    bodies_omitted: 0,
  });
});

Deno.test("storeEpisodeLog() names the file by the SHA-256 of its bytes, read-only", async () => {
  await using dir = await tempDir();
  const stored = await storeEpisodeLog(dir.path, INPUT);
  const bytes = await Deno.readFile(stored.path);
  // Digest computed independently of the project's sha256Hex.
  const hex = createHash("sha256").update(bytes).digest("hex");
  assert.equal(stored.digest, `sha256:${hex}`);
  assert.equal(stored.path, `${dir.path}/sha256/${hex}.episode-log.json`);
  assert.equal((await Deno.stat(stored.path)).mode! & 0o777, 0o444);
  // Canonical JSON: sorted keys, two-space indent, final newline.
  const text = new TextDecoder().decode(bytes);
  assert.ok(text.startsWith('{\n  "bodies": [\n'));
  assert.ok(text.endsWith('  "stdout_tail": "working\\n"\n}\n'));
  // The same log again is the same file.
  assert.deepEqual(await storeEpisodeLog(dir.path, INPUT), stored);
  assert.deepEqual([...Deno.readDirSync(`${dir.path}/sha256`)].map((e) => e.name), [
    `${hex}.episode-log.json`,
  ]);
});

Deno.test("openEpisodeLog() refuses an altered, missing or malformed log", async () => {
  await using dir = await tempDir();
  const stored = await storeEpisodeLog(dir.path, INPUT);
  const text = await Deno.readTextFile(stored.path);
  await Deno.chmod(stored.path, 0o644);
  await Deno.writeTextFile(stored.path, text.replace("crashing", "finished"));
  const altered = createHash("sha256").update(await Deno.readFile(stored.path)).digest("hex");
  await assert.rejects(
    openEpisodeLog(dir.path, stored.digest),
    {
      message: `Cannot open episode log "${stored.digest}": "${stored.path}" has digest ` +
        `"sha256:${altered}"`,
    },
  );
  await Deno.remove(stored.path);
  await assert.rejects(openEpisodeLog(dir.path, stored.digest), {
    message: `Cannot open episode log "${stored.digest}": not in "${dir.path}"`,
  });
  await assert.rejects(openEpisodeLog(dir.path, "sha256:abc"), {
    message: 'Cannot open episode log: digest "sha256:abc" is not "sha256:<64 hex>"',
  });
  // Bytes that match their name but are not a log.
  const other = '{"format":"something-else"}';
  const hex = createHash("sha256").update(other).digest("hex");
  await Deno.writeTextFile(`${dir.path}/sha256/${hex}.episode-log.json`, other);
  await assert.rejects(openEpisodeLog(dir.path, `sha256:${hex}`), {
    message: `Cannot open episode log "sha256:${hex}": field "format": ` +
      'Invalid input: expected "ledgerbench-episode-log/1"',
  });
});

Deno.test("storeEpisodeLog() bounds the tails and the records", async () => {
  await using dir = await tempDir();
  const stored = await storeEpisodeLog(dir.path, {
    episode_id: "r1/a/t1/1",
    stdoutTail: "0123456789",
    stderrTail: "é".repeat(3), // 6 UTF-8 bytes
    records: [callRecord(1), callRecord(2), callRecord(3)],
    bodies: [1, 2, 3].map((index) => ({ ...INPUT.bodies[0], index })),
  }, { maxTailBytes: 4, maxCalls: 2 });
  const log = await openEpisodeLog(dir.path, stored.digest);
  assert.equal(log.stdout_tail, "[… 6 earlier bytes omitted]\n6789");
  assert.equal(log.stderr_tail, "[… 2 earlier bytes omitted]\néé");
  assert.deepEqual(log.calls.map((c) => c.index), [1, 2]);
  assert.equal(log.calls_omitted, 1);
  assert.deepEqual(log.bodies.map((b) => b.index), [1, 2]);
  assert.equal(log.bodies_omitted, 1);
});

Deno.test("storeEpisodeLog() redacts the given values in every string", async () => {
  await using dir = await tempDir();
  const key = "sk-upstream-secret";
  const stored = await storeEpisodeLog(dir.path, {
    episode_id: "r1/a/t1/1",
    stdoutTail: `key=${key}\n`,
    stderrTail: null,
    records: [callRecord(1, { detail: `upstream said ${key}` })],
    bodies: [{
      ...INPUT.bodies[0],
      response: { text: `{"echo":"Bearer ${key}"}`, bytes: 40, truncated: false },
    }],
  }, { redact: [key, ""] });
  const text = await Deno.readTextFile(stored.path);
  assert.ok(!text.includes(key));
  const log = await openEpisodeLog(dir.path, stored.digest);
  assert.equal(log.stdout_tail, "key=[redacted]\n");
  assert.equal(log.stderr_tail, null);
  assert.equal(log.calls[0].detail, "upstream said [redacted]");
  assert.equal(log.bodies[0].response.text, '{"echo":"Bearer [redacted]"}');
});

Deno.test("storeEpisodeLog() keeps the verifier's mode and output tails, bounded and redacted as the candidate's", async () => {
  await using dir = await tempDir();
  const key = "sk-upstream-secret";
  const stored = await storeEpisodeLog(dir.path, {
    ...INPUT,
    verifier: {
      mode: "sealed",
      stdoutTail: "FAILED test_outputs.py::test_double - assert 41 == 42\n",
      stderrTail: `0123456789 ${key}`,
    },
  }, { maxTailBytes: 30, redact: [key] });
  const log = await openEpisodeLog(dir.path, stored.digest);
  // each tail keeps its last 30 bytes (54 - 30 = 24 omitted, marked as tailText marks it),
  // and the key is redacted as in every stored string
  assert.deepEqual(log.verifier, {
    mode: "sealed",
    stdout_tail: "[… 24 earlier bytes omitted]\ntest_double - assert 41 == 42\n",
    stderr_tail: "0123456789 [redacted]",
  });
  // absent when the verifier kept no output (and in logs written before)
  const bare = await openEpisodeLog(dir.path, (await storeEpisodeLog(dir.path, INPUT)).digest);
  assert.equal("verifier" in bare, false);
});

Deno.test("storeEpisodeLog() removes the staging of a runner that is gone, not a live or another host's", async () => {
  await using dir = await tempDir();
  const shelf = `${dir.path}/sha256`;
  await Deno.mkdir(shelf);
  const self = currentRunner();
  const child = new Deno.Command("true").spawn();
  await child.status;
  const hex = "0123456789abcdef";
  const dead = `.staging-${child.pid}-12345-${hex}-${self.host}.episode-log.json`;
  const live = `.staging-${self.pid}-${self.start}-${hex}-${self.host}.episode-log.json`;
  const otherHost = `.staging-${child.pid}-12345-${hex}-node-b.episode-log.json`;
  // Made before staging names told their owner: whose it is cannot be told, so it stays.
  const unowned = `.staging-${crypto.randomUUID()}.episode-log.json`;
  for (const name of [dead, live, otherHost, unowned]) {
    await Deno.writeTextFile(`${shelf}/${name}`, "{", { mode: 0o444 });
  }
  const stored = await storeEpisodeLog(dir.path, INPUT);
  const names = [...Deno.readDirSync(shelf)].map((entry) => entry.name).sort();
  assert.deepEqual(names, [stored.path.slice(shelf.length + 1), live, otherHost, unowned].sort());
});

Deno.test("storeEpisodeLog() names a full store: ENOSPC and the store's path", {
  ignore: Deno.uid() !== 0,
}, async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/store`;
  await Deno.mkdir(store);
  const mount = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", "size=4k", "ledgerbench-test-store", store],
  }).output();
  assert.equal(mount.code, 0);
  try {
    // The first page holds the log; the second cannot.
    await storeEpisodeLog(store, { ...INPUT, stdoutTail: "x".repeat(1000) });
    await assert.rejects(
      () => storeEpisodeLog(store, { ...INPUT, stdoutTail: "y".repeat(60000) }),
      (error) =>
        error instanceof DiskFullError &&
        error.message.startsWith(
          `No space left on device (ENOSPC) in the artifact store "${store}": writefile '${store}/sha256/.staging-`,
        ),
    );
  } finally {
    await new Deno.Command("umount", { args: ["--lazy", store] }).output();
  }
});
