import { deepEqual } from "node:assert/strict";
import { engineIdentityOf } from "./engine_identity.ts";

Deno.test("engineIdentityOf() tells Docker's /version answer from Podman's", () => {
  // Debian 12's docker.io and podman, as their sockets answer GET /version here.
  deepEqual(
    engineIdentityOf({
      Version: "20.10.24+dfsg1",
      ApiVersion: "1.41",
      Components: [
        { Name: "Engine", Version: "20.10.24+dfsg1" },
        { Name: "containerd", Version: "1.6.20~ds1" },
      ],
    }),
    {
      name: "docker",
      version: "20.10.24+dfsg1",
      apiVersion: "1.41",
      label: "Docker 20.10.24+dfsg1",
      reportsOomKills: true,
    },
  );
  deepEqual(
    engineIdentityOf({
      Version: "4.3.1",
      ApiVersion: "1.41",
      Components: [
        { Name: "Podman Engine", Version: "4.3.1" },
        { Name: "Conmon", Version: "conmon version 2.1.6, commit: unknown" },
      ],
    }),
    {
      name: "podman",
      version: "4.3.1",
      apiVersion: "1.41",
      label: "Podman 4.3.1",
      reportsOomKills: false,
    },
  );
  // Podman 5 reports OOM kills (containers/podman#21523); an answer without components is Docker's.
  deepEqual(
    engineIdentityOf({
      Version: "5.4.2",
      ApiVersion: "1.41",
      Components: [{ Name: "Podman Engine", Version: "5.4.2" }],
    }).reportsOomKills,
    true,
  );
  deepEqual(engineIdentityOf({ Version: "17.12.1", ApiVersion: "1.35" }).name, "docker");
});
