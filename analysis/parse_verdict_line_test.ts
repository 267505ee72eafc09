import { deepEqual, equal } from "node:assert/strict";
import { parseVerdictLine } from "./parse_verdict_line.ts";

Deno.test("parseVerdictLine() reads the last non-empty stdout line through the Verdict schema", () => {
  // The schema fills the defaults: schema_version 1, no checks, detail "".
  deepEqual(
    parseVerdictLine(
      '{"resolved": false}\nlog\n{"resolved": true, "checks": [{"name": "a", "passed": true}]}\n  \n',
    ),
    {
      kind: "verdict",
      verdict: {
        schema_version: 1,
        resolved: true,
        checks: [{ name: "a", passed: true, detail: "" }],
      },
    },
  );
});

Deno.test("parseVerdictLine() names a missing verdict, a non-JSON line and a schema failure", () => {
  deepEqual(parseVerdictLine("\n \n"), {
    kind: "fault",
    fault: "verdict_missing",
    detail: "The verifier printed nothing on stdout",
  });
  deepEqual(parseVerdictLine("all checks passed\n"), {
    kind: "fault",
    fault: "verdict_malformed",
    detail: 'The verifier\'s last stdout line is not JSON: "all checks passed"',
  });
  const wrong = parseVerdictLine('{"resolved": "yes"}');
  equal(wrong.kind, "fault");
  equal(wrong.kind === "fault" && wrong.fault, "verdict_malformed");
  equal(
    wrong.kind === "fault" &&
      wrong.detail.startsWith('The verifier\'s verdict is invalid: field "resolved": '),
    true,
  );
});
