/**
 * Scripted agent `agent-filler`: attacks the harness through its workspace
 * and its forwarder's port (issue 7, items 3 and 4), then makes one model
 * call, and prints what it observed as a JSON object on its last stdout line
 * (the workspace may be too full to hold a report).
 *
 * Attacks, selected by `LEDGERBENCH_ATTACK` (comma list) or else by a line
 * `attack: <list>` in the task prompt; default none:
 * - `fill-disk`: writes zeros to `/workspace/fill.bin` in 1 MiB writes, up to
 *   2 GiB or the first error (`written`, `error`);
 * - `sparse-file`: makes `/workspace/sparse.bin` of 500 MiB in apparent size
 *   with 6 bytes of data (`middle`) at 250 MiB, one tmpfs page (issue 21,
 *   item 8) (`size`, `blocks`, `error`);
 * - `many-files`: creates up to 200,000 empty files `/workspace/many/<i>`
 *   until the first error (`created`, `error`);
 * - `bad-name`: writes a file whose name holds byte 0xff (not UTF-8), with
 *   the shell, as Deno's APIs take only strings (`made`);
 * - `deep-dirs`: nests 2,100 directories `d/d/…` under `/workspace` with
 *   `cd -P` (the whole path is past PATH_MAX) (`depth`);
 * - `port-squat`: before anything else, listens on 127.0.0.1 at the port of
 *   `OPENAI_BASE_URL` (the forwarder's, 18080) and holds it for
 *   `LEDGERBENCH_SQUAT_MS` (default 1000) milliseconds (`bound`, `error`).
 *
 * The model call follows unless `LEDGERBENCH_ATTACK_CALLS` is 0 (`model_call`).
 *
 * @module
 */
import { chat, readTask, WORKSPACE } from "./_model.ts";

const report: Record<string, unknown> = { agent: "filler" };

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Binds the forwarder's port at once; resolves when the squat ends. */
function squat(): Promise<void> {
  const port = Number(new URL(Deno.env.get("OPENAI_BASE_URL") ?? "http://x:18080").port);
  try {
    const listener = Deno.listen({ hostname: "127.0.0.1", port });
    report["port-squat"] = { port, bound: true, error: null };
    const ms = Number(Deno.env.get("LEDGERBENCH_SQUAT_MS") ?? "1000");
    return new Promise((resolve) =>
      setTimeout(() => {
        listener.close();
        resolve();
      }, ms)
    );
  } catch (error) {
    report["port-squat"] = { port, bound: false, error: errorText(error) };
    return Promise.resolve();
  }
}

async function fillDisk(): Promise<void> {
  const chunk = new Uint8Array(1 << 20);
  const file = await Deno.open(`${WORKSPACE}/fill.bin`, { write: true, create: true });
  let written = 0;
  let error: string | null = null;
  try {
    while (written < 2 * 1024 ** 3) {
      let offset = 0;
      while (offset < chunk.length) offset += await file.write(chunk.subarray(offset));
      written += chunk.length;
    }
  } catch (e) {
    error = errorText(e);
    written = (await file.stat()).size;
  } finally {
    file.close();
  }
  report["fill-disk"] = { written, error };
}

async function sparseFile(): Promise<void> {
  const path = `${WORKSPACE}/sparse.bin`;
  let error: string | null = null;
  try {
    const file = await Deno.open(path, { write: true, create: true });
    try {
      await file.seek(250 * 1024 ** 2, Deno.SeekMode.Start);
      await file.write(new TextEncoder().encode("middle"));
      await file.truncate(500 * 1024 ** 2);
    } finally {
      file.close();
    }
  } catch (e) {
    error = errorText(e);
  }
  const info = await Deno.stat(path).catch(() => null);
  report["sparse-file"] = { size: info?.size ?? 0, blocks: info?.blocks ?? 0, error };
}

function manyFiles(): void {
  Deno.mkdirSync(`${WORKSPACE}/many`);
  let created = 0;
  let error: string | null = null;
  try {
    for (; created < 200_000; created++) {
      Deno.writeFileSync(`${WORKSPACE}/many/${created}`, new Uint8Array());
    }
  } catch (e) {
    error = errorText(e);
  }
  report["many-files"] = { created, error };
}

async function sh(script: string): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  const out = await new Deno.Command("sh", {
    args: ["-c", script],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  return { ok: out.success, stdout: text(out.stdout), stderr: text(out.stderr) };
}

async function badName(): Promise<void> {
  const out = await sh(`printf 'not utf-8\\n' > "${WORKSPACE}/bad$(printf '\\377')name"`);
  report["bad-name"] = { made: out.ok, error: out.ok ? null : out.stderr };
}

async function deepDirs(): Promise<void> {
  const out = await sh(
    `cd "${WORKSPACE}" && i=0; while [ $i -lt 2100 ]; do mkdir d && cd -P d || break; ` +
      `i=$((i+1)); done; echo $i`,
  );
  report["deep-dirs"] = { depth: Number(out.stdout), error: out.stderr || null };
}

function selected(prompt: string): string[] {
  const list = Deno.env.get("LEDGERBENCH_ATTACK") ?? prompt.match(/^attack:\s*(.+)$/m)?.[1] ?? "";
  return list.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

const attacks: Record<string, () => Promise<void> | void> = {
  "fill-disk": fillDisk,
  "sparse-file": sparseFile,
  "many-files": manyFiles,
  "bad-name": badName,
  "deep-dirs": deepDirs,
};

// The squat comes first, before even the prompt is read, when the environment selects it.
const squatting = (Deno.env.get("LEDGERBENCH_ATTACK") ?? "").includes("port-squat")
  ? squat()
  : null;
const prompt = await readTask();
const chosen = selected(prompt);
report.attacks = chosen;
const held = squatting ?? (chosen.includes("port-squat") ? squat() : Promise.resolve());
for (const name of chosen) {
  const attack = attacks[name];
  if (attack) {
    await attack();
  } else if (name !== "port-squat") report[name] = { error: `unknown attack "${name}"` };
}
await held;

if ((Deno.env.get("LEDGERBENCH_ATTACK_CALLS") ?? "1") !== "0") {
  try {
    report.model_call = { status: (await chat([{ role: "user", content: prompt }])).status };
  } catch (error) {
    report.model_call = { error: errorText(error) };
  }
}
console.log(JSON.stringify(report));
