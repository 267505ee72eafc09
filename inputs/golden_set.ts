/**
 * Reading a judge's golden set (issue 14): the append-only JSONL file of
 * human labels `ledgerbench judge calibrate` holds the judge to, streaming,
 * with the ledger reader's conventions (file, line and field in every
 * problem).
 *
 * @module
 */
import { LedgerError } from "../analysis/ledger_error.ts";
import { GoldenLabel } from "../analysis/schema/records.ts";
import { openInput } from "./input_file.ts";
import { parseLine, scanJsonl } from "./jsonl.ts";

/** A loaded golden set. */
export interface GoldenSet {
  file: string;
  sha256: string;
  /** Every label in file order (revisions included). */
  labels: GoldenLabel[];
}

/**
 * Reads a golden set: each line one {@link GoldenLabel} (strict: an
 * unknown key is an error). A revision of an item (same `item_id`) must
 * keep its `kind`, `task_id` and answer text(s), and use a `label_version`
 * not used before for it (codes `label_conflict`, `duplicate_label`): a
 * revised label relabels the same answer, it never changes what was judged.
 * Cost: O(file).
 *
 * @param path the JSONL file
 * @returns the labels and the file's SHA-256
 * @throws {LedgerError} on the first problem, naming file, line and field; an empty file is `empty_file`
 */
export async function loadGoldenSet(path: string): Promise<GoldenSet> {
  const chunks = await openInput(path);
  const labels: GoldenLabel[] = [];
  const first = new Map<string, { label: GoldenLabel; line: number }>();
  const versions = new Set<string>();
  const summary = await scanJsonl(chunks, (bytes, line, text) => {
    const result = parseLine(GoldenLabel, { bytes, file: path, line, text });
    if (!result.ok) throw new LedgerError([result.problem]);
    const label = result.value;
    const problem = (code: "label_conflict" | "duplicate_label", field: string, message: string) =>
      new LedgerError([{ code, file: path, line, field, message }]);
    const key = JSON.stringify([label.item_id, label.label_version]);
    if (versions.has(key)) {
      throw problem(
        "duplicate_label",
        "label_version",
        `item "${label.item_id}" has label version ${label.label_version} twice`,
      );
    }
    versions.add(key);
    const earlier = first.get(label.item_id);
    if (earlier === undefined) {
      first.set(label.item_id, { label, line });
    } else {
      const changed = changedField(earlier.label, label);
      if (changed !== null) {
        throw problem(
          "label_conflict",
          changed,
          `item "${label.item_id}" changes its "${changed}" from line ${earlier.line}: a revision relabels the same answer`,
        );
      }
    }
    labels.push(label);
  });
  if (labels.length === 0) {
    throw new LedgerError([{
      code: "empty_file",
      file: path,
      line: 0,
      field: "",
      message: "the golden set holds no label",
    }]);
  }
  return { file: path, sha256: summary.sha256, labels };
}

/** The first field a revision may not change that it changed, or null. */
function changedField(before: GoldenLabel, after: GoldenLabel): string | null {
  if (before.kind !== after.kind) return "kind";
  if (before.task_id !== after.task_id) return "task_id";
  if (before.kind === "score" && after.kind === "score") {
    return before.answer === after.answer ? null : "answer";
  }
  if (before.kind === "pairwise" && after.kind === "pairwise") {
    if (before.answer_a !== after.answer_a) return "answer_a";
    if (before.answer_b !== after.answer_b) return "answer_b";
  }
  return null;
}
