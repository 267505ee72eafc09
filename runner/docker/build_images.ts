/**
 * Runs the offline image build from Deno.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** The images `containers/build_images.sh` produces. */
export const IMAGE_NAMES = [
  "ledgerbench/base",
  "ledgerbench/agent-solver",
  "ledgerbench/agent-looper",
  "ledgerbench/agent-nocall",
  "ledgerbench/agent-crasher",
  "ledgerbench/agent-attacker",
  "ledgerbench/agent-forger",
  "ledgerbench/agent-filler",
  "ledgerbench/agent-relay_attacker",
  "ledgerbench/agent-shell",
  "ledgerbench/agent-codex",
  "ledgerbench/agent-claude",
  "ledgerbench/agent-gemini",
  "ledgerbench/agent-opencode",
  "ledgerbench/verifier",
] as const;

/**
 * The verifier image a plan names unless told otherwise (`freeze`,
 * `reverify`, `suite check`, the demo): the build's `ledgerbench/verifier`.
 */
export const VERIFIER_IMAGE = "ledgerbench/verifier:latest";

/** One of {@linkcode IMAGE_NAMES}. */
export type ImageName = typeof IMAGE_NAMES[number];

/** Options of {@linkcode buildImages}. */
export interface BuildImagesOptions {
  /** The build script; default `containers/build_images.sh` of this checkout. */
  script?: string;
  /** Extra environment for the script (`LEDGERBENCH_DENO`, `LEDGERBENCH_BUSYBOX`). */
  env?: Record<string, string>;
}

/**
 * Builds (or reuses, when their content-derived tags exist) every ledgerbench
 * image by running `containers/build_images.sh`, which never pulls. Cost:
 * about 30 s from scratch on 2 cores, about 1.5 s when every image exists
 * (the script then asks the engine three times).
 *
 * @param options script path and environment
 * @returns image name → image ID (`sha256:...`), for every name in {@linkcode IMAGE_NAMES}
 * @throws {Error} when the script fails (its stderr is included) or prints no valid map
 */
export async function buildImages(
  options: BuildImagesOptions = {},
): Promise<Record<ImageName, string>> {
  const script = options.script ??
    fileURLToPath(new URL("../../containers/build_images.sh", import.meta.url));
  const output = await new Deno.Command("bash", {
    args: [script],
    env: options.env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr).trim();
  if (!output.success) {
    throw new Error(
      `Cannot build the images: "${script}" exited with code ${output.code}:\n${stderr}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(output.stdout));
  } catch (error) {
    throw new Error(`Cannot build the images: "${script}" printed no JSON map: ${String(error)}`);
  }
  const map = parsed as Record<string, unknown>;
  for (const name of IMAGE_NAMES) {
    if (typeof map[name] !== "string" || !/^sha256:[0-9a-f]{64}$/.test(map[name] as string)) {
      throw new Error(`Cannot build the images: "${script}" printed no image ID for "${name}"`);
    }
  }
  return map as Record<ImageName, string>;
}
