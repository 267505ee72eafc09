import assert from "node:assert/strict";
import { episode } from "../analysis/_ledger_for_test.ts";
import { episodeSections } from "./episode_page.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";

const LOG: EpisodeLog = {
  format: "ledgerbench-episode-log/1",
  episode_id: "r/a/t/1",
  stdout_tail: "out\n",
  stderr_tail: "",
  calls: [],
  calls_omitted: 0,
  bodies: [],
  bodies_omitted: 0,
  denied_requests: [{ method: "GET", target: "/v1/models?<x>", status: 404, code: "not_found" }],
  judge: {
    calls: [],
    bodies: [{
      index: 1,
      endpoint: "/v1/chat/completions",
      request: { text: "REFERENCE ANSWER: 42", bytes: 20, truncated: false },
      response: { text: "{}", bytes: 2, truncated: false },
    }],
  },
  verifier: {
    mode: "shared",
    stdout_tail: "cat /tests/hidden_expected.txt: SECRET-VALUE\n" +
      '{"resolved": false, "checks": [{"name": "case_3", "passed": false, "detail": "wrong total"}]}\n',
    stderr_tail: "HIDDEN-STDERR\n",
    changes: [{ path: "/tests/hidden_expected.txt", kind: "added" }],
    changes_omitted: 0,
  },
};

Deno.test("episodeSections() shows the verdict's checks, never the verifier's raw output or the judge's prompt", () => {
  const html = episodeSections({ row: episode("a", "t", false), line: 3, log: LOG, problem: null });
  assert.ok(html.includes("<td>case_3</td>"));
  assert.ok(html.includes("<td>wrong total</td>"));
  for (const hidden of ["SECRET-VALUE", "HIDDEN-STDERR", "hidden_expected", "REFERENCE ANSWER"]) {
    assert.ok(!html.includes(hidden), hidden);
  }
  assert.ok(html.includes('<pre class="stdout">out\n</pre>'));
  assert.ok(html.includes("<td>GET</td><td><code>/v1/models?&lt;x&gt;</code></td><td>404</td>"));
  assert.ok(html.includes("Not recorded: the log predates the runner's workspace diff"));
});

Deno.test("episodeSections() gives an imported row one sentence naming its source and position", () => {
  const row = episode("a", "t", true, {
    provenance: {
      evidence_kind: "imported",
      format: "swebench",
      importer_version: "swebench/1",
      model: null,
      position: "resolved_ids[7]",
      reported_cost_usd: null,
      source: "runs/report.json",
      source_sha256: "0".repeat(64),
      tokens_reported_by: "not_recorded",
    },
  });
  const html = episodeSections({ row, line: 9, log: null, problem: null });
  assert.ok(html.includes(
    "imported (swebench) from &quot;runs/report.json&quot; at resolved_ids[7]: it has no stored artifacts",
  ));
  assert.ok(!html.includes("Verifier's verdict") && !html.includes("Transcript"));
});

Deno.test("episodeSections() shows an imported row's kept messages and tool calls, escaped", () => {
  const row = episode("a", "t", true, {
    provenance: {
      evidence_kind: "imported",
      format: "inspect",
      importer_version: "inspect/1",
      model: "m",
      position: "samples[0]",
      reported_cost_usd: null,
      source: "run.json",
      source_sha256: "0".repeat(64),
      tokens_reported_by: "harness",
    },
  });
  const record = JSON.stringify({
    messages: [
      { role: "user", content: "<script>alert(1)</script>\u202e" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c<1>", function: "bash", arguments: { cmd: "ls <dir>" } }],
      },
      { role: "tool", content: "a & b", tool_call_id: "c<1>" },
    ],
  });
  const log = { ...LOG, imported: { format: "inspect" as const, record } };
  const html = episodeSections({ row, line: 2, log, problem: null });
  assert.ok(html.includes("the transcript below is the conversation its source kept"));
  assert.ok(html.includes("Transcript (3 messages, as the source kept them)"));
  assert.ok(!html.includes("<script>") && !html.includes("\u202e"));
  assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt;"));
  assert.ok(html.includes("{&quot;cmd&quot;:&quot;ls &lt;dir&gt;&quot;}"));
  assert.ok(html.includes("a &amp; b"));
  assert.ok(html.includes('<td><a href="#message-2">2</a></td><td><code>bash</code></td>'));
  // what a runner row's log also holds is never read for an imported row
  assert.ok(!html.includes("Verifier's verdict") && !html.includes("HIDDEN-STDERR"));
});

Deno.test("episodeSections() says why a row has no log, or why its log could not be read", () => {
  const row = episode("a", "t", true);
  assert.ok(
    episodeSections({ row, line: 1, log: null, problem: null }).includes(
      "No episode log is stored",
    ),
  );
  const html = episodeSections({
    row,
    line: 1,
    log: null,
    problem: 'l.jsonl:1: field "x": <gone>',
  });
  assert.ok(html.includes("could not be read: l.jsonl:1: field &quot;x&quot;: &lt;gone&gt;"));
});

Deno.test("episodeSections() takes a reward file's verdict from the row, not from the test output", () => {
  const row = episode("a", "t", true, {
    verification: {
      mode: "shared",
      reward: { reward: 1 },
      reward_file: "reward.txt",
      decided_by: 'key "reward"',
      hijacks: [],
      egress_allowed: 0,
      egress_denied: 0,
    },
  });
  const html = episodeSections({ row, line: 1, log: LOG, problem: null });
  assert.ok(html.includes("Mode shared, decided by key &quot;reward&quot;; reward reward 1."));
  assert.ok(
    html.includes('Verdict from reward.txt: <strong class="outcome resolved">resolved</strong>'),
  );
  assert.ok(!html.includes("case_3") && !html.includes("SECRET-VALUE"));
});
