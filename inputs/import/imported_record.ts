/**
 * Reading back what `import` kept of an attempt's conversation (an
 * {@link ImportedTranscript}, stored in the ledger's episode log).
 *
 * @module
 */
import { parseJsonObject } from "../../analysis/schema/strict_json.ts";
import type { ImportedTranscript } from "./imported_attempt.ts";

/**
 * The members an imported transcript kept (for Inspect: the sample's
 * `input`, `target`, `messages`, `output`, `events`, `attachments`,
 * `events_data`, those it had; for ATIF: the trajectory's), parsed from its
 * JSON text as the importer read it: strictly, Python's bare `NaN` and
 * `Infinity` allowed.
 *
 * @param transcript the stored transcript (an episode log's `imported`)
 * @returns its members, in the order the source wrote them
 * @throws {Error} when the text is not one JSON object (a store written by
 *   something other than `import`)
 * @example
 * ```ts
 * import { importedRecord } from "./imported_record.ts";
 * const kept = importedRecord({ format: "inspect", record: '{"messages":[],"target":NaN}' });
 * if (!Array.isArray(kept.messages) || !Number.isNaN(kept.target)) throw new Error();
 * ```
 */
export function importedRecord(transcript: ImportedTranscript): Record<string, unknown> {
  const bytes = new TextEncoder().encode(transcript.record);
  const parsed = parseJsonObject(bytes, "the file", transcript.record, { nonFinite: true });
  if (!parsed.ok) {
    throw new Error(
      `The stored ${transcript.format} transcript is not JSON: ${parsed.problem.message}`,
    );
  }
  return parsed.value;
}
