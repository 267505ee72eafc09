/**
 * `ledgerbench reverify`: re-runs a (fixed) verifier over stored artifacts
 * with zero model calls and appends `rescore_episode` errata; the ledger is
 * never touched (seed 000, the 89-point incident).
 *
 * @module
 */
import { outputWidth, WIDTH_OPTION, widthHelpAt } from "./_table_layout.ts";
import { VERIFIER_IMAGE as DEFAULT_VERIFIER_IMAGE } from "../runner/docker/build_images.ts";
import { dockerAvailable } from "../runner/docker/docker_available.ts";
import { reverify } from "../runner/reverify.ts";
import { Erratum, Plan } from "../analysis/schema/records.ts";
import { nameListOption, parseCommandArgs, stringOption, textOption } from "./_args.ts";
import { ExitCode, type Io, UsageError } from "./_command.ts";
import { emit } from "./_output.ts";
import { displayId } from "../analysis/untrusted_text.ts";

/** `--verifier-image`: the plan field `environment.verifier_image`. */
const VERIFIER_IMAGE = {
  name: "verifier-image",
  schema: Plan.shape.environment.unwrap().shape.verifier_image,
  form: "a non-empty image reference",
};

/** `--reason`: the first line of every `rescore_episode` erratum's `explanation`. */
const REASON = {
  name: "reason",
  schema: Erratum.options.find((option) => option.shape.kind.value === "rescore_episode")!
    .shape.explanation,
  form: "a non-empty text",
};

/** Help text, an example first. */
export const help = `Re-run a (fixed) verifier over the stored artifacts of a ledger's episodes,
with zero model calls: no relay and no candidate container is started, only
the verifier's own container (network none). Each outcome is appended to the
errata file as a "rescore_episode" erratum (resolved true/false, or null when
the verifier faults again); the ledger is never rewritten (seed 000: the 16
artifacts of the 89-point run were re-verified this way). Running the same
verifier twice appends nothing new.

Re-verify every episode a verifier fault made invalid, with the fixed suite:
  deno task ledgerbench reverify runs/r1/ledger.jsonl --errata runs/r1/errata.jsonl \\
    --suite ~/.ledgerbench/suite-fixed

Re-verify two chosen episodes:
  deno task ledgerbench reverify runs/r1/ledger.jsonl --errata runs/r1/errata.jsonl \\
    --suite ~/.ledgerbench/suite-fixed --episodes r1/solver/b3-report/1,r1/looper/b3-report/1

USAGE:
  deno task ledgerbench reverify LEDGER --errata FILE --suite DIR [OPTIONS]

OPTIONS:
  --errata FILE        Errata file to append to (created when absent)
  --suite DIR          The suite whose verifiers to run (the fixed one)
  --artifacts DIR      Artifact store (default: artifacts/ beside the ledger)
  --verifier-image REF Verifier image (default ${DEFAULT_VERIFIER_IMAGE})
  --episodes ID,...    Episodes to re-verify (default: every row invalid with
                       "verifier_fault")
  --reason TEXT        Why; written into every erratum
${widthHelpAt(23)}
  --json               Print the errata appended as canonical JSON
  -h, --help           This help

EXIT STATUS:
  0 done (also when nothing needed re-verifying); 1 usage error; 2 bad input
  (ledger, errata, suite, a missing or altered artifact); 3 no Docker engine
`;

const OPTIONS = {
  errata: { type: "string" },
  suite: { type: "string" },
  artifacts: { type: "string" },
  "verifier-image": { type: "string" },
  episodes: { type: "string" },
  reason: { type: "string" },
  ...WIDTH_OPTION,
} as const;

/** Runs `reverify`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["LEDGER"] });
  const width = outputWidth(values);
  const ledger = positionals[0];
  const errata = stringOption(values, "errata");
  const suite = stringOption(values, "suite");
  if (errata === undefined) throw new UsageError('Missing option: "--errata"');
  if (suite === undefined) throw new UsageError('Missing option: "--suite"');
  const verifierImage = textOption(values, VERIFIER_IMAGE) ?? DEFAULT_VERIFIER_IMAGE;
  const episodes = nameListOption(values, "episodes");
  const reason = textOption(values, REASON);
  const engine = await dockerAvailable();
  if (!engine.available) {
    io.stderr(`error: No Docker engine is reachable: ${engine.reason}\nNothing was re-verified.\n`);
    return ExitCode.refused;
  }
  const dir = ledger.includes("/") ? ledger.slice(0, ledger.lastIndexOf("/")) : ".";
  const outcome = await reverify(ledger, {
    errata,
    suiteDir: suite,
    artifactsRoot: stringOption(values, "artifacts") ?? `${dir}/artifacts`,
    verifierImage,
    episodes,
    reason,
    onErratum: (erratum) => {
      if (erratum.kind === "rescore_episode") {
        io.stderr(`erratum ${erratum.erratum_id}: resolved ${erratum.resolved}\n`);
      }
    },
  });
  emit(io, {
    json: values.json === true,
    width,
    payload: {
      ledger,
      errata,
      appended: outcome.appended,
      skipped: outcome.skipped,
    },
    render: () =>
      [
        `reverify ${ledger}: ${outcome.appended.length} errata appended to ${errata}, zero model calls`,
        ...outcome.appended.map((e) =>
          e.kind === "rescore_episode"
            ? `  ${displayId(e.episode_id)}: resolved ${e.resolved}`
            : `  ${e.erratum_id}`
        ),
        ...outcome.skipped.map((s) => `  skipped ${displayId(s.episode_id)}: ${s.reason}`),
        "",
      ].join("\n"),
  });
  return ExitCode.ok;
}
