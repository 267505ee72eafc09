import assert from "node:assert/strict";
import { SseSplitter } from "./_sse_splitter.ts";

Deno.test("SseSplitter.push() completes events at blank lines, whatever the chunking", () => {
  const body = 'data: {"a":1}\n\n: comment\nevent: x\ndata: two\ndata:  lines\n\ndata: [DONE]\n\n';
  // The events by hand: the data values, joined with "\n"; one leading space dropped.
  const expected = [
    { raw: 'data: {"a":1}\n\n', data: '{"a":1}' },
    { raw: ": comment\nevent: x\ndata: two\ndata:  lines\n\n", data: "two\n lines" },
    { raw: "data: [DONE]\n\n", data: "[DONE]" },
  ];
  for (const size of [1, 2, 3, 7, body.length]) {
    const splitter = new SseSplitter();
    const events = [];
    for (let i = 0; i < body.length; i += size) {
      events.push(...splitter.push(body.slice(i, i + size)));
    }
    events.push(...splitter.end());
    assert.deepEqual(events, expected, `pieces of ${size}`);
  }
});

Deno.test("SseSplitter.push() accepts CRLF and CR line ends and holds back a final CR", () => {
  const splitter = new SseSplitter();
  assert.deepEqual(splitter.push("data: a\r\n\r"), []);
  // The held CR turns out to start a CRLF: one blank line, one event.
  assert.deepEqual(splitter.push("\ndata: b\r\r"), [{ raw: "data: a\r\n\r\n", data: "a" }]);
  assert.deepEqual(splitter.push("data"), [{ raw: "data: b\r\r", data: "b" }]);
  // A bare "data" line has an empty value.
  assert.deepEqual(splitter.end("\n\n"), [{ raw: "data\n\n", data: "" }]);
});

Deno.test("SseSplitter.end() returns an event the body stopped in", () => {
  const splitter = new SseSplitter();
  assert.deepEqual(splitter.push("id: 1\ndata: x"), []);
  assert.deepEqual(splitter.end(), [{ raw: "id: 1\ndata: x", data: "x" }]);
  assert.deepEqual(new SseSplitter().end(), []);
  assert.deepEqual(new SseSplitter().end("\n: keep-alive\n\n"), [
    { raw: "\n", data: null },
    { raw: ": keep-alive\n\n", data: null },
  ]);
});
