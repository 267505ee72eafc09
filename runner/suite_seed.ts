/**
 * Private suite seeds (seed 000, §01: "出题用一个私有的 256 位随机种子"):
 * 64 lower-case hex digits, kept in a file only its owner can read, never in
 * git.
 *
 * @module
 */

const SEED_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Checks that `seed` is a 256-bit seed written as 64 lower-case hex digits.
 *
 * @param seed the seed text
 * @param source where it came from, for the error message
 * @returns the seed
 * @throws {Error} when it is malformed
 */
export function checkSeed(seed: string, source: string): string {
  if (!SEED_PATTERN.test(seed)) {
    throw new Error(
      `Cannot use suite seed from ${source}: must be 64 lower-case hex digits (256 bits)`,
    );
  }
  return seed;
}

/**
 * Reads a seed file (one line, 64 hex digits; surrounding whitespace ignored).
 *
 * @param path the seed file
 * @returns the seed
 * @throws {Error} when the file is missing or malformed
 */
export async function readSeedFile(path: string): Promise<string> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new Error(`Cannot read suite seed "${path}": ${(error as Error).message}`);
  }
  return checkSeed(text.trim(), `"${path}"`);
}

/**
 * Creates a new private seed file from the system's cryptographic random
 * source, mode 0600. Refuses to overwrite an existing file.
 *
 * @param path where to write it
 * @returns the new seed
 * @throws {Error} when the file exists
 */
export async function createSeedFile(path: string): Promise<string> {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const seed = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  try {
    await Deno.writeTextFile(path, seed + "\n", { createNew: true, mode: 0o600 });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new Error(`Cannot create suite seed "${path}": the file exists`);
    }
    throw error;
  }
  return seed;
}
