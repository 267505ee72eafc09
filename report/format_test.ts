import { equal } from "node:assert/strict";
import { displayId, fitId } from "../analysis/untrusted_text.ts";
import {
  decimal,
  fixed,
  integer,
  money,
  percent,
  percentInterval,
  plural,
  quotedList,
  renderPairs,
  renderTable,
  signedFixed,
} from "./format.ts";

Deno.test("percent(), percentInterval() and integer() give '-' for a missing value", () => {
  equal(percent(0.75), "75.0%");
  equal(percent(null), "-");
  equal(percentInterval([0.25, 1]), "[25.0%, 100.0%]");
  equal(percentInterval({ lower: 0.25, upper: 1 }), "[25.0%, 100.0%]");
  equal(percentInterval(null), "-");
  equal(integer(1234567.4), "1,234,567");
  equal(integer(undefined), "-");
});

Deno.test("fixed() does not group, decimal() and money() do", () => {
  equal(fixed(55426.375), "55426.38");
  equal(decimal(55426.375), "55,426.38");
  equal(money(0.01894), "0.0189");
  equal(money(1234.5), "1,234.50");
});

Deno.test("signedFixed() signs a value and never prints -0.0000", () => {
  equal(signedFixed(0.40546), "+0.4055");
  equal(signedFixed(-0.40546), "-0.4055");
  equal(signedFixed(-0.00001), "0.0000");
});

Deno.test("plural() and quotedList() read as sentences", () => {
  equal(plural(1, "row"), "1 row");
  equal(plural(1200, "row"), "1,200 rows");
  equal(quotedList(["a", "b", "c"]), '"a", "b" and "c"');
  equal(quotedList(["a\u202eb"]), '"a\\u202eb"');
});

Deno.test("renderTable() escapes every cell and shortens the cells of id columns only", () => {
  const long = "x".repeat(100);
  const message = `invalid attempt 1 of task "A03": "${"verifier_fault".repeat(5)}"`;
  const text = renderTable(
    [{ header: "agent", id: true }, { header: "message" }],
    [[long, message], ["a\u202eb\nc", "tab\there"]],
  );
  const shown = displayId(long);
  equal(
    text,
    `${"agent".padEnd(48)}  message\n${"-".repeat(48)}  ${"-".repeat(message.length)}\n` +
      `${shown}  ${message}\n${"a\\u202eb\\nc".padEnd(48)}  tab\\there\n`,
  );
});

Deno.test("renderPairs() escapes values and never shortens them", () => {
  const sha = "0".repeat(64);
  equal(renderPairs([["sha256", sha], ["path", "a\nb"]]), `sha256:  ${sha}\npath:    a\\nb\n`);
});

Deno.test("fitId() keeps the head and the real tail at any length, displayId's rule at 48", () => {
  const id =
    "instance_qutebrowser__qutebrowser-0833b5f6f140d04200ec91605f88704dd18e2970-v059c6fdc75567943479b23ebca7c07b5e9a7f34c";
  // whole when it fits; escaped first
  equal(fitId("cobalt-xl", 20), "cobalt-xl");
  equal(fitId("a\u202eb", 20), "a\\u202eb");
  equal(fitId(id, 48), displayId(id));
  for (const length of [12, 20, 30, 47]) {
    const shown = fitId(id, length);
    equal([...shown].length, length, shown);
    const [head, tail] = shown.split("…");
    // the head at most a third (and at most 16), the rest the id's real tail, no hash
    equal(head, id.slice(0, Math.min(16, Math.floor(length / 3))));
    equal(id.endsWith(tail), true, shown);
  }
});
