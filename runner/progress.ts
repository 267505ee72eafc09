/**
 * Batch progress on stderr (issue 3, "Using it"): on a terminal, one bar
 * redrawn in place (done/total, passes, fails, invalid, tokens, ETA);
 * elsewhere, one plain line per finished episode, so that logs stay greppable.
 *
 * @module
 */
import { episodeTokens } from "../analysis/classify_episode.ts";
import type { Episode } from "../analysis/schema/records.ts";
import type { BatchTally } from "./batch_state.ts";

/** A snapshot of the batch for the display. */
export interface ProgressSnapshot {
  tally: Readonly<BatchTally>;
  /** Episodes still expected, in flight included. */
  remaining: number;
  inFlight: number;
  parallel: number;
}

/** Receives batch events. */
export interface ProgressSink {
  /** An episode's row was written. */
  episode(row: Episode, snapshot: ProgressSnapshot): void;
  /** A free-form line (warnings, the halt reason). */
  note(message: string): void;
  /** The batch is over. */
  finish(snapshot: ProgressSnapshot): void;
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  /** Draw the in-place bar; default: whether stderr is a terminal. */
  tty?: boolean;
  /** Where text goes; default stderr. */
  write?: (text: string) => void;
  /** Milliseconds since some origin; default `performance.now()`. */
  clock?: () => number;
  /** Bar width in characters; default 24. */
  width?: number;
}

const encoder = new TextEncoder();

/**
 * Creates a progress sink.
 *
 * ETA rule: (elapsed / rows done this session) × remaining / parallel,
 * shown once one episode finished; rows replayed from an existing ledger are
 * counted in the tallies but not in the rate.
 *
 * @param options terminal mode, output, clock
 * @returns the sink
 */
export function createProgress(options: ProgressOptions = {}): ProgressSink {
  const tty = options.tty ?? Deno.stderr.isTerminal();
  const write = options.write ?? ((text: string) => Deno.stderr.writeSync(encoder.encode(text)));
  const clock = options.clock ?? (() => performance.now());
  const width = options.width ?? 24;
  const started = clock();
  let baseline: number | null = null;
  let drawn = false;

  const eta = (snapshot: ProgressSnapshot): string => {
    const done = snapshot.tally.rows - (baseline ?? snapshot.tally.rows);
    if (done <= 0 || snapshot.remaining === 0) return snapshot.remaining === 0 ? "0s" : "?";
    const per = (clock() - started) / done;
    return duration((per * snapshot.remaining) / Math.max(1, snapshot.parallel));
  };
  const counts = (s: ProgressSnapshot) =>
    `pass ${s.tally.passes} fail ${s.tally.fails} invalid ${s.tally.invalid} tokens ${
      compact(s.tally.tokens)
    }`;

  return {
    episode(row, snapshot) {
      if (baseline === null) baseline = snapshot.tally.rows - 1;
      const total = snapshot.tally.rows + snapshot.remaining;
      const cause = harnessCause(row);
      if (tty) {
        if (cause !== null) write(`\r\x1b[2K${row.episode_id}: ${cause}\n`);
        const filled = total === 0 ? width : Math.round((snapshot.tally.rows / total) * width);
        const bar = "#".repeat(filled) + ".".repeat(Math.max(0, width - filled));
        write(
          `\r\x1b[2K[${bar}] ${snapshot.tally.rows}/${total} ${counts(snapshot)} ETA ${
            eta(snapshot)
          }`,
        );
        drawn = true;
        return;
      }
      const verdict = row.status === "invalid"
        ? `invalid (${row.invalid_reason})`
        : row.resolved
        ? "pass"
        : "fail";
      write(
        `episode ${snapshot.tally.rows}/${total} ${row.episode_id}: ${verdict}, stop ${row.stop_reason}, ` +
          `${row.model_calls ?? "?"} calls, ${episodeTokens(row) ?? "?"} tokens, ` +
          `${row.wall_ms === null ? "?" : (row.wall_ms / 1000).toFixed(1)}s; ${
            counts(snapshot)
          }; ETA ${eta(snapshot)}\n` +
          (cause === null ? "" : `  ${cause}\n`),
      );
    },
    note(message) {
      if (drawn) write("\n");
      drawn = false;
      write(message.endsWith("\n") ? message : message + "\n");
    },
    finish(snapshot) {
      if (drawn) write("\n");
      drawn = false;
      write(
        `batch: ${snapshot.tally.rows} rows, ${counts(snapshot)}, ${
          duration(clock() - started)
        } elapsed\n`,
      );
    },
  };
}

/** Characters of a harness error's cause shown on the console (the row's notes keep it all). */
const CAUSE_CHARS = 300;

/**
 * The cause of a `harness_error` row for the console (issue 9, item 10: a
 * full artifact store said only `harness_error`): its notes from the last
 * `harness error` on, control characters shown as `?`, cut at 300
 * characters; null for any other row.
 */
function harnessCause(row: Episode): string | null {
  if (row.invalid_reason !== "harness_error" || row.notes === "") return null;
  const at = row.notes.lastIndexOf("harness error");
  // deno-lint-ignore no-control-regex
  const text = row.notes.slice(at === -1 ? 0 : at).replace(/[\x00-\x1f\x7f]/g, "?");
  return text.length > CAUSE_CHARS ? `${text.slice(0, CAUSE_CHARS)}...` : text;
}

/** `1h02m`, `3m05s` or `12s`. */
function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s >= 3600) {
    return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  }
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${s}s`;
}

/** `950`, `12.3k`, `4.56M`. */
function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}
