/**
 * A slot's result file, authenticated: the `run` process gives each run a
 * fresh key that travels to the nodes as the upstream key does (in the
 * job's environment, never in the shared directory), the node writes the
 * HMAC-SHA256 (RFC 2104) of the result's exact bytes, bound to the slot's
 * request path, on the file's first line and the result's JSON on the
 * second; `run` appends a row only when the code checks out. A process that
 * can write the shared directory (any of the same user's, on any node) can
 * then neither flip a row's verdict between the node's write and `run`'s
 * poll nor move a row to another slot (seed 000: nothing but the harness
 * may decide whether an attempt counts).
 *
 * @module
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { Buffer } from "node:buffer";
import type { z } from "zod";
import { SlotResult } from "../../analysis/schema/executor_slot.ts";
import { readRegularFile } from "../../inputs/read_regular_file.ts";
import { writeFileAtomically } from "./write_file_atomically.ts";

/** The variable that carries a run's slot key to its nodes (through `sbatch --export=ALL`). */
export const SLOT_KEY_VARIABLE = "LEDGERBENCH_SLOT_KEY";

/** The largest result file read back: far above any row. */
const RESULT_BYTES = 64 * 1024 ** 2;

/**
 * A fresh slot key: 32 random bytes, hex.
 *
 * @returns the key
 */
export function newSlotKey(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
}

/**
 * The result file of the request at `requestPath`: beside it, with
 * `.result.json` for its `.json`.
 *
 * @param requestPath the request file
 * @returns the path of its result
 * @example
 * ```ts
 * import { slotResultPath } from "./slot_result_file.ts";
 * if (slotResultPath("/d/wave-0/slot-3.json") !== "/d/wave-0/slot-3.result.json") throw new Error();
 * ```
 */
export function slotResultPath(requestPath: string): string {
  return requestPath.replace(/(\.json)?$/, ".result.json");
}

/** HMAC-SHA256 of the result's text, bound to its request's path. */
function resultCode(key: string, requestPath: string, text: string): Buffer {
  return createHmac("sha256", key).update(`${requestPath}\n`).update(text).digest();
}

/**
 * Writes a slot's result beside its request, authenticated with `key`
 * (atomically: written, synced, renamed). Without a key (a node started
 * outside a run) the code line is empty, and `run` refuses the result.
 *
 * @param requestPath the request file the result answers
 * @param result the result
 * @param key the run's slot key, or undefined
 * @returns the path written
 */
export async function writeSlotResult(
  requestPath: string,
  result: z.input<typeof SlotResult>,
  key: string | undefined,
): Promise<string> {
  const text = JSON.stringify(result);
  const code = key === undefined ? "" : resultCode(key, requestPath, text).toString("hex");
  const path = slotResultPath(requestPath);
  await writeFileAtomically(path, `${code}\n${text}\n`);
  return path;
}

/**
 * Reads a slot's result and checks its code against the run's key.
 *
 * @param requestPath the request file the result answers
 * @param key the run's slot key
 * @returns the result
 * @throws {Error} when the file is not a regular file within its bound, its
 *   code does not check out (written without the run's key, or changed
 *   since), or its JSON is not a slot result
 */
export async function readSlotResult(requestPath: string, key: string): Promise<SlotResult> {
  const path = slotResultPath(requestPath);
  const text = new TextDecoder().decode(await readRegularFile(path, RESULT_BYTES));
  const newline = text.indexOf("\n");
  const code = Buffer.from(newline < 0 ? "" : text.slice(0, newline), "hex");
  const body = newline < 0 ? "" : text.slice(newline + 1).replace(/\n$/, "");
  const expected = resultCode(key, requestPath, body);
  if (code.length !== expected.length || !timingSafeEqual(code, expected)) {
    throw new Error(
      `"${path}" does not carry this run's authentication code: it was not written by the ` +
        "run's node, or was changed since",
    );
  }
  const parsed = SlotResult.safeParse(JSON.parse(body));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`"${path}": field "${issue.path.join(".")}": ${issue.message}`);
  }
  return parsed.data;
}
