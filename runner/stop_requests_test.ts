import { deepEqual } from "node:assert/strict";
import { SAME_REQUEST_MS, stopRequests } from "./stop_requests.ts";

Deno.test("stopRequests(): copies of the first signal are the same request, a later one kills", () => {
  let t = 10_000;
  const receive = stopRequests(() => t);
  const asked = [receive()];
  // Copies forwarded by `npm exec` and `deno task`, 0.3 and 0.8 ms after the keypress.
  t += 0.3;
  asked.push(receive());
  t += 0.5;
  asked.push(receive());
  // Just inside the window, then at its end: a second keypress.
  t = 10_000 + SAME_REQUEST_MS - 1;
  asked.push(receive());
  t = 10_000 + SAME_REQUEST_MS;
  asked.push(receive());
  asked.push(receive()); // and any after it
  deepEqual(asked, ["stop", "same", "same", "same", "kill", "kill"]);
});
