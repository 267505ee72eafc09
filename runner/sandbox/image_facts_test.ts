import { deepEqual, equal, throws } from "node:assert/strict";
import { DEFAULT_PATH, imageArgv, imagePath } from "./image_facts.ts";

Deno.test("imageArgv() composes the image's entrypoint and command as docker run does", () => {
  const agent = { entrypoint: [], cmd: ["/usr/local/bin/deno", "run", "agent.ts"] };
  deepEqual(imageArgv(agent), ["/usr/local/bin/deno", "run", "agent.ts"]);
  // A command replaces CMD and follows the ENTRYPOINT.
  deepEqual(imageArgv(agent, ["sleep", "30"]), ["sleep", "30"]);
  const wrapped = { entrypoint: ["/entry.sh"], cmd: ["serve"] };
  deepEqual(imageArgv(wrapped), ["/entry.sh", "serve"]);
  deepEqual(imageArgv(wrapped, ["check"]), ["/entry.sh", "check"]);
  throws(
    () => imageArgv({ entrypoint: [], cmd: [] }),
    /the image has neither an entrypoint nor a command/,
  );
});

Deno.test("imagePath() reads the image's PATH, else Docker's default", () => {
  equal(imagePath({ env: ["HOME=/root", "PATH=/opt/bin:/usr/bin"] }), "/opt/bin:/usr/bin");
  equal(imagePath({ env: ["HOME=/root"] }), DEFAULT_PATH);
});
