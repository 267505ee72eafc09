import { deepEqual } from "node:assert/strict";
import { buildImages } from "./docker/build_images.ts";
import { dockerAvailable } from "./docker/docker_available.ts";
import { episodeLabels, removeOrphans, RUN_LABEL, RUNNER_LABEL } from "./remove_orphans.ts";
import { currentRunner, runnerLabel } from "./runner_identity.ts";

const engine = await dockerAvailable();

function docker(...args: string[]): string {
  const out = new Deno.Command("docker", { args, stdout: "piped", stderr: "piped" }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("episodeLabels() names the run, the episode and this runner", () => {
  deepEqual(episodeLabels({ run_id: "r", episode_id: "r/a/t/1" }), {
    "ledgerbench.run": "r",
    "ledgerbench.episode": "r/a/t/1",
    "ledgerbench.runner": runnerLabel(currentRunner()),
  });
});

Deno.test({
  name:
    "removeOrphans() removes the run's containers whose runner is gone or unrecorded, never a live runner's",
  ignore: !engine.available,
  async fn() {
    await buildImages();
    const runId = `orphans-${crypto.randomUUID().slice(0, 8)}`;
    const self = currentRunner();
    // A runner that is gone: this pid with another start time (a reused pid).
    const dead = runnerLabel({ ...self, start: self.start + 1 });
    const create = (...labels: string[]) =>
      docker(
        "create",
        "--network",
        "none",
        "--label",
        `${RUN_LABEL}=${runId}`,
        ...labels.flatMap((label) => ["--label", label]),
        "ledgerbench/verifier:latest",
      );
    const live = create(`${RUNNER_LABEL}=${runnerLabel(self)}`);
    const elsewhere = create(`${RUNNER_LABEL}=${runnerLabel({ ...self, host: "other-host" })}`);
    const gone = create(`${RUNNER_LABEL}=${dead}`);
    const unrecorded = create();
    try {
      // A cluster node holds no ledger lock: an unlabelled container is not known to be orphaned.
      deepEqual(await removeOrphans(runId, { unlabelled: false }), [gone]);
      deepEqual(await removeOrphans(runId), [unrecorded]);
      deepEqual(
        docker("ps", "-aq", "--no-trunc", "--filter", `label=${RUN_LABEL}=${runId}`)
          .split("\n").sort(),
        [live, elsewhere].sort(),
      );
    } finally {
      for (const id of [live, elsewhere, gone, unrecorded]) {
        new Deno.Command("docker", { args: ["rm", "-f", id], stdout: "null", stderr: "null" })
          .outputSync();
      }
    }
  },
});
