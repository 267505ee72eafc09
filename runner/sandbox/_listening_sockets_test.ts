import { equal } from "node:assert/strict";
import { tcpAddress } from "./_listening_sockets.ts";

Deno.test("tcpAddress() writes /proc/net/tcp addresses as people read them", () => {
  equal(tcpAddress("0100007F:1F40"), "127.0.0.1:8000");
  equal(tcpAddress("00000000:0050"), "0.0.0.0:80");
  equal(tcpAddress("00000000000000000000000000000000:4853"), "[::]:18515");
  // ::1 (loopback): the last word 0x01000000 in little-endian.
  equal(tcpAddress("00000000000000000000000001000000:1F40"), "[::1]:8000");
  // ::ffff:127.0.0.1
  equal(tcpAddress("0000000000000000FFFF00000100007F:0016"), "[::ffff:7f00:1]:22");
});
