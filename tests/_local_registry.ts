/**
 * The local image registry the prebuilt-image tests push to and `freeze`
 * pulls from (Debian's docker-registry on 127.0.0.1:5000, which
 * `.ci/install_registry.sh` starts; these machines reach no public
 * registry). One rule, as tests/_docker_engine.ts has for the engine: without
 * it the tests are skipped with a loud message, but under `CI=true` it is a
 * failure.
 *
 * @module
 */

/** Where the registry answers (Docker reads a registry on 127.0.0.0/8 as insecure: plain HTTP). */
export const LOCAL_REGISTRY = "127.0.0.1:5000";

/**
 * Whether the registry answers `GET /v2/` with 200.
 *
 * @param testFile the test file, for the messages
 * @returns true when it answers; false (after the warning) when not, outside CI
 * @throws {Error} under `CI=true` when it does not answer
 */
export async function requireLocalRegistry(testFile: string): Promise<boolean> {
  let problem: string;
  try {
    const response = await fetch(`http://${LOCAL_REGISTRY}/v2/`, {
      signal: AbortSignal.timeout(5000),
    });
    await response.body?.cancel();
    if (response.status === 200) return true;
    problem = `GET /v2/ answered ${response.status}`;
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  const message = `no image registry answers on ${LOCAL_REGISTRY} (${problem}; ` +
    "run .ci/install_registry.sh)";
  if (Deno.env.get("CI") === "true") throw new Error(`${testFile} needs it: ${message}`);
  console.warn(`${testFile} skipped: ${message}`);
  return false;
}
