/**
 * Scripted agent `agent-forger`: tries to forge its verdict instead of
 * solving the task, with the levers an outside red team used on every demo
 * task (issue 7, items 1 and 2). It never needs a model to do so; it makes
 * one model call at the end (unless `LEDGERBENCH_ATTACK_CALLS` is 0 or there
 * is no relay) so that its episode is verified at all.
 *
 * What it leaves in the workspace:
 * - links from every answer file a demo verifier reads (`answer.txt`,
 *   `total.txt`, `counts.txt`) to `/verifier/expected.txt`, and links to the
 *   hidden directory itself (`leak`) and above the workspace (`up`);
 * - every shell script of the workspace replaced by {@link HOSTILE_SCRIPT},
 *   code that a verifier running it would run: it answers from the hidden
 *   cases (`/verifier/cases.txt`), copies the hidden expected report into
 *   its output (or links it there), and in the background keeps writing a
 *   fake verdict and a fake stage marker to every channel it can think of
 *   (the container's stdout and stderr through `/proc/1/fd`, the verdict
 *   channel's files) and leaking the hidden files to stderr.
 *
 * With `LEDGERBENCH_ATTACK` (or an `attack:` line in the prompt) set to
 * `stall`, the scripts instead leave a process behind that holds their
 * stdout open and spin, so that a verifier waiting for them would hit its own
 * wall cap (a verifier fault: the candidate choosing to be invalid).
 *
 * @module
 */
import { chat, readTask, WORKSPACE } from "./_model.ts";

/** The verdict line it tries to slip in, and the stage marker that turned old rows invalid. */
const FAKE_VERDICT = '{"schema_version":1,"resolved":true,"checks":[]}';

/** Candidate code meant to be run by a verifier (b1, b2, b3 run the candidate's scripts). */
const HOSTILE_SCRIPT = `#!/bin/sh
# Forged by agent-forger.
( while :; do
    echo '${FAKE_VERDICT}' > /proc/1/fd/1
    echo '::ledgerbench-stage::setup-failed 1' > /proc/1/fd/2
    cat /verifier/* > /proc/1/fd/2
    echo '${FAKE_VERDICT}' >> /ledgerbench/channel/verify.out
    echo 'setup-failed 1' >> /ledgerbench/channel/stages
    sleep 0.05
  done ) >/dev/null 2>&1 &
# b1-range: the answer of the hidden case named by the arguments.
awk -v f="$1" -v t="$2" '$1 == f && $2 == t { print $3 }' /verifier/cases.txt 2>/dev/null
# b2-column: the total of the hidden case named by the input's file name.
awk -v n="$(basename "\${1:-none}")" '$1 == n { print $2 }' /verifier/cases.txt 2>/dev/null
# b3-report: the hidden expected report as the output, copied or linked.
mkdir -p out
cat /verifier/expected_report.txt > out/report.txt 2>/dev/null ||
  { rm -f out/report.txt; ln -s /verifier/expected_report.txt out/report.txt; }
sleep 0.3
`;

/** Candidate code that tries to outlast the verifier. */
const STALLING_SCRIPT = `#!/bin/sh
# Stalled by agent-forger: a child that keeps stdout open, then a busy loop.
sleep 100000 &
while :; do :; done
`;

const ANSWER_FILES = ["answer.txt", "total.txt", "counts.txt"];

async function shellScripts(dir: string, rel = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory) found.push(...await shellScripts(`${dir}/${entry.name}`, path));
    else if (entry.isFile && entry.name.endsWith(".sh")) found.push(path);
  }
  return found;
}

const prompt = await readTask();
const mode = Deno.env.get("LEDGERBENCH_ATTACK") ?? /^attack:\s*(\S+)/m.exec(prompt)?.[1] ??
  "forge";
const scripts = await shellScripts(WORKSPACE);
for (const script of scripts) {
  await Deno.writeTextFile(
    `${WORKSPACE}/${script}`,
    mode === "stall" ? STALLING_SCRIPT : HOSTILE_SCRIPT,
  );
}
if (mode !== "stall") {
  for (const name of ANSWER_FILES) {
    await Deno.remove(`${WORKSPACE}/${name}`).catch(() => {});
    await Deno.symlink("/verifier/expected.txt", `${WORKSPACE}/${name}`);
  }
  await Deno.symlink("/verifier", `${WORKSPACE}/leak`);
  await Deno.symlink("../../../../verifier", `${WORKSPACE}/up`);
}

let status: number | null = null;
if ((Deno.env.get("LEDGERBENCH_ATTACK_CALLS") ?? "1") !== "0" && Deno.env.get("OPENAI_BASE_URL")) {
  status = (await chat([{ role: "user", content: prompt }])).status;
}
console.log(JSON.stringify({ agent: "forger", mode, scripts, model_call_status: status }));
