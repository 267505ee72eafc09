import { equal, ok } from "node:assert/strict";
import { DiskFullError, nameFullDisk } from "./name_full_disk.ts";

/** An error as Deno's file system calls throw it (`code` from errno(3)). */
function osError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

const PLACES = [
  { place: "runner's temporary directory", path: "/scratch/job-7/ledgerbench-run-1-2-1-n1" },
  { place: "artifact store", path: "/shared/run/artifacts" },
];

Deno.test("nameFullDisk() names ENOSPC and the place of a copy's destination", () => {
  const error = osError(
    "No space left on device (os error 28): copy '/shared/run/artifacts/sha256/x/a.txt' -> " +
      "'/scratch/job-7/ledgerbench-run-1-2-1-n1/ledgerbench-verifier-3/verifier/a.txt'",
    "ENOSPC",
  );
  const named = nameFullDisk(error, PLACES);
  ok(named instanceof DiskFullError);
  equal(named.code, "ENOSPC");
  equal(named.where, PLACES[0]);
  equal(
    named.message,
    `No space left on device (ENOSPC) in the runner's temporary directory "${PLACES[0].path}": ` +
      "copy '/shared/run/artifacts/sha256/x/a.txt' -> " +
      "'/scratch/job-7/ledgerbench-run-1-2-1-n1/ledgerbench-verifier-3/verifier/a.txt'",
  );
  equal(named.cause, error);
  // Named once: naming again changes nothing.
  equal(nameFullDisk(named, PLACES), named);
});

Deno.test("nameFullDisk() names EDQUOT, reads the cause chain, and takes the only place of a write without path", () => {
  const write = osError("Disk quota exceeded (os error 122)", "EDQUOT");
  const wrapped = new Error("Cannot store the workspace", { cause: write });
  const named = nameFullDisk(wrapped, [PLACES[1]]);
  ok(named instanceof DiskFullError);
  equal(
    named.message,
    `Disk quota exceeded (EDQUOT) in the artifact store "${
      PLACES[1].path
    }": Cannot store the workspace`,
  );
  // Without a path and with two places, no place is guessed.
  equal(
    (nameFullDisk(osError("No space left on device (os error 28)", "ENOSPC"), PLACES) as Error)
      .message,
    "No space left on device (ENOSPC)",
  );
});

Deno.test("nameFullDisk() leaves every other error as it is", () => {
  const denied = osError(
    "Permission denied (os error 13): open '/shared/run/artifacts/x'",
    "EACCES",
  );
  equal(nameFullDisk(denied, PLACES), denied);
  equal(nameFullDisk("a string", PLACES), "a string");
});
