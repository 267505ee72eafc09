/**
 * Private: a container session's start gate. The container's entrypoint is
 * the host's static busybox, bind-mounted read-only, so nothing from the
 * image runs first: its shell blocks reading a fifo that the runner writes
 * only once the container is checked (alone in its network namespace, run
 * with its flags), then execs the command (a task environment's entrypoint,
 * then the keep-alive), found in the image's `PATH` as Docker would find it.
 *
 * @module
 */

/** Where the gate's files appear inside the container. */
const GATE_DIR = "/.ledgerbench";

/** The gate's busybox inside the container: a program every container has. */
export const GATE_BUSYBOX = `${GATE_DIR}/busybox`;

/** The host's static busybox (as `containers/build_images.sh` uses it). */
export function gateBusybox(): string {
  return Deno.env.get("LEDGERBENCH_BUSYBOX") ?? "/usr/bin/busybox";
}

/**
 * The gate's shell script (`busybox sh -c`; its arguments are the command).
 * Busybox's shell runs its own applets before any program in `PATH`, so a
 * name without a slash is looked up in `PATH` by the script itself and
 * exec'd by its full path, with `argv[0]` as given (Docker's rule). Exit 125
 * when the fifo closes unopened (the runner went away), 127 when the command
 * is not found.
 */
const SCRIPT = [
  `read -r _ < ${GATE_DIR}/gate/open || exit 125`,
  'case "$1" in */*) exec "$@" ;; esac',
  'name="$1"; shift; IFS=:',
  "for dir in $PATH; do",
  '  path="${dir:-.}/$name"',
  '  if [ -f "$path" ] && [ -x "$path" ]; then unset IFS; exec -a "$name" "$path" "$@"; fi',
  "done",
  'echo "ledgerbench gate: $name: not found in PATH" >&2',
  "exit 127",
].join("\n");

/** A gate for one container: its mounts, its entrypoint, and the runner's end of the fifo. */
export interface Gate {
  /** Bind mounts (`host:container:ro`): busybox and the fifo's directory. */
  binds: string[];
  /** The container's `Entrypoint`; its `Cmd` is what runs once the gate opens. */
  entrypoint: string[];
  /** Lets the command run (writes one line into the fifo). */
  open(): Promise<void>;
  /** Closes the runner's end; a gate never opened then makes the container exit 125. */
  close(): void;
}

/**
 * Creates the gate's fifo in `dir` (a fresh directory of the runner's) and
 * holds it open for reading and writing, so that neither end blocks and a
 * line written before the container reads it waits in the pipe.
 *
 * @param dir an empty directory of the runner's, mounted read-only into the container
 * @returns the gate
 * @throws {Error} when the fifo cannot be made
 */
export async function createGate(dir: string): Promise<Gate> {
  const fifo = `${dir}/open`;
  const made = await new Deno.Command("mkfifo", { args: ["-m", "0600", fifo], stderr: "piped" })
    .output();
  if (!made.success) {
    throw new Error(
      `Cannot make the gate fifo "${fifo}": ${new TextDecoder().decode(made.stderr).trim()}`,
    );
  }
  const file = await Deno.open(fifo, { read: true, write: true });
  let closed = false;
  return {
    binds: [`${gateBusybox()}:${GATE_BUSYBOX}:ro`, `${dir}:${GATE_DIR}/gate:ro`],
    entrypoint: [GATE_BUSYBOX, "sh", "-c", SCRIPT, "ledgerbench-gate"],
    async open() {
      await file.write(new TextEncoder().encode("open\n"));
    },
    close() {
      if (closed) return;
      closed = true;
      file.close();
    },
  };
}
