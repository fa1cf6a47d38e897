// Progress of a long command on a terminal: one line, rewritten in place, with what is done, the
// rate and the time left. Quiet when standard error is not a terminal (pipes, logs, CI), so
// scripted output stays exactly the report.

const REDRAW_INTERVAL_MS = 250;

interface Progress {
  /** `done` of `total` units so far. */
  update(done: number): void;
  /** Clears the line (the command then prints its report). */
  finish(): void;
}

const QUIET: Progress = { update: () => undefined, finish: () => undefined };

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.ceil(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.ceil((seconds % 3600) / 60)} min`;
}

/** `label`: what is counted, e.g. "replaying journal" over `total` units named `unit`. */
export function terminalProgress(
  label: string,
  total: number,
  unit: string,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  if (!stream.isTTY) return QUIET;
  const startedMs = Date.now();
  let lastDrawMs = 0;
  const draw = (done: number) => {
    const elapsedS = (Date.now() - startedMs) / 1000;
    const rate = elapsedS > 0 ? done / elapsedS : 0;
    const left = rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY;
    const percent = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
    stream.write(
      `\r\x1b[2K${label}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${unit} (${percent}%), ${Math.round(rate).toLocaleString('en-US')} ${unit}/s, ${duration(left)} left`,
    );
  };
  return {
    update(done) {
      const now = Date.now();
      if (now - lastDrawMs < REDRAW_INTERVAL_MS && done < total) return;
      lastDrawMs = now;
      draw(done);
    },
    finish() {
      stream.write('\r\x1b[2K');
    },
  };
}
