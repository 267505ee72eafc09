import { deepEqual, equal, throws } from "node:assert/strict";
import { formatProblem, LedgerError } from "../analysis/ledger_error.ts";
import { readCompose } from "./harbor_compose.ts";

const EXAMPLES = new URL("../tests/fixtures/harbor_tasks/harbor-examples", import.meta.url)
  .pathname;

/** The one line the CLI would print for what reading `text` throws. */
function refusal(text: string): string {
  try {
    readCompose("c.yaml", text, "environment");
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return formatProblem(error.problems[0]);
  }
  throw new Error("not refused");
}

Deno.test("readCompose() maps Harbor's environment-env-multi: a sidecar sharing main's named volume", async () => {
  const path = `${EXAMPLES}/environment-env-multi/environment/docker-compose.yaml`;
  const read = readCompose(path, await Deno.readTextFile(path), "environment");
  deepEqual(read.services, [{
    name: "sidecar",
    environment: { image: "alpine:3.21" },
    // the folded scalar's `$${...}` is a literal `${...}` for the sidecar's shell
    command: [
      "sh",
      "-c",
      "printf '%s' \"${HARBOR_STARTUP_ENV_TEST-unset}\" > /startup/sidecar-env; exec sleep infinity",
    ],
    volumes: [{ volume: "startup-evidence", path: "/startup" }],
  }]);
  deepEqual(read.mainDependsOn, { sidecar: "started" });
  deepEqual(read.mainVolumes, [{ volume: "startup-evidence", path: "/startup" }]);
  deepEqual(read.warnings, []);
});

Deno.test("readCompose() reads each form: build, string command, environment items, durations, start order", () => {
  const read = readCompose(
    "c.yaml",
    [
      "services:",
      "  web:",
      "    build: ./web",
      "    command: serve --port 80",
      "    environment: [MODE=test, 'EMPTY=']",
      "    depends_on: [db]",
      "    ports: ['8080:80']",
      "  db:",
      "    build: {context: db, dockerfile: Dockerfile.db}",
      "    user: 999",
      "    environment: {RETRIES: 3}",
      "    healthcheck:",
      "      test: pg_isready",
      "      interval: 1m30s",
      "      start_period: 500ms",
      "volumes: {}",
      "",
    ].join("\n"),
    "environment",
  );
  // db starts first: web depends on it
  deepEqual(read.services.map((s) => s.name), ["db", "web"]);
  deepEqual(read.services[0], {
    name: "db",
    environment: { dockerfile: "environment/db/Dockerfile.db" },
    env: { RETRIES: "3" },
    user: "999",
    healthcheck: {
      command: "pg_isready",
      interval_ms: 90000,
      timeout_ms: 30000,
      start_period_ms: 500,
      start_interval_ms: 5000,
      retries: 3,
    },
  });
  deepEqual(read.services[1], {
    name: "web",
    environment: { dockerfile: "environment/web/Dockerfile" },
    command: ["serve", "--port", "80"],
    env: { MODE: "test", EMPTY: "" },
    depends_on: { db: "started" },
  });
  deepEqual(read.warnings, ['service "web": "ports" is not applied']);
});

Deno.test("readCompose() takes a Dockerfile below its build context, and main's environment", () => {
  // The form of huangyCode/terminal-bench-order-gateway-recovery's docker-compose.yaml.
  const read = readCompose(
    "c.yaml",
    [
      "services:",
      "  main:",
      "    build: {context: ., dockerfile: Dockerfile}",
      "    environment:",
      "      VENUE_URL: http://venue:8080",
      "  venue:",
      "    build: {context: ., dockerfile: venue/Dockerfile}",
      "",
    ].join("\n"),
    "environment",
  );
  deepEqual(read.services[0].environment, {
    dockerfile: "environment/venue/Dockerfile",
    context: "environment",
  });
  deepEqual(read.mainEnv, { VENUE_URL: "http://venue:8080" });
  deepEqual(read.warnings, [
    "the main service's \"build\" is not applied (Harbor sets main's own)",
  ]);
});

Deno.test("readCompose() refuses what it cannot run, naming the line and the key", () => {
  const cases: [string, string][] = [
    [
      "services: [a\n",
      "c.yaml:2: not YAML: Flow sequence in block collection must be sufficiently indented and " +
      "end with a ]",
    ],
    [
      "networks: {}\nservices: {}\n",
      'c.yaml:1: field "networks": the top-level key "networks" is not supported',
    ],
    [
      "services:\n  db:\n    image: x\n    privileged: true\n",
      'c.yaml:4: field "services.db.privileged": service "db": "privileged" is not supported',
    ],
    [
      "services:\n  db:\n    image: ${IMAGE}\n",
      'c.yaml:3: field "services.db.image": uses Compose variable interpolation, which is not ' +
      "supported (write $$ for a $)",
    ],
    [
      "services:\n  a:\n    image: x\n    depends_on: [b]\n  b:\n    image: x\n    depends_on: [a]\n",
      'c.yaml:4: field "services.a.depends_on": the services\' depends_on form a cycle through "a"',
    ],
    [
      "services:\n  a:\n    image: x\n  b:\n    image: x\n    depends_on:\n      a:\n" +
      "        condition: service_completed_successfully\n",
      'c.yaml:8: field "services.b.depends_on.a.condition": condition ' +
      '"service_completed_successfully" is not supported',
    ],
    [
      "services:\n  db:\n    image: x\n    environment: [TOKEN]\n",
      'c.yaml:4: field "services.db.environment.0": an item without a value takes the host\'s: ' +
      "not supported",
    ],
    [
      "services:\n  db:\n    build: {context: ., args: {A: 1}}\n",
      'c.yaml:3: field "services.db.build.args": build\'s "args" is not supported',
    ],
    [
      "services:\n  db:\n    build: ../outside\n",
      'c.yaml:3: field "services.db.build.context": must be a path inside the task\'s ' +
      "environment directory",
    ],
    [
      "services:\n  main:\n    depends_on: [cache]\n",
      'c.yaml:3: field "services.main.depends_on": main depends on "cache", which is not declared',
    ],
  ];
  for (const [text, expected] of cases) {
    const line = refusal(text);
    equal(line.startsWith(expected), true, `${line}\n  expected: ${expected}`);
  }
  throws(
    () =>
      readCompose(
        "c.yaml",
        "services:\n  a:\n    image: x\n    healthcheck: {test: [X]}\n",
        "environment",
      ),
    LedgerError,
  );
});
