/**
 * Reading a Harbor task's Compose environment (`environment/docker-compose.yaml`,
 * merged by Harbor over its own `main` service, `src/harbor/environments/docker/`)
 * into the manifest's sidecar services (`TaskService`): every service but
 * `main` becomes a container of its own image, run as built, in the
 * agent's network namespace (loopback only: the services reach each other
 * and the agent on `127.0.0.1`, each name resolving there, and nothing
 * further). Harbor without the internet puts `main` on `network_mode:
 * none`, where it cannot reach its sidecars at all; here it can, and still
 * nothing else.
 *
 * What each key of the Compose specification becomes:
 *
 * | Compose | ledgerbench |
 * |---|---|
 * | a service's `image` / `build` (a context, or `{context, dockerfile}` under `environment/`) | its `environment` (`{image}`, or `{dockerfile, context}`: built at `freeze`, pinned by digest) |
 * | `entrypoint`, `command` (a list, or a string of plain words) | `entrypoint`, `command` |
 * | `environment` (a mapping, or `KEY=VALUE` items) | `env` |
 * | `user` | `user` |
 * | `healthcheck` (`test`: `CMD`, `CMD-SHELL` or a string; `interval`, `timeout`, `retries`, `start_period`, `start_interval`; Docker's defaults 30 s, 30 s, 3, 0, 5 s) | `healthcheck`, a `CMD` list quoted for `/bin/sh -c` |
 * | `depends_on` (a list: `started`; a mapping's `condition`: `service_started`, `service_healthy`) | `depends_on`; `main`'s as `environment_depends_on` |
 * | `main`'s `environment` | the task's `environment_env`, under `[environment.env]` (which wins) |
 * | `volumes` (named volumes: `name:/path[:ro]`, or `{type: volume, source, target, read_only}`) | `volumes`; `main`'s as `environment_volumes` |
 * | `expose` | nothing: every port is on the shared loopback |
 * | `ports`, `restart`, `container_name`, `hostname`, `labels`, `init`, `tty`, `stdin_open`, `stop_grace_period` | a warning each (not applied) |
 * | `main`'s other keys (Harbor sets its build, image, command and limits) | a warning each |
 * | anything else (`networks`, `network_mode`, `privileged`, `cap_add`, a bind mount, `env_file`, `secrets`, ...) | refused, naming the file, line and key |
 *
 * Variables are not interpolated: Harbor fills them from its own process's
 * environment (the host's variables, and log paths it sets itself, such as
 * the deprecated `HOST_ARTIFACTS_PATH`/`ENV_ARTIFACTS_PATH`, used by bind
 * mounts this reader refuses anyway), which nothing here should depend on:
 * `$$` is a `$`, and any other `$` followed by a name or `{` is refused. The
 * services are ordered so that each starts after those it depends on (a
 * cycle is refused).
 *
 * @module
 */
import { isMap, LineCounter, parseDocument } from "yaml";
import { LedgerError } from "../analysis/ledger_error.ts";
import type {
  ServiceVolume,
  TaskHealthcheck,
  TaskService,
} from "../analysis/schema/suite_manifest.ts";

/** A task's Compose environment, read ({@link readCompose}). */
export interface ComposeEnvironment {
  /** The sidecars, in start order. */
  services: TaskService[];
  /** The services `main` waits for (`depends_on`). */
  mainDependsOn: Record<string, "started" | "healthy">;
  /** `main`'s named volumes. */
  mainVolumes: ServiceVolume[];
  /** `main`'s `environment` (Harbor's Compose merge sets them on the agent's container). */
  mainEnv: Record<string, string>;
  /** What is not applied, one sentence each. */
  warnings: string[];
}

/** Service keys that are read. */
const READ = new Set([
  "image",
  "build",
  "entrypoint",
  "command",
  "environment",
  "user",
  "healthcheck",
  "depends_on",
  "volumes",
  "expose",
]);

/** Service keys warned about and not applied: nothing of the sandbox depends on them. */
const WARNED = new Set([
  "ports",
  "restart",
  "container_name",
  "hostname",
  "labels",
  "init",
  "tty",
  "stdin_open",
  "stop_grace_period",
]);

/** Docker's healthcheck defaults (`docker run --health-*`), in ms. */
const HEALTH_DEFAULTS = {
  interval_ms: 30_000,
  timeout_ms: 30_000,
  retries: 3,
  start_period_ms: 0,
  start_interval_ms: 5_000,
};

/**
 * Reads a Compose file (see the module doc).
 *
 * @param path the file, for errors
 * @param text its text
 * @param environmentDir the task's environment directory as the manifest names paths (`environment`)
 * @returns the sidecars, `main`'s dependencies and volumes, and the warnings
 * @throws {LedgerError} a YAML error or a refused key, naming the file, the line and the field
 */
export function readCompose(
  path: string,
  text: string,
  environmentDir: string,
): ComposeEnvironment {
  const { compose, refuse } = loadCompose(path, text);
  for (const key of Object.keys(compose)) {
    if (!["services", "volumes", "version", "name"].includes(key) && !key.startsWith("x-")) {
      throw refuse(`the top-level key "${key}" is not supported`, [key]);
    }
  }
  const volumes = new Set(Object.keys(mapping(compose.volumes ?? {}, ["volumes"], refuse)));
  const declared = mapping(compose.services ?? {}, ["services"], refuse);
  const warnings: string[] = [];
  const main = mapping(declared.main ?? {}, ["services", "main"], refuse);
  for (const key of Object.keys(main)) {
    if (!["depends_on", "volumes", "environment"].includes(key)) {
      warnings.push(`the main service's "${key}" is not applied (Harbor sets main's own)`);
    }
  }
  const services: TaskService[] = [];
  for (const [name, value] of Object.entries(declared)) {
    if (name === "main") continue;
    const at = ["services", name];
    const service = mapping(value, at, refuse);
    for (const key of Object.keys(service)) {
      if (WARNED.has(key)) {
        warnings.push(`service "${name}": "${key}" is not applied`);
      } else if (!READ.has(key)) {
        throw refuse(`service "${name}": "${key}" is not supported`, [...at, key]);
      }
    }
    const env = environmentOf(service.environment, [...at, "environment"], refuse);
    const healthcheck = healthcheckOf(service.healthcheck, [...at, "healthcheck"], refuse);
    const dependsOn = dependsOnOf(service.depends_on, [...at, "depends_on"], refuse);
    const serviceVolumes = volumesOf(service.volumes, volumes, [...at, "volumes"], refuse);
    const entrypoint = argvOf(service.entrypoint, [...at, "entrypoint"], refuse);
    const command = argvOf(service.command, [...at, "command"], refuse);
    services.push({
      name,
      environment: imageOf(service, environmentDir, at, refuse),
      ...(entrypoint === undefined ? {} : { entrypoint }),
      ...(command === undefined ? {} : { command }),
      ...(env === undefined ? {} : { env }),
      ...(service.user === undefined ? {} : { user: String(service.user) }),
      ...(healthcheck === undefined ? {} : { healthcheck }),
      ...(dependsOn === undefined ? {} : { depends_on: dependsOn }),
      ...(serviceVolumes === undefined ? {} : { volumes: serviceVolumes }),
    });
  }
  const mainAt = ["services", "main", "depends_on"];
  const mainDependsOn = dependsOnOf(main.depends_on, mainAt, refuse) ?? {};
  for (const name of Object.keys(mainDependsOn)) {
    if (name === "main" || !Object.hasOwn(declared, name)) {
      throw refuse(`main depends on "${name}", which is not declared`, mainAt);
    }
  }
  return {
    services: startOrder(services, refuse),
    mainDependsOn,
    mainVolumes: volumesOf(main.volumes, volumes, ["services", "main", "volumes"], refuse) ?? [],
    mainEnv: environmentOf(main.environment, ["services", "main", "environment"], refuse) ?? {},
    warnings,
  };
}

/**
 * The service names a Compose file declares, in its order (`main`
 * included), for a message that names them.
 *
 * @param path the file, for errors
 * @param text its text
 * @returns the names
 * @throws {LedgerError} a YAML error, or `services` that is not a mapping, naming the line
 */
export function composeServiceNames(path: string, text: string): string[] {
  const { compose, refuse } = loadCompose(path, text);
  return Object.keys(mapping(compose.services ?? {}, ["services"], refuse));
}

/** A Compose file parsed (interpolation refused), and how to refuse a key of it on its line. */
function loadCompose(
  path: string,
  text: string,
): { compose: Record<string, unknown>; refuse: Refuse } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  // The line of the key's value, else of the nearest enclosing key's (a string for a table).
  const lineOf = (at: (string | number)[]): number => {
    for (let n = at.length; n > 0; n--) {
      const node = doc.getIn(at.slice(0, n), true) as { range?: [number] } | null;
      if (node?.range !== undefined) return lines.linePos(node.range[0]).line;
    }
    return 0;
  };
  const refuse = (message: string, at: (string | number)[] = [], line?: number) => {
    const found = line ?? lineOf(at);
    return new LedgerError([{
      code: "schema_violation",
      file: path,
      line: found,
      field: at.join("."),
      message,
    }]);
  };
  const error = doc.errors[0];
  if (error !== undefined) {
    const first = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    throw refuse(`not YAML: ${first}`, [], error.linePos?.[0].line ?? 0);
  }
  const root = doc.toJS() as unknown;
  if (!isMap(doc.contents) || typeof root !== "object" || root === null) {
    throw refuse("must be a mapping with services");
  }
  return { compose: uninterpolated(root, [], refuse) as Record<string, unknown>, refuse };
}

type Refuse = (message: string, at?: (string | number)[]) => LedgerError;

/** A value that must be a mapping (null: empty). */
function mapping(value: unknown, at: (string | number)[], refuse: Refuse): Record<string, unknown> {
  if (value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw refuse("must be a mapping", at);
  return value as Record<string, unknown>;
}

/** Every string with `$$` as `$`; any other interpolation refused. */
function uninterpolated(value: unknown, at: (string | number)[], refuse: Refuse): unknown {
  if (typeof value === "string") {
    if (/\$(?!\$)(\{|[A-Za-z_])/.test(value.replaceAll("$$", ""))) {
      throw refuse(
        "uses Compose variable interpolation, which is not supported (write $$ for a $)",
        at,
      );
    }
    return value.replaceAll("$$", "$");
  }
  if (Array.isArray(value)) return value.map((v, i) => uninterpolated(v, [...at, i], refuse));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, uninterpolated(v, [...at, k], refuse)]),
    );
  }
  return value;
}

/** A service's image: its `build` (a Dockerfile under the environment directory) or its `image`. */
function imageOf(
  service: Record<string, unknown>,
  environmentDir: string,
  at: (string | number)[],
  refuse: Refuse,
): TaskService["environment"] {
  const build = service.build;
  if (build === undefined) {
    if (typeof service.image !== "string" || service.image === "") {
      throw refuse("a service needs an image or a build", at);
    }
    return { image: service.image };
  }
  const spec = typeof build === "string"
    ? { context: build }
    : mapping(build, [...at, "build"], refuse);
  for (const key of Object.keys(spec)) {
    if (key !== "context" && key !== "dockerfile") {
      throw refuse(`build's "${key}" is not supported`, [...at, "build", key]);
    }
  }
  const context = relativePath(spec.context ?? ".", [...at, "build", "context"], refuse);
  const dockerfile = relativePath(spec.dockerfile ?? "Dockerfile", [...at, "build"], refuse);
  const contextDir = [environmentDir, context].filter((p) => p !== "").join("/");
  return {
    dockerfile: `${contextDir}/${dockerfile}`,
    // A Dockerfile below its context's top names the context; else it is the Dockerfile's own.
    ...(dockerfile.includes("/") ? { context: contextDir } : {}),
  };
}

/** A relative path inside the environment directory, without `./` (`""` for the directory). */
function relativePath(value: unknown, at: (string | number)[], refuse: Refuse): string {
  const parts = typeof value === "string"
    ? value.split("/").filter((p) => p !== "" && p !== ".")
    : [];
  if (typeof value !== "string" || value.startsWith("/") || parts.includes("..")) {
    throw refuse("must be a path inside the task's environment directory", at);
  }
  return parts.join("/");
}

/** An argv: a list of strings, or a string of plain words (no quotes, no escapes). */
function argvOf(value: unknown, at: (string | number)[], refuse: Refuse): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") {
    if (/["'\\]/.test(value)) {
      throw refuse("a string with quotes or escapes: write the command as a list", at);
    }
    return value.trim().split(/\s+/).filter((word) => word !== "");
  }
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  throw refuse("must be a list of strings or a string", at);
}

/** `environment`: a mapping of scalars, or `KEY=VALUE` items. */
function environmentOf(
  value: unknown,
  at: (string | number)[],
  refuse: Refuse,
): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i) => {
      const text = String(item);
      const eq = text.indexOf("=");
      if (eq < 1) {
        throw refuse("an item without a value takes the host's: not supported", [...at, i]);
      }
      return [text.slice(0, eq), text.slice(eq + 1)];
    })
    : Object.entries(mapping(value, at, refuse));
  const env: Record<string, string> = {};
  for (const [key, v] of entries) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw refuse(`"${key}" is no variable name`, at);
    if (v === null || typeof v === "object") {
      throw refuse(`"${key}" has no value (it would take the host's): not supported`, [...at, key]);
    }
    env[key] = String(v);
  }
  return env;
}

/** A Compose duration (`1m30s`, `2s`, `500ms`) in ms. */
function durationMs(value: unknown, at: (string | number)[], refuse: Refuse): number {
  const text = String(value);
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) {
    throw refuse(`"${text}" is not a duration such as 2s or 1m30s`, at);
  }
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * units[p[2]], 0));
}

/** A healthcheck, Docker's defaults for what it omits; `disable` or `NONE`: none. */
function healthcheckOf(
  value: unknown,
  at: (string | number)[],
  refuse: Refuse,
): TaskHealthcheck | undefined {
  if (value === undefined || value === null) return undefined;
  const check = mapping(value, at, refuse);
  if (check.disable === true) return undefined;
  const test = check.test;
  let command: string;
  if (typeof test === "string") {
    command = test;
  } else if (Array.isArray(test) && test[0] === "NONE") {
    return undefined;
  } else if (Array.isArray(test) && test[0] === "CMD-SHELL" && test.length === 2) {
    command = String(test[1]);
  } else if (Array.isArray(test) && test[0] === "CMD" && test.length > 1) {
    command = test.slice(1).map((word) => shellQuoted(String(word))).join(" ");
  } else {
    throw refuse('"test" must be a string, ["CMD", ...], ["CMD-SHELL", cmd] or ["NONE"]', [
      ...at,
      "test",
    ]);
  }
  const ms = (key: string, fallback: number) =>
    check[key] === undefined ? fallback : durationMs(check[key], [...at, key], refuse);
  return {
    command,
    interval_ms: Math.max(1, ms("interval", HEALTH_DEFAULTS.interval_ms)),
    timeout_ms: Math.max(1, ms("timeout", HEALTH_DEFAULTS.timeout_ms)),
    start_period_ms: ms("start_period", HEALTH_DEFAULTS.start_period_ms),
    start_interval_ms: Math.max(1, ms("start_interval", HEALTH_DEFAULTS.start_interval_ms)),
    retries: check.retries === undefined ? HEALTH_DEFAULTS.retries : Number(check.retries),
  };
}

/** A word as `/bin/sh` reads it back unchanged. */
function shellQuoted(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `depends_on`: a list (each `started`) or a mapping of conditions. */
function dependsOnOf(
  value: unknown,
  at: (string | number)[],
  refuse: Refuse,
): Record<string, "started" | "healthy"> | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    return Object.fromEntries(value.map((name) => [String(name), "started" as const]));
  }
  const out: Record<string, "started" | "healthy"> = {};
  for (const [name, spec] of Object.entries(mapping(value, at, refuse))) {
    const condition = mapping(spec, [...at, name], refuse).condition ?? "service_started";
    if (condition === "service_started") out[name] = "started";
    else if (condition === "service_healthy") out[name] = "healthy";
    else throw refuse(`condition "${condition}" is not supported`, [...at, name, "condition"]);
  }
  return out;
}

/** Named volumes (`name:/path[:ro]` or the long form); a bind mount is refused. */
function volumesOf(
  value: unknown,
  declared: ReadonlySet<string>,
  at: (string | number)[],
  refuse: Refuse,
): ServiceVolume[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw refuse("must be a list", at);
  return value.map((item, i) => {
    let volume: string;
    let path: string;
    let readOnly = false;
    if (typeof item === "string") {
      const parts = item.split(":");
      if (
        parts.length < 2 || parts.length > 3 || (parts[2] ?? "ro") !== "ro" && parts[2] !== "rw"
      ) {
        throw refuse(`"${item}" is not name:/path[:ro]`, [...at, i]);
      }
      [volume, path] = parts;
      readOnly = parts[2] === "ro";
    } else {
      const long = mapping(item, [...at, i], refuse);
      if (long.type !== "volume") throw refuse('only "type: volume" is supported', [...at, i]);
      volume = String(long.source ?? "");
      path = String(long.target ?? "");
      readOnly = long.read_only === true;
    }
    if (!declared.has(volume)) {
      throw refuse(
        `"${volume}" is not a volume the file declares (a bind mount of the host is not supported)`,
        [...at, i],
      );
    }
    return { volume, path, ...(readOnly ? { read_only: true } : {}) };
  });
}

/** The services, each after those it depends on (file order otherwise); a cycle refused. */
function startOrder(services: TaskService[], refuse: Refuse): TaskService[] {
  const byName = new Map(services.map((s) => [s.name, s]));
  const ordered: TaskService[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (service: TaskService) => {
    if (state.get(service.name) === "done") return;
    if (state.get(service.name) === "visiting") {
      throw refuse(`the services' depends_on form a cycle through "${service.name}"`, [
        "services",
        service.name,
        "depends_on",
      ]);
    }
    state.set(service.name, "visiting");
    for (const name of Object.keys(service.depends_on ?? {})) {
      const dependency = byName.get(name);
      if (dependency === undefined) {
        throw refuse(`service "${service.name}" depends on "${name}", which is not declared`, [
          "services",
          service.name,
          "depends_on",
        ]);
      }
      visit(dependency);
    }
    state.set(service.name, "done");
    ordered.push(service);
  };
  services.forEach(visit);
  return ordered;
}
