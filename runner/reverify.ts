/**
 * Re-verification of stored artifacts with zero model calls (seed 000, §02:
 * "修好脚本、用原始产物重新验一遍，一次模型都没调，16 份产物全部通过"): a
 * (fixed) verifier runs over the content-addressed artifacts of chosen ledger
 * rows, and each outcome is appended to the errata file as a
 * `rescore_episode` erratum. The ledger is never touched: the original rows
 * stay as they were written, and analysis applies the errata on top.
 *
 * No relay, no forwarder and no candidate container is started: the only
 * container is the verifier's (network none), so no model can be called.
 *
 * @module
 */
import { loadErrata } from "../inputs/errata.ts";
import { pathExists } from "../inputs/input_file.ts";
import { loadLedger } from "../inputs/ledger.ts";
import type { Episode, Erratum } from "../analysis/schema/records.ts";
import { repeatedCorrection } from "../analysis/errata.ts";
import { appendErratum } from "./errata_file.ts";
import { loadSuite } from "../inputs/suite.ts";
import { createRunTempDir, removeDeadRunnerTempDirs } from "./run_temp_dir.ts";
import { openArtifact } from "./sandbox/artifact_store.ts";
import { runVerifier } from "./sandbox/run_verifier.ts";
import { judgedTaskIds, type Suite, taskPaths } from "../analysis/schema/suite_manifest.ts";
import { type TaskSandboxSettings, taskVerifierOptions } from "./sandbox/docker_sandbox.ts";
import { exportImageBundle, type ImageBundle } from "./sandbox/image_bundle.ts";
import { taskSandboxSettings } from "./task_settings.ts";

/** Options of {@link reverify}. */
export interface ReverifyOptions {
  /** The errata file to append to (created when absent). */
  errata: string;
  /** The suite whose (fixed) verifiers to run. */
  suiteDir: string;
  /** The artifact store the run wrote. */
  artifactsRoot: string;
  /** Verifier image reference. */
  verifierImage: string;
  /**
   * Episodes to re-verify; default every row that is invalid with
   * `verifier_fault` (the rows a verifier bug made unscorable).
   */
  episodes?: readonly string[];
  /** Why the re-verification happens; written into each erratum. */
  reason?: string;
  /** Clock for `created_at`; default the system clock. */
  now?: () => Date;
  /** Called after each erratum is appended. */
  onErratum?: (erratum: Erratum) => void;
}

/** What a re-verification did. */
export interface ReverifyOutcome {
  /** Errata appended, in ledger order of their episodes. */
  appended: Erratum[];
  /** Episodes left alone, with why (no artifact, already re-verified by this verifier). */
  skipped: Array<{ episode_id: string; reason: string }>;
}

/**
 * Re-verifies stored artifacts and appends `rescore_episode` errata.
 *
 * Rule per chosen row: open the artifact by the row's `artifact_digest`
 * (its content is checked against the digest); run the suite's verifier for
 * the row's task in the verifier container; a verdict gives `resolved`
 * true/false, a verifier fault gives `resolved` null (still invalid, as
 * `verifier_fault`). The erratum id is `rescore/<episode_id>/<12 hex of the
 * hidden verifier files' digest>`, so running the same fixed verifier twice
 * appends nothing new (the second time the episode is skipped); an outcome
 * that would repeat the episode's latest correction (`repeatedCorrection`,
 * issue 23: same verdict on the same image and artifact, from other hidden
 * files) is skipped too, naming the erratum it repeats. Cost: one
 * verifier container per row; zero model calls.
 *
 * @param ledger the ledger file (read strictly, never written)
 * @param options errata file, suite, artifact store, verifier image, selection
 * @returns the errata appended and the episodes skipped
 * @throws {LedgerError} when the ledger or the errata file fails its strict read
 * @throws {Error} when a named episode is not in the ledger, or an artifact is
 *   missing or altered
 */
export async function reverify(ledger: string, options: ReverifyOptions): Promise<ReverifyOutcome> {
  const { rows } = await loadLedger(ledger);
  const suite = await loadSuite(options.suiteDir);
  const byId = new Map(rows.map((row) => [row.episode_id, row]));
  let chosen: Episode[];
  if (options.episodes !== undefined) {
    chosen = options.episodes.map((id) => {
      const row = byId.get(id);
      if (row === undefined) {
        throw new Error(`Cannot re-verify episode "${id}": it is not in "${ledger}"`);
      }
      return row;
    });
  } else {
    chosen = rows.filter((row) =>
      row.status === "invalid" && row.invalid_reason === "verifier_fault"
    );
  }
  const existing = new Set<string>();
  // The latest correction of each episode: a re-verification that would repeat it is skipped.
  const latest: Parameters<typeof repeatedCorrection>[0] = new Map();
  let lines = 0;
  if (await pathExists(options.errata)) {
    for (const entry of (await loadErrata(options.errata)).entries) {
      existing.add(entry.erratum.erratum_id);
      repeatedCorrection(latest, entry);
      lines = entry.line;
    }
  }
  const ids = new Set(rows.map((row) => row.episode_id));
  const now = options.now ?? (() => new Date());
  const appended: Erratum[] = [];
  const skipped: ReverifyOutcome["skipped"] = [];
  // The hidden files' copies live in this process's runner directory (run_temp_dir.ts).
  await removeDeadRunnerTempDirs();
  await using temp = await createRunTempDir();
  let verifierKit: ImageBundle | undefined;
  const judged = judgedTaskIds(suite.manifest);
  const steps = new Set(
    suite.manifest.tasks.filter((task) => task.steps !== undefined).map((task) => task.task_id),
  );
  for (const row of chosen) {
    if (judged.has(row.task_id)) {
      skipped.push({
        episode_id: row.episode_id,
        reason: "its task is judged by the LLM judge: judging again takes model calls, " +
          "never made by a re-verification",
      });
      continue;
    }
    if (row.artifact_digest === null) {
      skipped.push({ episode_id: row.episode_id, reason: "the row has no stored artifact" });
      continue;
    }
    if (steps.has(row.task_id)) {
      skipped.push({
        episode_id: row.episode_id,
        reason: "its task has steps, each verified in the live environment after the agent's " +
          "run for it: the stored artifact holds only the last step's workspace",
      });
      continue;
    }
    const artifact = await openArtifact(options.artifactsRoot, row.artifact_digest);
    const verifierDir = taskPaths(suite.dir, row.task_id).verifier;
    const settings = reverifySettings(suite, row);
    const kit = settings.environmentImage === undefined
      ? undefined
      : (verifierKit ??= await exportImageBundle(options.verifierImage, `${temp.path}/kit`)).dir;
    const outcome = await runVerifier(
      settings.environmentImage ?? options.verifierImage,
      { artifact, verifierDir },
      {
        ...taskVerifierOptions(settings, kit),
        labels: { "ledgerbench.role": "reverifier", "ledgerbench.episode": row.episode_id },
        tempDir: temp.path,
      },
    );
    const erratumId = `rescore/${row.episode_id}/${outcome.verifierDigest.slice(7, 19)}`;
    if (existing.has(erratumId)) {
      skipped.push({ episode_id: row.episode_id, reason: `already re-verified ("${erratumId}")` });
      continue;
    }
    const result = outcome.kind === "verdict"
      ? `verdict resolved=${outcome.verdict.resolved}`
      : `verifier fault ${outcome.fault} again: ${outcome.detail}`;
    const erratum: Erratum = {
      schema_version: 1,
      kind: "rescore_episode",
      erratum_id: erratumId,
      created_at: now().toISOString(),
      episode_id: row.episode_id,
      resolved: outcome.kind === "verdict" ? outcome.verdict.resolved : null,
      verifier_image_digest: outcome.imageId as `sha256:${string}`,
      artifact_digest: row.artifact_digest,
      explanation: [
        options.reason ?? "re-verification of the stored artifact",
        "zero model calls (no relay, no candidate container)",
        `hidden verifier files ${outcome.verifierDigest}`,
        `suite ${suite.sha256}`,
        `original row: ${row.status}${row.invalid_reason ? ` (${row.invalid_reason})` : ""}`,
        result,
      ].join("; "),
    };
    const repeated = repeatedCorrection(latest, { line: lines + 1, erratum });
    if (repeated !== null) {
      skipped.push({
        episode_id: row.episode_id,
        reason:
          `the outcome repeats erratum "${repeated.erratum.erratum_id}" (line ${repeated.line}): ` +
          "nothing to correct",
      });
      continue;
    }
    const stored = await appendErratum(options.errata, erratum, { episodes: ids });
    lines++;
    existing.add(erratumId);
    appended.push(stored.erratum);
    options.onErratum?.(stored.erratum);
  }
  return { appended, skipped };
}

/**
 * The task's settings for re-verifying `row`: the suite's entry for its task
 * (entry, verdict, mounts, resources, as the suite says now) and, for a task
 * with its own environment, the image the row's verifier ran
 * (`environment.task_image_digest`), so the fixed verifier runs where the
 * original did.
 *
 * @throws {Error} when the row's task is not in the suite
 */
function reverifySettings(suite: Suite, row: Episode): TaskSandboxSettings {
  const entry = suite.manifest.tasks.find((task) => task.task_id === row.task_id);
  if (entry === undefined) {
    throw new Error(
      `Cannot re-verify episode "${row.episode_id}": task "${row.task_id}" is not in the suite`,
    );
  }
  const image = row.environment?.task_image_digest;
  return taskSandboxSettings(
    entry,
    {
      task_id: row.task_id,
      lane: row.lane,
      ...(image === undefined ? {} : { environment: { image, image_digest: image } }),
    },
    undefined,
    suite.dir,
  );
}
