/**
 * Writing a Harbor job directory (`ledgerbench export harbor`): its files,
 * built by `cli/_harbor_export.ts`, into a jobs folder.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { nameFullDisk } from "./name_full_disk.ts";

/** One job to write: its directory's name and its files (path inside it, text). */
export interface HarborJobDir {
  name: string;
  files: readonly [string, string][];
}

/**
 * Writes the job as `<dir>/<name>/` (the jobs folder `dir` created when
 * missing; a job directory of the same name replaced): every file is
 * written into a staging directory beside it, which is then renamed into
 * place (the old one moved aside first and removed after), so that no
 * half-written job is ever left under its name.
 *
 * @param dir the jobs folder
 * @param job the job
 * @returns the job directory's path
 * @throws {DiskFullError} when the file system is full, naming the folder
 * @throws {Deno.errors.PermissionDenied} and other I/O errors of writing
 * @example
 * ```ts
 * import { writeHarborJob } from "./write_harbor_job.ts";
 * const dir = await Deno.makeTempDir();
 * const path = await writeHarborJob(dir, { name: "j", files: [["t__1/result.json", "{}"]] });
 * if (await Deno.readTextFile(`${path}/t__1/result.json`) !== "{}") throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeHarborJob(dir: string, job: HarborJobDir): Promise<string> {
  const path = join(dir, job.name);
  const staging = join(dir, `.${job.name}.${Deno.pid}.tmp`);
  const old = join(dir, `.${job.name}.${Deno.pid}.old`);
  let replaced = false;
  try {
    await Deno.mkdir(staging, { recursive: true });
    for (const [file, text] of job.files) {
      await Deno.mkdir(dirname(join(staging, file)), { recursive: true });
      await Deno.writeTextFile(join(staging, file), text);
    }
    replaced = await Deno.rename(path, old).then(() => true, (error) => {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    });
    await Deno.rename(staging, path);
  } catch (error) {
    // the old job goes back under its name
    if (replaced) await Deno.rename(old, path).catch(() => {});
    throw nameFullDisk(error, [{ place: "export folder", path: dir }]);
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
  if (replaced) await Deno.remove(old, { recursive: true });
  return path;
}
