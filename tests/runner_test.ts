/**
 * The runner on the real Docker engine (issue 3, "Tests"): verifier setup
 * fault → invalid (seed 000's 89-point incident end to end, with reverify),
 * relay 429 → `rate_limited`, token cap → `token_cap`, response without usage
 * or model id → `evidence_missing`, a server past the plan's `model_limits`
 * (output cap, context limit) → `evidence_missing`, zero calls → scored failure, a crash →
 * `error`, rerun-task and SPRT batches, image digest changes (at start and
 * mid-run), the same rows at --parallel 1 and 3, a crashed episode's stored
 * log as `show` prints it, and the README's main job
 * (`demo`) end to end with its reports verified.
 *
 * Skipped when no engine answers (CI has one: .ci/install_docker.sh).
 *
 * @module
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { createHash } from "node:crypto";
import { applyErrata } from "../analysis/errata.ts";
import { loadErrata } from "../inputs/errata.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { type Episode, Plan, type PlannedAgent } from "../analysis/schema/records.ts";
import { summarizeAgents } from "../analysis/summarize_agents.ts";
import { validateLedgerFile } from "../inputs/validate_ledger_file.ts";
import { buildImages, type ImageName } from "../runner/docker/build_images.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { ledgerErrors } from "./_ledger_fits_plan.ts";
import { cli, cliCommand } from "./_cli_run.ts";
import { EnvironmentMismatchError } from "../runner/environment_check.ts";
import {
  type FreezeOptions,
  freezePlan,
  type FrozenPlan,
  writePlan,
} from "../runner/freeze_plan.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { openEpisodeLog } from "../runner/episode_log_store.ts";
import type { ProviderScriptInput } from "../analysis/schema/provider_script.ts";
import { type ScriptedProvider, startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import type { Upstream } from "../runner/relay/upstream.ts";
import { runPlan, type RunPlanOptions } from "../runner/run_plan.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { type Suite, taskPaths } from "../analysis/schema/suite_manifest.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import type { SuiteDefinition, TemplateOptions } from "../suites/_template.ts";
import { a1Locate } from "../suites/templates/a1_locate.ts";
import { b1Range } from "../suites/templates/b1_range.ts";
import { b3Report } from "../suites/templates/b3_report.ts";
import { c1Counts } from "../suites/templates/c1_counts.ts";
import { c2FilterSum } from "../suites/templates/c2_filter_sum.ts";

const ENGINE = await requireDockerEngine("tests/runner_test.ts");
const ignore = !ENGINE.available;
const SEED = "5eed0000".repeat(8);
let built: Promise<Record<ImageName, string>> | null = null;
const images = () => (built ??= buildImages());

const one = (...templates: SuiteDefinition["templates"]): SuiteDefinition => ({
  suite_id: "runner-test",
  lane_weights: { A: 8, B: 24, C: 12 },
  templates,
});

interface AgentSpec {
  agent_id: string;
  image: ImageName;
  /** Image reference frozen in the plan; default `<image>:latest`. */
  ref?: string;
  script?: (suite: Suite) => Promise<ProviderScriptInput>;
  /** Its upstream reports the script's completion tokens past the request's output cap. */
  ignoreOutputCap?: boolean;
  /** The plan's environment for its container. */
  env?: Record<string, string>;
}

interface Fixture {
  dir: string;
  suite: Suite;
  plan: FrozenPlan;
  providers: Map<string, ScriptedProvider>;
  upstream: (agent: PlannedAgent) => Upstream;
  run(options?: Partial<RunPlanOptions>): ReturnType<typeof runPlan>;
  close(): Promise<void>;
}

async function fixture(
  definition: SuiteDefinition,
  agents: AgentSpec[],
  plan: Partial<FreezeOptions> = {},
  generate: TemplateOptions = {},
): Promise<Fixture> {
  const ids = await images();
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-runner-test-" });
  const suite = await generateSuite(definition, { seed: SEED, dir: `${dir}/suite`, ...generate });
  const frozen = await writePlan(
    `${dir}/plan.json`,
    freezePlan(suite, {
      plan_id: "t",
      created_at: new Date().toISOString(),
      agents: agents.map((a) => ({
        agent_id: a.agent_id,
        image: a.ref ?? `${a.image}:latest`,
        image_digest: ids[a.image],
        ...(a.env === undefined ? {} : { env: a.env }),
      })),
      order_seed: 1,
      price_table_id: "test",
      runner_version: await runnerVersion(),
      verifier_image: "ledgerbench/verifier:latest",
      verifier_image_digest: ids["ledgerbench/verifier"],
      ...plan,
    }),
  );
  const providers = new Map<string, ScriptedProvider>();
  const upstreams = new Map<string, Upstream>();
  for (const agent of agents) {
    const key = crypto.randomUUID();
    const script = agent.script
      ? await agent.script(suite)
      : await suiteProviderScript(suite, { model: `m-${agent.agent_id}` });
    const provider = await startScriptedProvider(script, {
      apiKey: key,
      ignoreOutputCap: agent.ignoreOutputCap === true,
    });
    providers.set(agent.agent_id, provider);
    upstreams.set(agent.agent_id, { baseUrl: provider.baseUrl, key });
  }
  const upstream = (agent: PlannedAgent) => upstreams.get(agent.agent_id)!;
  return {
    dir,
    suite,
    plan: frozen,
    providers,
    upstream,
    run: (options = {}) =>
      runPlan({
        plan: frozen,
        suite: suite.dir,
        ledger: `${dir}/ledger.jsonl`,
        upstream,
        ...options,
      }),
    close: async () => {
      for (const provider of providers.values()) await provider.close();
      await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const byAgent = (rows: Episode[]) => Object.fromEntries(rows.map((row) => [row.agent_id, row]));

/** What must not depend on scheduling: everything but times, wall clock, the log and the chain link. */
function essence(row: Episode): string {
  // The episode log records latencies, so its digest is a time too.
  const {
    prev_sha256: _p,
    started_at: _s,
    finished_at: _f,
    wall_ms: _w,
    episode_log_digest: _l,
    ...rest
  } = row;
  return JSON.stringify(rest);
}

Deno.test({
  name:
    "runner: 429, token cap, zero calls and a crash land in their own stop reasons; same rows at --parallel 3 and 1",
  ignore,
  async fn() {
    const f = await fixture(one(c2FilterSum), [
      { agent_id: "ok", image: "ledgerbench/agent-solver" },
      {
        agent_id: "ratelimited",
        image: "ledgerbench/agent-solver",
        script: (suite) =>
          suiteProviderScript(suite, { overrides: { "c2-filter-sum": { status: 429 } } }),
      },
      { agent_id: "looper", image: "ledgerbench/agent-looper" },
      {
        agent_id: "budgeted",
        image: "ledgerbench/agent-looper",
        env: { LOOPER_BUDGETED: "1" },
      },
      { agent_id: "nocall", image: "ledgerbench/agent-nocall" },
      { agent_id: "crasher", image: "ledgerbench/agent-crasher" },
    ], { caps: { token_cap: 1000 } });
    try {
      const outcome = await f.run({ parallel: 3 });
      ok(outcome.complete);
      const rows = (await loadLedger(`${f.dir}/ledger.jsonl`)).rows;
      equal(rows.length, 6);
      const row = byAgent(rows);
      const ids = await images();

      // A plain pass, with the relay's evidence and the frozen environment.
      deepEqual(
        [row.ok.status, row.ok.resolved, row.ok.stop_reason, row.ok.model_calls],
        ["scored", true, "completed", 1],
      );
      equal(row.ok.evidence?.server_model_id, "m-ok");
      equal(row.ok.evidence?.usage_source, "server");
      match(row.ok.evidence?.request_fingerprint ?? "", /^[0-9a-f]{64}$/);
      deepEqual(row.ok.environment, {
        agent_image_digest: ids["ledgerbench/agent-solver"],
        verifier_image_digest: ids["ledgerbench/verifier"],
        runner_version: await runnerVersion(),
        sandbox: "docker",
        plan_sha256: f.plan.sha256,
      });
      match(row.ok.artifact_digest ?? "", /^sha256:[0-9a-f]{64}$/);
      deepEqual(row.ok.caps, { token_cap: 1000, step_cap: 10, wall_ms_cap: 60_000 });

      // Upstream 429 under policy halt: censored as rate_limited, never an ordinary failure (seed 003).
      deepEqual(
        [row.ratelimited.status, row.ratelimited.stop_reason, row.ratelimited.model_calls],
        ["scored", "rate_limited", 1],
      );
      match(row.ratelimited.notes, /candidate exit code 2/);

      // The looper spends until the relay refuses: token_cap.
      deepEqual([row.looper.status, row.looper.resolved, row.looper.stop_reason], [
        "scored",
        false,
        "token_cap",
      ]);
      // The cap as a ceiling (issue 21): each call reserves its prompt bound (the model has
      // no published tokenizer: a token a byte, body bytes + 48 for a cap field) and goes with
      // an output cap of what is left. Call 1, 307 bytes: bound 355, max_tokens
      // 1000 - 355 = 645 injected, 60 + 8 used; call 2, 421 bytes: bound 469, max_tokens
      // 1000 - 68 - 469 = 463, 72 + 1 used; call 3, 502 bytes: bound 550, max_tokens
      // 1000 - 141 - 550 = 309, 76 + 1 used; call 4, 583 bytes: bound 631, max_tokens
      // 1000 - 218 - 631 = 151, 81 + 1 used; call 5, 664 bytes: bound 712 > 1000 - 300 left,
      // refused. 300 tokens, within the cap.
      deepEqual(
        [row.looper.model_calls, row.looper.prompt_tokens, row.looper.completion_tokens],
        [4, 289, 11],
      );
      const looper = await openEpisodeLog(`${f.dir}/artifacts`, row.looper.episode_log_digest!);
      deepEqual(
        looper.calls.map((call) => [call.refusal, call.prompt_bound, call.output_cap]),
        [
          [null, 355, 645],
          [null, 469, 463],
          [null, 550, 309],
          [null, 631, 151],
          ["token_cap", undefined, undefined],
        ],
      );

      // The same looper told its budget by the relay's headers (budget_left.ts) stops before
      // the cap: no call refused, its own stop, within the cap.
      const budgeted = await openEpisodeLog(`${f.dir}/artifacts`, row.budgeted.episode_log_digest!);
      // (Its rule: stop when fewer tokens are left than its last prompt's bound and a quarter:
      // after call 4, 700 left < 1.25 x 631.)
      deepEqual(budgeted.calls.map((call) => call.refusal), [null, null, null, null]);
      deepEqual([row.budgeted.stop_reason, row.budgeted.model_calls], ["completed", 4]);
      ok(row.budgeted.prompt_tokens! + row.budgeted.completion_tokens! <= 300);

      // Zero model calls: a scored failure, not an invalid episode (seed 000).
      deepEqual(
        [row.nocall.status, row.nocall.resolved, row.nocall.model_calls, row.nocall.prompt_tokens],
        ["scored", false, 0, 0],
      );
      match(row.nocall.notes, /zero model calls: a scored failure \(seed 000\)/);

      // A crash after one call: stop reason error, scored (the agent's own failure).
      deepEqual(
        [
          row.crasher.status,
          row.crasher.resolved,
          row.crasher.stop_reason,
          row.crasher.model_calls,
        ],
        ["scored", false, "error", 1],
      );
      match(row.crasher.notes, /candidate exit code 70/);

      // The same plan at --parallel 1 writes the same set of rows.
      const again = await f.run({ parallel: 1, ledger: `${f.dir}/ledger-serial.jsonl` });
      ok(again.complete);
      const serial = (await loadLedger(`${f.dir}/ledger-serial.jsonl`)).rows;
      deepEqual(serial.map(essence).sort(), rows.map(essence).sort());

      // Both runner-written ledgers pass `validate --plan` (issue 21): the looper's tokens
      // within the cap, every stop reason one the relay can justify.
      deepEqual(await ledgerErrors(`${f.dir}/ledger.jsonl`, f.plan.value), []);
      deepEqual(await ledgerErrors(`${f.dir}/ledger-serial.jsonl`, f.plan.value), []);
    } finally {
      await f.close();
    }
  },
});

Deno.test({
  name: "runner: a crashed episode's row points at its stored log, and show prints it",
  ignore,
  async fn() {
    // Issue 8: a failed row said only "candidate exit code 70"; its stderr and its call are evidence.
    const f = await fixture(one(a1Locate), [
      { agent_id: "crasher", image: "ledgerbench/agent-crasher" },
    ]);
    try {
      ok((await f.run()).complete);
      const [row] = (await loadLedger(`${f.dir}/ledger.jsonl`)).rows;
      deepEqual([row.status, row.resolved, row.stop_reason, row.model_calls], [
        "scored",
        false,
        "error",
        1,
      ]);
      deepEqual(await ledgerErrors(`${f.dir}/ledger.jsonl`, f.plan.value), []);
      match(row.episode_log_digest ?? "", /^sha256:[0-9a-f]{64}$/);
      // The log sits in the run's artifact store (artifacts/ beside the ledger), named by its hash.
      const hex = row.episode_log_digest!.slice("sha256:".length);
      const file = `${f.dir}/artifacts/sha256/${hex}.episode-log.json`;
      equal(createHash("sha256").update(await Deno.readFile(file)).digest("hex"), hex);

      const shown = await cli("show", row.episode_id, "--ledger", `${f.dir}/ledger.jsonl`);
      equal(shown.stderr, "");
      equal(shown.code, 0);
      ok(shown.stdout.includes(`\nnotes: ${row.notes}\n`), shown.stdout);
      // The call: its server-reported model and usage (the scripted provider's for this
      // task), as the row counts them; the latency is the only value that varies.
      deepEqual([row.prompt_tokens, row.completion_tokens], [106, 11]);
      match(
        shown.stdout,
        /\n1 {2}\/v1\/chat\/completions {5}200 {2}m-crasher {5}106 {10}11 {6}0 +\d+ {2}forwarded\n/,
      );
      match(
        shown.stdout,
        /\n {2}#1 \/v1\/chat\/completions: request \d+ bytes, response \d+ bytes\n/,
      );
      // the candidate's stderr tail, then the verifier's output (issue 22)
      ok(
        shown.stdout.includes(
          "\nstderr tail:\n  | crasher: call 1 answered HTTP 200\n  | crasher: crashing on purpose\n" +
            "\nverifier stdout tail (sealed mode):\n",
        ),
        shown.stdout,
      );
      // The key never reaches the log.
      const key = f.upstream({ agent_id: "crasher" } as PlannedAgent).key;
      ok(!(await Deno.readTextFile(file)).includes(key));
    } finally {
      await f.close();
    }
  },
});

Deno.test({
  name: "runner: a harness failure's invalid row points at its stored log too",
  ignore,
  async fn() {
    const f = await fixture(one(a1Locate), [
      { agent_id: "crasher", image: "ledgerbench/agent-crasher" },
    ]);
    try {
      // An upstream the relay refuses to forward to: the relay cannot start.
      await f.run({ upstream: () => ({ baseUrl: "ftp://upstream.invalid/v1", key: "k" }) });
      const [row] = (await loadLedger(`${f.dir}/ledger.jsonl`)).rows;
      deepEqual([row.status, row.invalid_reason, row.model_calls], [
        "invalid",
        "harness_error",
        null,
      ]);
      const log = await openEpisodeLog(`${f.dir}/artifacts`, row.episode_log_digest!);
      // Nothing ran: no output was captured and no relay recorded a call.
      deepEqual(log, {
        format: "ledgerbench-episode-log/1",
        episode_id: row.episode_id,
        stdout_tail: null,
        stderr_tail: null,
        calls: [],
        calls_omitted: 0,
        bodies: [],
        bodies_omitted: 0,
      });
      const shown = await cli("show", row.episode_id, "--ledger", `${f.dir}/ledger.jsonl`);
      equal(shown.code, 0);
      ok(shown.stdout.includes("\ncalls: 0\n"), shown.stdout);
      ok(shown.stdout.endsWith(
        "stderr tail:\n  (not captured: the harness failed before the candidate's output)\n",
      ));
    } finally {
      await f.close();
    }
  },
});

Deno.test({
  name: "runner: the forger's links and hostile scripts are scored failures, and the batch goes on",
  ignore,
  async fn() {
    // Issue 7: a link to /verifier/expected.txt passed a1; a script reading /verifier/cases.txt
    // passed b1; a stage marker written to /proc/1/fd/2 turned the row invalid under halt.
    const f = await fixture(one(a1Locate, b1Range, b3Report), [
      { agent_id: "forger", image: "ledgerbench/agent-forger" },
    ]);
    try {
      const outcome = await f.run({ parallel: 2 });
      ok(outcome.complete);
      equal(outcome.halted, null);
      const rows = (await loadLedger(`${f.dir}/ledger.jsonl`)).rows;
      deepEqual(
        rows.map((r) => [r.task_id, r.status, r.resolved, r.model_calls]).sort(),
        [["a1-locate", "scored", false, 1], ["b1-range", "scored", false, 1], [
          "b3-report",
          "scored",
          false,
          1,
        ]],
      );
      deepEqual(await ledgerErrors(`${f.dir}/ledger.jsonl`, f.plan.value), []);
      // No hidden file's content is in any row.
      for (const row of rows) {
        const verifier = taskPaths(f.suite.dir, row.task_id).verifier;
        for await (const entry of Deno.readDir(verifier)) {
          if (entry.name.endsWith(".sh")) continue;
          const hidden = (await Deno.readTextFile(`${verifier}/${entry.name}`)).trim();
          equal(JSON.stringify(row).includes(hidden), false, `${row.task_id}: ${entry.name}`);
        }
      }
    } finally {
      await f.close();
    }
  },
});

Deno.test({
  name:
    "runner: a response without usage or without model id is evidence_missing and halts the batch",
  ignore,
  async fn() {
    const f = await fixture(one(c2FilterSum), [
      {
        agent_id: "nousage",
        image: "ledgerbench/agent-solver",
        script: (suite) =>
          suiteProviderScript(suite, {
            overrides: { "c2-filter-sum": { content: "x", usage: null } },
          }),
      },
      {
        agent_id: "nomodel",
        image: "ledgerbench/agent-solver",
        script: (suite) =>
          suiteProviderScript(suite, {
            overrides: { "c2-filter-sum": { content: "x", model: null } },
          }),
      },
    ]);
    try {
      const outcome = await f.run({ parallel: 2 });
      equal(outcome.halted?.kind, "invalid_episode");
      const row = byAgent((await loadLedger(`${f.dir}/ledger.jsonl`)).rows);
      for (const agent of ["nousage", "nomodel"]) {
        deepEqual([row[agent].status, row[agent].resolved, row[agent].invalid_reason], [
          "invalid",
          null,
          "evidence_missing",
        ]);
      }
      match(row.nousage.notes, /no server-reported "usage"/);
      equal(row.nousage.evidence?.usage_source, "absent");
      match(row.nomodel.notes, /no server-reported "model"/);
      await rejects(f.run({ resume: true }), /whole run must be redone/);
    } finally {
      await f.close();
    }
  },
});

Deno.test({
  name:
    "runner: seed 000's 89-point incident end to end through the CLI: setup fault → invalid, fixed verifier → reverify → errata",
  ignore,
  async fn() {
    await images();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-incident-" });
    try {
      const definition = one(b3Report);
      // The 2026-09-04 verifier: cp -R of the read-only snapshot without chmod, then rm.
      const faulty = await generateSuite(definition, {
        seed: SEED,
        dir: `${dir}/suite-faulty`,
        faultyVerifierSetup: true,
      });
      for (const agent of ["deepseek", "glm"]) {
        const script = await suiteProviderScript(faulty, { model: `m-${agent}` });
        await Deno.writeTextFile(`${dir}/${agent}.json`, JSON.stringify(script));
      }
      const freeze = await cli(
        "freeze",
        "--without-agent-check",
        "the test freezes plans without an agent check",
        "--suite",
        faulty.dir,
        "--out",
        `${dir}/plan.json`,
        "--order-seed",
        "1",
        "--agent",
        "deepseek=ledgerbench/agent-solver:latest",
        "--agent",
        "glm=ledgerbench/agent-solver:latest",
      );
      equal(freeze.code, 0, freeze.stderr);
      const ledger = `${dir}/run/ledger.jsonl`;
      await Deno.mkdir(`${dir}/run`);
      const run = await cli(
        "run",
        "--plan",
        `${dir}/plan.json`,
        "--suite",
        faulty.dir,
        "--ledger",
        ledger,
        "--parallel",
        "2",
        "--provider-script",
        `deepseek=${dir}/deepseek.json`,
        "--provider-script",
        `glm=${dir}/glm.json`,
      );
      // Halted: an invalid episode under policy halt; never counted as the models' failure.
      equal(run.code, 3, run.stderr);
      match(run.stdout, /halted: .*\(verifier_fault\)/);
      const rows = (await loadLedger(ledger)).rows;
      equal(rows.length, 2);
      for (const row of rows) {
        deepEqual([row.status, row.resolved, row.invalid_reason, row.model_calls], [
          "invalid",
          null,
          "verifier_fault",
          1,
        ]);
        match(row.notes, /verifier fault setup_failed: .*Permission denied/);
      }
      const ledgerSha = createHash("sha256").update(await Deno.readFile(ledger)).digest("hex");

      // The fix is one line (chmod -R u+rwX); tasks, weights and expected outputs are unchanged.
      const fixed = await generateSuite(definition, { seed: SEED, dir: `${dir}/suite-fixed` });
      const errata = `${dir}/run/errata.jsonl`;
      const reverify = await cli(
        "reverify",
        ledger,
        "--errata",
        errata,
        "--suite",
        fixed.dir,
        "--reason",
        "verifier setup fix (chmod -R u+rwX)",
      );
      equal(reverify.code, 0, reverify.stderr);
      match(reverify.stdout, /2 errata appended [^]*zero model calls/);
      const entries = (await loadErrata(errata)).entries.map((e) => e.erratum);
      equal(entries.length, 2);
      for (const erratum of entries) {
        if (erratum.kind !== "rescore_episode") throw new Error("expected rescore_episode");
        equal(erratum.resolved, true);
        equal(
          erratum.artifact_digest,
          rows.find((r) => r.episode_id === erratum.episode_id)!.artifact_digest,
        );
        match(erratum.explanation, /zero model calls/);
      }
      // The ledger is untouched; the errata rescore both episodes.
      equal(createHash("sha256").update(await Deno.readFile(ledger)).digest("hex"), ledgerSha);
      const applied = applyErrata(rows, await loadErrata(errata));
      deepEqual([...applied.rows].map((r) => [r.status, r.resolved]), [["scored", true], [
        "scored",
        true,
      ]]);
      // The same fixed verifier again appends nothing.
      const again = await cli("reverify", ledger, "--errata", errata, "--suite", fixed.dir);
      equal(again.code, 0, again.stderr);
      match(again.stdout, /0 errata appended/);
      equal((await loadErrata(errata)).entries.length, 2);
      // Other hidden files with the same verdict repeat the latest correction (issue 23): skipped,
      // never appended as a second, identical correction.
      const other = await generateSuite(definition, { seed: SEED, dir: `${dir}/suite-other` });
      for (const row of rows) {
        await Deno.writeTextFile(`${taskPaths(other.dir, row.task_id).verifier}/NOTE`, "audit\n");
      }
      const repeat = await cli("reverify", ledger, "--errata", errata, "--suite", other.dir);
      equal(repeat.code, 0, repeat.stderr);
      match(repeat.stdout, /0 errata appended/);
      match(repeat.stdout, /the outcome repeats erratum\s+"rescore\//);
      equal((await loadErrata(errata)).entries.length, 2);
    } finally {
      await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "runner: under rerun-task a 429 is an invalid attempt, rerun in order (seed 002); SPRT stops at its decision",
  ignore,
  async fn() {
    const rerun = await fixture(one(c2FilterSum), [{
      agent_id: "solver",
      image: "ledgerbench/agent-solver",
      script: async (suite) => ({
        ...(await suiteProviderScript(suite)),
        calls: [{ call: 1, reply: { status: 429 } }],
      }),
    }], { invalid_policy: "rerun-task" });
    try {
      const outcome = await rerun.run();
      ok(outcome.complete);
      const [first, second] = (await loadLedger(`${rerun.dir}/ledger.jsonl`)).rows;
      deepEqual(
        [first.episode_id, first.status, first.invalid_reason, first.stop_reason],
        ["t/solver/c2-filter-sum/1", "invalid", "provider_fault", "rate_limited"],
      );
      deepEqual([second.episode_id, second.status, second.resolved], [
        "t/solver/c2-filter-sum/2",
        "scored",
        true,
      ]);
      match(second.notes, /rerun of invalid attempt 1/);
    } finally {
      await rerun.close();
    }
    // p_adopt 0.9, p_drop 0.1, alpha = beta = 0.1: one pass gives LLR ln 9 = the upper boundary ln 9.
    const sprt = await fixture(one(c2FilterSum, a1Locate), [{
      agent_id: "solver",
      image: "ledgerbench/agent-solver",
    }], {
      stopping: {
        kind: "sprt",
        params: { p_adopt: 0.9, p_drop: 0.1, alpha: 0.1, beta: 0.1, n_cap: 60 },
      },
    });
    try {
      const outcome = await sprt.run();
      ok(outcome.complete);
      deepEqual(outcome.decisions, { solver: "adopt" });
      equal((await loadLedger(`${sprt.dir}/ledger.jsonl`)).rows.length, 1);
    } finally {
      await sprt.close();
    }
  },
});

Deno.test({
  name:
    "runner: an image digest other than the plan's refuses the run, and a change mid-run stops it",
  ignore,
  async fn() {
    const tag = `ledgerbench-test/drift-${crypto.randomUUID().slice(0, 8)}:1`;
    const docker = (...args: string[]) => {
      const out = new Deno.Command("docker", { args, stdout: "null", stderr: "piped" })
        .outputSync();
      if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    };
    await images();
    docker("tag", "ledgerbench/agent-solver:latest", tag);
    const f = await fixture(one(c2FilterSum, a1Locate, c1Counts), [{
      agent_id: "solver",
      image: "ledgerbench/agent-solver",
      ref: tag,
    }]);
    try {
      docker("tag", "ledgerbench/agent-nocall:latest", tag);
      await rejects(f.run(), (error: unknown) => {
        ok(error instanceof EnvironmentMismatchError);
        match(
          error.message,
          new RegExp(
            `agent "solver" image "${
              tag.replace(/[/.]/g, "\\$&")
            }" resolves to "sha256:[0-9a-f]{64}", the plan froze`,
          ),
        );
        return true;
      });
      docker("tag", "ledgerbench/agent-solver:latest", tag);
      // Retag right after the first row is written (synchronously, before the next episode's check).
      const outcome = await f.run({
        progress: {
          episode: () => docker("tag", "ledgerbench/agent-nocall:latest", tag),
          note: () => {},
          finish: () => {},
        },
      });
      equal(outcome.appended.length, 1);
      equal(outcome.halted?.kind, "environment_changed");
      if (outcome.halted?.kind === "environment_changed") {
        equal(outcome.halted.episode_id, `t/solver/${f.plan.value.tasks[1].task_id}/1`);
        match(outcome.halted.message, /resolves to "sha256:[0-9a-f]{64}", the plan froze/);
      }
      equal((await loadLedger(`${f.dir}/ledger.jsonl`)).rows.length, 1);
    } finally {
      await f.close();
      new Deno.Command("docker", { args: ["rmi", tag], stdout: "null", stderr: "null" })
        .outputSync();
    }
  },
});

/** The suite's script with every rule's reply reporting `usage` (content unchanged). */
function withUsage(usage: { prompt_tokens: number; completion_tokens: number }) {
  return async (suite: Suite): Promise<ProviderScriptInput> => {
    const script = await suiteProviderScript(suite);
    return { ...script, rules: script.rules!.map((r) => ({ ...r, reply: { ...r.reply, usage } })) };
  };
}

Deno.test({
  name:
    "runner: a plan's model_limits cap every call's output, and a server past them is evidence_missing",
  ignore,
  async fn() {
    const f = await fixture(one(c2FilterSum), [
      { agent_id: "within", image: "ledgerbench/agent-solver" },
      // A server that ignores the relay's cap of 256 output tokens (the scripted model
      // otherwise stops at the request's cap and would report 256).
      {
        agent_id: "overcap",
        image: "ledgerbench/agent-solver",
        script: withUsage({ prompt_tokens: 10, completion_tokens: 300 }),
        ignoreOutputCap: true,
      },
      // A server that served more than the declared 100000-token context.
      {
        agent_id: "overcontext",
        image: "ledgerbench/agent-solver",
        script: withUsage({ prompt_tokens: 100000, completion_tokens: 1 }),
      },
    ], { model_limits: { max_output_tokens: 256, context_limit_tokens: 100000 } });
    try {
      await f.run({ parallel: 3 });
      const row = byAgent((await loadLedger(`${f.dir}/ledger.jsonl`)).rows);
      // The solver agent sends no output cap: the relay added the plan's as max_tokens.
      for (const agent of ["within", "overcap", "overcontext"]) {
        const [request] = f.providers.get(agent)!.requests();
        equal((request.body as { max_tokens?: unknown }).max_tokens, 256, agent);
      }
      deepEqual([row.within.status, row.within.resolved], ["scored", true]);
      deepEqual(row.within.evidence, {
        server_model_id: "m-within",
        usage_source: "server",
        request_fingerprint: row.within.evidence!.request_fingerprint,
        max_output_tokens: 256,
        context_limit_tokens: 100000,
        // One call: the row's own token counts.
        max_call_tokens: row.within.prompt_tokens! + row.within.completion_tokens!,
        unmetered_requests: 0,
        read_requests: 0,
        // Issue 21: under the plan's token cap (the default 20000) each call reserves its
        // prompt bound; the prompt reported passed no bound.
        prompt_bound_excess: 0,
      });
      for (const agent of ["overcap", "overcontext"]) {
        deepEqual([row[agent].status, row[agent].resolved, row[agent].invalid_reason], [
          "invalid",
          null,
          "evidence_missing",
        ]);
      }
      match(row.overcap.notes, /reports 300 completion tokens, over its output cap of 256/);
      equal(row.overcap.evidence?.max_call_tokens, 310);
      match(row.overcontext.notes, /100001 prompt \+ completion tokens, over the declared context/);
    } finally {
      await f.close();
    }
  },
});

const HOST_AGENT =
  `// A host agent for --unsandboxed runs: the solver's contract, rooted at the working directory.
const prompt = await Deno.readTextFile(Deno.env.get("LEDGERBENCH_TASK_FILE")!);
const response = await fetch(Deno.env.get("OPENAI_BASE_URL") + "/chat/completions", {
  method: "POST",
  headers: { "content-type": "application/json", authorization: "Bearer " + Deno.env.get("OPENAI_API_KEY") },
  body: JSON.stringify({ model: Deno.env.get("LEDGERBENCH_MODEL"), messages: [{ role: "user", content: prompt }] }),
});
const body = await response.json();
for (const m of body.choices[0].message.content.matchAll(/\`\`\`file:([^\\n\`]+)\\n([\\s\\S]*?)\\n?\`\`\`/g)) {
  await Deno.writeTextFile(m[1].trim(), m[2]);
}
console.log(JSON.stringify({ tool_calls: 2 }));
console.error(Deno.env.get("HOST_NOTE") ?? "no HOST_NOTE");
`;

Deno.test("runner: --unsandboxed runs host processes only when asked, and every row says so", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-unsandboxed-" });
  const digest = `sha256:${"0".repeat(64)}`;
  try {
    const suite = await generateSuite(one(c2FilterSum, a1Locate), {
      seed: SEED,
      dir: `${dir}/suite`,
    });
    const frozen = await writePlan(
      `${dir}/plan.json`,
      freezePlan(suite, {
        plan_id: "host",
        created_at: new Date().toISOString(),
        agents: [{
          agent_id: "h",
          image: null,
          image_digest: digest,
          env: { HOST_NOTE: "from the plan" },
        }],
        order_seed: 1,
        price_table_id: "test",
        runner_version: await runnerVersion(),
        verifier_image: "none",
        verifier_image_digest: digest,
      }),
    );
    await Deno.writeTextFile(`${dir}/agent.ts`, HOST_AGENT);
    await Deno.writeTextFile(
      `${dir}/script.json`,
      JSON.stringify(await suiteProviderScript(suite, { model: "m-h" })),
    );
    const common = [
      "run",
      "--plan",
      frozen.path,
      "--suite",
      suite.dir,
      "--ledger",
      `${dir}/ledger.jsonl`,
      "--provider-script",
      `${dir}/script.json`,
    ];
    const agent =
      `h=${Deno.execPath()} run --allow-read --allow-write=. --allow-env --allow-net=127.0.0.1 ${dir}/agent.ts`;
    const refused = await cli(...common, "--agent-command", agent);
    equal(refused.code, 1);
    match(refused.stderr, /Option "--agent-command" needs "--unsandboxed"/);
    const ran = await cli(...common, "--unsandboxed", "--agent-command", agent);
    equal(ran.code, 0, ran.stderr + (await Deno.readTextFile(`${dir}/ledger.jsonl`)));
    const rows = (await loadLedger(`${dir}/ledger.jsonl`)).rows;
    equal(rows.length, 2);
    for (const row of rows) {
      // The agent prints {"tool_calls": 2}; the row's count is the relay's (1 call, no tool calls).
      deepEqual([row.status, row.resolved, row.model_calls, row.tool_calls], [
        "scored",
        true,
        1,
        1,
      ]);
      deepEqual(row.environment, {
        agent_image_digest: null,
        verifier_image_digest: null,
        runner_version: await runnerVersion(),
        sandbox: "unsandboxed",
        plan_sha256: frozen.sha256,
      });
      match(row.notes, /^UNSANDBOXED: the candidate and the verifier ran as host processes/);
      equal(row.evidence?.server_model_id, "m-h");
      // Its log too: the host process's output (stderr: the plan's agent env reached it) and
      // the relay's call, beside the artifacts.
      const log = await openEpisodeLog(`${dir}/artifacts`, row.episode_log_digest!);
      deepEqual([log.stdout_tail, log.stderr_tail], ['{"tool_calls":2}\n', "from the plan\n"]);
      deepEqual(log.calls.map((c) => [c.server_model_id, c.status]), [["m-h", 200]]);
      deepEqual(log.bodies.map((b) => b.index), [1]);
    }
  } finally {
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runner: without a Docker engine, run refuses clearly and demo falls back to the example ledgers", async () => {
  const env = { DOCKER_HOST: "unix:///nonexistent/docker.sock" };
  const command = (args: string[]) => cliCommand(args, { env }).output();
  const decoder = new TextDecoder();
  const run = await command([
    "run",
    "--plan",
    "p.json",
    "--suite",
    "s",
    "--ledger",
    "l.jsonl",
    "--upstream",
    "http://x/v1",
  ]);
  equal(run.code, 3);
  match(
    decoder.decode(run.stderr),
    /No Docker engine is reachable: No Docker socket at "\/nonexistent\/docker.sock"/,
  );
  match(
    decoder.decode(run.stderr),
    /Nothing was run: candidates only run sandboxed, unless --unsandboxed/,
  );
  const demo = await command(["demo"]);
  equal(demo.code, 0, decoder.decode(demo.stderr));
  match(
    decoder.decode(demo.stderr),
    /No episode was run .*\n.*Falling back to the analysis of the shipped example ledger/,
  );
  const stdout = decoder.decode(demo.stdout);
  match(stdout, /== summarize ledgers\/examples\/synthetic_ledger.jsonl/);
  match(stdout, /== compare ledgers\/examples\/synthetic_ledger.jsonl/);
});

Deno.test({
  name:
    "runner: the README's main job (demo) on the engine writes a valid ledger and verified reports",
  ignore,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "demo_test_" });
    try {
      const run = await cli(
        "demo",
        "--out",
        `${dir}/ledger`,
        "--work",
        `${dir}/work`,
        "--reports",
        `${dir}/reports`,
      );
      equal(run.code, 0, run.stderr);
      match(run.stderr, /batch: 14 rows, pass 12 fail 2 invalid 0/);
      const ledger = await loadLedger(`${dir}/ledger/ledger.jsonl`);
      ok(ledger.chained);
      const plan = Plan.parse(JSON.parse(await Deno.readTextFile(`${dir}/ledger/plan.json`)));
      const report = await validateLedgerFile(`${dir}/ledger/ledger.jsonl`, plan);
      ok(report.ok, JSON.stringify(report.findings.slice(0, 3)));
      // cli/demo.ts: the strong scripted model answers every task, the weak one (correctRate
      // 0.5, seed "demo-weak") two of the seven wrongly, the same draw on every machine
      const summary = summarizeAgents(ledger.rows);
      deepEqual(
        summary.map((agent) => [agent.agent_id, agent.episodes, agent.invalid, agent.resolved]),
        [["solver-strong", 7, 0, 7], ["solver-weak", 7, 0, 5]],
      );
      // all five of seed 000's evidence kinds on every row (plan model_limits 512 / 8192)
      for (const row of ledger.rows) {
        equal(row.evidence?.usage_source, "server");
        match(row.evidence?.server_model_id ?? "", /^demo-(strong|weak)-1$/);
        match(row.evidence?.request_fingerprint ?? "", /^[0-9a-f]{64}$/);
        equal(row.evidence?.max_output_tokens, 512);
        equal(row.evidence?.context_limit_tokens, 8192);
        ok((row.evidence?.max_call_tokens ?? Infinity) <= 8192);
      }
      // The judged example (issue 14): the scripted judge calibrated on the shipped golden
      // set, both answers judged through the judge's relay; the right answer names the sum and
      // the count, 5, 5, 4 on weights 3, 2, 1: (15 + 10 + 4) * 20 / 6 = 96.67.
      match(run.stderr, /judge "scripted-judge-1" calibrated on 17 human labels: agreement 0\.938/);
      const judgedPlan = Plan.parse(
        JSON.parse(await Deno.readTextFile(`${dir}/ledger/judge/plan.json`)),
      );
      equal(judgedPlan.judge?.calibration.state, "passed");
      const judged = await loadLedger(`${dir}/ledger/judge/ledger.jsonl`);
      for (const row of judged.rows) {
        equal(row.task_id, "explain-mean");
        equal(row.judge?.calibrated, true);
        equal(row.judge?.model_calls, 1);
        equal(row.judge?.evidence?.server_model_id, "scripted-judge-1");
        equal(row.judge?.total?.toFixed(2), row.resolved ? "96.67" : "23.33");
      }
      equal(judged.rows.length, 2);
      for (const name of ["report-demo", "report-judge", "report-example"]) {
        const verified = await cli("verify-report", `${dir}/reports/${name}`);
        equal(verified.code, 0, `${name}: ${verified.stdout}${verified.stderr}`);
      }
    } finally {
      await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/**
 * An upstream that accepts connections and never answers (issue 9, item 3): a
 * TCP listener on loopback that reads nothing and writes nothing until closed.
 */
function silentUpstream(): { baseUrl: string; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) held.push(conn);
  })().catch(() => {});
  return {
    baseUrl: `http://127.0.0.1:${listener.addr.port}/v1`,
    close() {
      listener.close();
      for (const conn of held) conn.close();
    },
  };
}

Deno.test({
  name:
    "runner: a call an upstream never answers is a provider_fault under the plan's upstream timeout and halts the batch",
  ignore,
  async fn() {
    const silent = silentUpstream();
    const upstream = () => ({ baseUrl: silent.baseUrl, key: "up-key" });
    const agents: AgentSpec[] = [{ agent_id: "solver", image: "ledgerbench/agent-solver" }];
    // The plan's timeout (1500 ms) below the wall cap (8000 ms): the relay gives up first.
    const timed = await fixture(one(c2FilterSum, a1Locate), agents, {
      caps: { wall_ms_cap: 8000 },
      upstream_timeout_ms: 1500,
    });
    // Not given, the timeout is 90% of the smallest wall cap (2700 ms here). Before, such a plan
    // kept the relay's 300000 ms, which no 3000 ms wall cap outlasts: both rows were scored,
    // resolved false, stop reason wall_cap, 0 tokens, and the batch went on.
    const untimed = await fixture(one(c2FilterSum, a1Locate), agents, {
      caps: { wall_ms_cap: 3000 },
    });
    try {
      const outcome = await timed.run({ upstream });
      equal(outcome.halted?.kind, "invalid_episode");
      const rows = (await loadLedger(`${timed.dir}/ledger.jsonl`)).rows;
      // Halted after the first episode (of two) under invalid policy "halt".
      equal(rows.length, 1);
      deepEqual(
        [rows[0].status, rows[0].resolved, rows[0].invalid_reason, rows[0].model_calls],
        ["invalid", null, "provider_fault", 1],
      );
      deepEqual([rows[0].prompt_tokens, rows[0].completion_tokens], [0, 0]);
      match(
        rows[0].notes,
        /Call 1 failed at the provider: The upstream sent nothing for the upstream timeout of 1500 ms/,
      );

      equal(untimed.plan.value.upstream_timeout_ms, 2700);
      const defaulted = await untimed.run({ upstream });
      equal(defaulted.halted?.kind, "invalid_episode");
      const invalid = (await loadLedger(`${untimed.dir}/ledger.jsonl`)).rows;
      deepEqual(
        invalid.map((row) => [row.status, row.invalid_reason, row.prompt_tokens]),
        [["invalid", "provider_fault", 0]],
      );
    } finally {
      silent.close();
      await timed.close();
      await untimed.close();
    }
  },
});
