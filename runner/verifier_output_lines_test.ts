import { equal } from "node:assert/strict";
import { VERIFIER_QUOTE_LIMITS, verifierOutputLines } from "./verifier_output_lines.ts";

Deno.test("verifierOutputLines() quotes stdout's last 5 non-empty lines, then stderr's last 3", () => {
  const pytest = [
    "============================= test session starts ==============================",
    "collected 2 items",
    "",
    "test_outputs.py .F                                                       [100%]",
    "    def test_double():",
    ">       assert run(21) == 42",
    "E       assert 41 == 42",
    "FAILED test_outputs.py::test_double - assert 41 == 42",
    "========================= 1 failed, 1 passed in 0.03s =========================",
    "",
  ].join("\n");
  // stderr empty (pytest writes to stdout): stdout's last five non-empty lines
  equal(
    verifierOutputLines({ stdout_tail: pytest, stderr_tail: "\n  \n" }),
    "the verifier's stdout ends: " + [
      // the sixth line from the end ("test_outputs.py .F ...") is not quoted
      "    def test_double():",
      ">       assert run(21) == 42",
      "E       assert 41 == 42",
      "FAILED test_outputs.py::test_double - assert 41 == 42",
      "========================= 1 failed, 1 passed in 0.03s =========================",
    ].join(" | "),
  );
  // both streams, stderr's last three; CRLF line ends are not shown
  equal(
    verifierOutputLines({
      stdout_tail: "1 failed\n",
      stderr_tail: "Reading package lists...\na\nb\npip: no network\r\n",
    }),
    "the verifier's stdout ends: 1 failed; its stderr ends: a | b | pip: no network",
  );
  equal(verifierOutputLines({ stdout_tail: "", stderr_tail: "" }), "the verifier printed nothing");
});

Deno.test("verifierOutputLines() bounds each line to 200 characters, then escapes it", () => {
  equal(VERIFIER_QUOTE_LIMITS.lineChars, 200);
  const long = "x".repeat(250);
  // 199 characters and the cut mark: 200
  equal(
    verifierOutputLines({ stdout_tail: "", stderr_tail: long }),
    `the verifier's stderr ends: ${"x".repeat(199)}…`,
  );
  equal(
    verifierOutputLines({ stdout_tail: "", stderr_tail: "x".repeat(200) }),
    `the verifier's stderr ends: ${"x".repeat(200)}`,
  );
  // code points, not UTF-16 units: an emoji is never split
  equal(
    verifierOutputLines({ stdout_tail: "", stderr_tail: "😀".repeat(201) }),
    `the verifier's stderr ends: ${"😀".repeat(199)}…`,
  );
  // terminal controls and bidirectional overrides as escapes, on one line
  equal(
    verifierOutputLines({ stdout_tail: "", stderr_tail: "\x1b[31mred\x1b[0m \u202eevil\ttab\n" }),
    "the verifier's stderr ends: \\x1b[31mred\\x1b[0m \\u202eevil\\ttab",
  );
});
