/**
 * Building a task's environment image from its Dockerfile through the
 * Engine API (`POST /build`), with BuildKit where the engine has it, as
 * Harbor builds (`docker compose build`, BuildKit by default): Dockerfiles
 * of the field use BuildKit's syntax (`COPY --chmod=755`), which the legacy
 * builder refuses. Nothing is pulled: the caller has checked every base
 * image is present.
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "./docker_client.ts";
import { engineCall } from "./engine_call.ts";
import { readBuildTrace } from "./buildkit_status.ts";
import { dockerfileInstructions, firstBuildKitOnlyInstruction } from "../../inputs/dockerfile.ts";

/** One build of a Dockerfile into a tagged image. */
export interface BuildImageRequest {
  /** The build context: a directory, sent whole. */
  context: string;
  /** The Dockerfile, relative to the context. */
  dockerfile: string;
  /** The tag the image gets. */
  tag: string;
  /**
   * The network of the `RUN` steps: `default` (the engine's default),
   * `none`, `host`, or a network's name.
   */
  network: string;
  /** Where the context's archive is written while it is sent; default the system's. */
  tempDir?: string;
}

/** How a build ended: built, or one line saying why it failed. */
export type BuildImageResult = { ok: true } | { ok: false; failure: string };

/** The network modes BuildKit's `RUN` steps take through the engine (moby: others are "not supported by buildkit"). */
const BUILDKIT_NETWORKS = new Set(["default", "none", "host"]);

/**
 * Builds `request.dockerfile` into `request.tag` without any cached layer
 * (`nocache`: a layer cached under one build network must not stand for a
 * build under another) and removing every intermediate container.
 *
 * The builder is BuildKit (`version=2`) unless the build network is a named
 * network (BuildKit takes only `default`, `none` and `host`) or the engine
 * refuses BuildKit; then the legacy builder builds, and a Dockerfile that
 * needs BuildKit fails before it is sent, naming its line. Under BuildKit,
 * `default` on an engine that has no `bridge` network (dockerd
 * `--bridge=none`) is `none`: the legacy builder's default there gives a
 * `RUN` step only loopback, and BuildKit's fails ("network bridge not
 * found"). Podman's service reads no `version` and builds with Buildah,
 * which reads BuildKit's syntax too.
 *
 * @param request the context, Dockerfile, tag and network
 * @param options the engine's client
 * @returns built, or the failure: the Dockerfile line and step
 *   that failed (from BuildKit's trace), the last lines the step wrote to
 *   stderr (to stdout when it wrote nothing there), and the builder's error
 * @throws {Error} when the engine cannot be reached or the context cannot be archived
 */
export async function buildImage(
  request: BuildImageRequest,
  options: { docker?: Docker } = {},
): Promise<BuildImageResult> {
  const docker = options.docker ?? dockerClient();
  const dockerfileText = await Deno.readTextFile(`${request.context}/${request.dockerfile}`);
  const archive = await archiveContext(request.context, request.tempDir);
  try {
    if (BUILDKIT_NETWORKS.has(request.network)) {
      const networkMode = request.network === "default" && !(await hasBridge(docker))
        ? "none"
        : request.network;
      const sent = await sendBuild(docker, archive, request, "2", networkMode);
      if (!("refused" in sent)) return outcome(sent.messages, dockerfileText);
      if (!/buildkit/i.test(sent.refused)) return { ok: false, failure: sent.refused };
      return await legacyBuild(docker, archive, request, dockerfileText, "the engine refused it");
    }
    return await legacyBuild(
      docker,
      archive,
      request,
      dockerfileText,
      `BuildKit takes no named build network such as "${request.network}"`,
    );
  } finally {
    await Deno.remove(archive).catch(() => {});
  }
}

/** The legacy builder's build, after refusing a Dockerfile that needs BuildKit. */
async function legacyBuild(
  docker: Docker,
  archive: string,
  request: BuildImageRequest,
  dockerfileText: string,
  whyLegacy: string,
): Promise<BuildImageResult> {
  const needs = firstBuildKitOnlyInstruction(dockerfileText);
  if (needs !== null) {
    return {
      ok: false,
      failure: `${request.dockerfile}:${needs.line}: ${needs.feature} needs BuildKit, ` +
        `which this build cannot use (${whyLegacy})`,
    };
  }
  const networkMode = request.network;
  const sent = await sendBuild(docker, archive, request, "1", networkMode);
  if ("refused" in sent) return { ok: false, failure: sent.refused };
  return outcome(sent.messages, dockerfileText);
}

/**
 * Posts the build and reads its whole stream; a request the engine refuses
 * before building (a bad parameter, no BuildKit) is `refused` with its message.
 */
async function sendBuild(
  docker: Docker,
  archive: string,
  request: BuildImageRequest,
  version: "1" | "2",
  networkMode: string,
): Promise<{ messages: unknown[] } | { refused: string }> {
  try {
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      docker.modem.dial({
        path: "/build?",
        method: "POST",
        file: archive,
        isStream: true,
        options: {
          t: request.tag,
          dockerfile: request.dockerfile,
          version,
          nocache: "1",
          forcerm: "1",
          ...(networkMode === "default" ? {} : { networkmode: networkMode }),
        },
        statusCodes: { 200: true, 400: "bad parameter", 500: "server error" },
      }, (error, data) => error ? reject(error) : resolve(data as NodeJS.ReadableStream))
    );
    const messages = await new Promise<unknown[]>((resolve, reject) =>
      docker.modem.followProgress(
        stream,
        (error: Error | null, output: unknown[]) => error ? reject(error) : resolve(output),
      )
    );
    return { messages };
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== 400 && status !== 500) throw error;
    const json = (error as { json?: { message?: unknown } }).json;
    return { refused: String(json?.message ?? (error as Error).message) };
  }
}

/** The build's outcome from its stream: its last `error`, if any, made readable. */
function outcome(messages: readonly unknown[], dockerfileText: string): BuildImageResult {
  const failed = messages.findLast((message) =>
    typeof (message as { error?: unknown })?.error === "string"
  ) as { error: string } | undefined;
  if (failed === undefined) return { ok: true };
  const trace = readBuildTrace(messages);
  const step = trace.vertexes.findLast((vertex) => vertex.error !== "");
  // A step's stderr when it wrote any, else its stdout (as a verifier's output is quoted).
  const output = step === undefined ? undefined : trace.output.get(step.digest);
  const printed = step !== undefined
    ? (output?.stderr.trim() ? output.stderr : output?.stdout ?? "")
    : messages.map((message) => (message as { stream?: unknown })?.stream)
      .filter((text): text is string => typeof text === "string").join("");
  const parts = [
    ...(step === undefined ? [] : [stepLocation(step.name, dockerfileText)]),
    ...lastLines(printed, 3),
    oneLine(failed.error),
  ];
  return { ok: false, failure: parts.join(" | ") };
}

/**
 * A BuildKit step's name (`[stage 3/3] RUN make`) with the Dockerfile line of
 * its instruction when exactly one instruction reads the same (whitespace
 * aside): `line 4: [3/3] RUN make`.
 */
function stepLocation(name: string, dockerfileText: string): string {
  const squash = (text: string) => text.replace(/\s+/g, " ").trim();
  const instruction = squash(name.replace(/^\[[^\]]*\]\s*/, ""));
  const lines = dockerfileInstructions(dockerfileText)
    .filter((one) => squash(`${one.keyword} ${one.args}`) === instruction)
    .map((one) => one.line);
  return lines.length === 1 ? `line ${lines[0]}: ${oneLine(name)}` : oneLine(name);
}

/** The last `count` non-blank lines of a build's output, without terminal colours. */
function lastLines(text: string, count: number): string[] {
  return text.split("\n")
    // deno-lint-ignore no-control-regex
    .map((line) => line.replace(/\x1b\[[0-9;]*m/g, "").trim())
    .filter((line) => line !== "" && !line.startsWith("Removing intermediate container"))
    .slice(-count);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Whether the engine has Docker's default `bridge` network. */
async function hasBridge(docker: Docker): Promise<boolean> {
  const networks = await engineCall(
    "list networks",
    (abortSignal) => docker.listNetworks({ abortSignal } as Docker.NetworkListOptions),
  );
  return networks.some((network) => network.Name === "bridge");
}

/** The context directory as a tar file, every entry owned by root (numeric ids, so no name lookup). */
async function archiveContext(context: string, tempDir: string | undefined): Promise<string> {
  const archive = await Deno.makeTempFile({ dir: tempDir, prefix: "ledgerbench-context-" });
  const tar = await new Deno.Command("tar", {
    args: ["-c", "-f", archive, "--owner=0", "--group=0", "--numeric-owner", "-C", context, "."],
    stderr: "piped",
  }).output();
  if (!tar.success) {
    await Deno.remove(archive).catch(() => {});
    throw new Error(
      `cannot archive the build context ${context}: ${new TextDecoder().decode(tar.stderr).trim()}`,
    );
  }
  return archive;
}
