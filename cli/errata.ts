/**
 * `ledgerbench errata append`: appends one correction to an errata file
 * (seed 000: the original results are never rewritten; an error found later
 * is stored as an erratum and applied on top). The ledger is never touched.
 *
 * @module
 */
import { fitPairs, outputWidth, WIDTH_OPTION, widthHelpAt } from "./_table_layout.ts";
import { loadErrata } from "../inputs/errata.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { Erratum, InvalidReason } from "../analysis/schema/records.ts";
import { inputSha256 } from "../inputs/input_file.ts";
import { appendErratum } from "../runner/errata_file.ts";
import {
  type Checker,
  choiceOption,
  parseCommandArgs,
  type ParsedArgs,
  stringOption,
  textOption,
} from "./_args.ts";
import { ExitCode, type Io, UsageError } from "./_command.ts";
import { emit, wrap } from "./_output.ts";
import { displayId } from "../analysis/untrusted_text.ts";

/** Help text, an example first. */
export const help = `Append one correction to an append-only errata file. The ledger is never
rewritten: summarize, compare, censoring and sprt apply the errata on top of it
with --errata FILE and list every correction they applied.

Mark an episode invalid because its verifier crashed (seed 000's incident):
  deno task ledgerbench errata append errata.jsonl --kind invalidate_episode \\
    --episode r1/a/t3/1 --reason verifier_fault \\
    --explanation "Verifier crashed in setup; not a model failure" \\
    --ledger ledgers/examples/sample_ledger.jsonl

Record a re-verification of the stored artifact (zero model calls):
  deno task ledgerbench errata append errata.jsonl --kind rescore_episode \\
    --episode r1/a/t3/1 --resolved true --explanation "Re-verified with the fixed verifier"

Void a published summary by its SHA-256:
  deno task ledgerbench errata append errata.jsonl --kind void_summary \\
    --summary-sha256 <64 hex> --explanation "Counted a verifier fault as a failure"

USAGE:
  deno task ledgerbench errata append ERRATA_FILE --kind KIND --explanation TEXT [OPTIONS]

OPTIONS:
  --kind KIND             invalidate_episode, rescore_episode or void_summary
  --episode ID            The episode_id corrected (episode kinds)
  --reason R              invalidate_episode: ${InvalidReason.options.join(", ")}
  --resolved V            rescore_episode: true, false, or null (the verifier
                          failed again: the episode becomes invalid)
  --summary-sha256 H      void_summary: SHA-256 of the published summary
  --verifier-image-digest D, --artifact-digest D
                          rescore_episode: what the re-verification ran on
  --explanation TEXT      Why (required)
  --ledger FILE           Refuse an episode id that is not in this ledger
  --id ID                 erratum_id (default "errata-NNNN", the next line number)
  --created-at ISO        Timestamp, an ISO 8601 UTC datetime such as
                          2026-12-01T09:30:00Z (default: now)
${widthHelpAt(26)}
  --json                  Print the stored record as canonical JSON
  -h, --help              This help

The file is created when absent. A malformed errata file, a duplicate id, a
repeated correction or an unknown episode is refused with exit status 2 and
nothing is written. A correction repeats the latest erratum on the same
episode (or summary) when it has the same kind and the same fields (reason;
resolved and digests; summary), whatever its id, time and explanation: it
would change nothing. Reading errata (--errata) refuses such a repeat too.
`;

const OPTIONS = {
  kind: { type: "string" },
  episode: { type: "string" },
  reason: { type: "string" },
  resolved: { type: "string" },
  "summary-sha256": { type: "string" },
  "verifier-image-digest": { type: "string" },
  "artifact-digest": { type: "string" },
  explanation: { type: "string" },
  ledger: { type: "string" },
  id: { type: "string" },
  "created-at": { type: "string" },
  ...WIDTH_OPTION,
} as const;

const KINDS = ["invalidate_episode", "rescore_episode", "void_summary"] as const;

/** The erratum field each text option sets, and the form its value must have. */
const TEXT_FIELDS: Record<string, { field: string; form: string }> = {
  episode: { field: "episode_id", form: "a non-empty episode id" },
  "summary-sha256": { field: "summary_sha256", form: "a lower-case hex SHA-256 (64 digits)" },
  "verifier-image-digest": { field: "verifier_image_digest", form: 'a digest "sha256:<64 hex>"' },
  "artifact-digest": { field: "artifact_digest", form: 'a digest "sha256:<64 hex>"' },
  explanation: { field: "explanation", form: "a non-empty text" },
  id: { field: "erratum_id", form: "a non-empty id" },
  "created-at": {
    field: "created_at",
    form: "an ISO 8601 UTC datetime such as 2026-12-01T09:30:00Z",
  },
};

/**
 * Checks each text option given against its field of the `Erratum` schema
 * of `kind` ({@link textOption}), before anything is read or written.
 *
 * @throws {UsageError} naming the first option whose value the schema refuses
 */
function checkTextOptions(values: ParsedArgs["values"], kind: typeof KINDS[number]): void {
  const schema = Erratum.options.find((option) => option.shape.kind.value === kind)!;
  const shape: Record<string, Checker> = schema.shape;
  for (const [name, { field, form }] of Object.entries(TEXT_FIELDS)) {
    if (Object.hasOwn(shape, field)) textOption(values, { name, schema: shape[field], form });
  }
}

/** Flags each kind accepts besides the common ones. */
const KIND_FLAGS: Record<typeof KINDS[number], string[]> = {
  invalidate_episode: ["episode", "reason"],
  rescore_episode: ["episode", "resolved", "verifier-image-digest", "artifact-digest"],
  void_summary: ["summary-sha256"],
};

/** Runs `errata append`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, {
    required: ["append", "ERRATA_FILE"],
  });
  const width = outputWidth(values);
  if (positionals[0] !== "append") {
    throw new UsageError(`Unknown errata action: "${positionals[0]}" (expected "append")`);
  }
  const path = positionals[1];
  if (values.kind === undefined) throw new UsageError('Missing option: "--kind"');
  const kind = choiceOption(values, {
    name: "kind",
    choices: KINDS,
    fallback: "invalidate_episode",
  });
  for (const flag of Object.values(KIND_FLAGS).flat()) {
    if (values[flag] !== undefined && !KIND_FLAGS[kind].includes(flag)) {
      throw new UsageError(`Option "--${flag}" does not apply to kind "${kind}"`);
    }
  }
  checkTextOptions(values, kind);
  const required = (flag: string): string => {
    const value = stringOption(values, flag);
    if (value === undefined) throw new UsageError(`Missing option: "--${flag}" (kind "${kind}")`);
    return value;
  };
  const explanation = required("explanation");
  const record: Record<string, unknown> = { kind };
  if (kind === "invalidate_episode") {
    record.episode_id = required("episode");
    required("reason");
    record.invalid_reason = choiceOption(values, {
      name: "reason",
      choices: InvalidReason.options,
      fallback: "harness_error",
    });
  } else if (kind === "rescore_episode") {
    record.episode_id = required("episode");
    const resolved = choiceOption(values, {
      name: "resolved",
      choices: ["true", "false", "null"] as const,
      fallback: "null",
    });
    required("resolved");
    record.resolved = resolved === "null" ? null : resolved === "true";
    const verifier = stringOption(values, "verifier-image-digest");
    const artifact = stringOption(values, "artifact-digest");
    if (verifier !== undefined) record.verifier_image_digest = verifier;
    if (artifact !== undefined) record.artifact_digest = artifact;
  } else {
    record.summary_sha256 = required("summary-sha256");
  }
  record.explanation = explanation;
  record.created_at = stringOption(values, "created-at") ?? new Date().toISOString();
  record.erratum_id = stringOption(values, "id") ?? await nextId(path);

  const ledgerPath = stringOption(values, "ledger");
  let episodes: Set<string> | undefined;
  if (ledgerPath !== undefined) {
    const ledger = await loadLedger(ledgerPath);
    episodes = new Set(ledger.rows.map((row) => row.episode_id));
  }
  const entry = await appendErratum(path, record, { episodes });
  const sha256 = await inputSha256(path);
  const payload = {
    command: "errata append",
    errata: { path, sha256, line: entry.line },
    erratum: entry.erratum,
    checked_against_ledger: ledgerPath ?? null,
  };
  emit(io, {
    json: values.json === true,
    width,
    payload,
    render: () => {
      const e = entry.erratum;
      const target = e.kind === "void_summary"
        ? `summary ${e.summary_sha256}`
        : `"${displayId(e.episode_id)}"`;
      let text = `appended erratum "${e.erratum_id}" to ${path}, line ${entry.line}\n\n`;
      text += fitPairs([
        ["kind", e.kind],
        ["target", target],
        ...(e.kind === "invalidate_episode"
          ? [["reason", e.invalid_reason] as [string, string]]
          : []),
        ...(e.kind === "rescore_episode"
          ? [["resolved", String(e.resolved)] as [string, string]]
          : []),
        ["created at", e.created_at],
        ["errata sha256", sha256],
        [
          "checked",
          ledgerPath === undefined ? "episode not checked (no --ledger)" : `against ${ledgerPath}`,
        ],
      ], width);
      text += wrap(`explanation: ${e.explanation}`, 78, "  ");
      text += "the ledger was not modified; apply the errata with --errata " + path + "\n";
      return text;
    },
  });
  return ExitCode.ok;
}

/** `errata-NNNN` with NNNN one more than the errata already in the file. */
async function nextId(path: string): Promise<string> {
  let count = 0;
  try {
    await Deno.lstat(path);
    count = (await loadErrata(path)).entries.length;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return `errata-${String(count + 1).padStart(4, "0")}`;
}
