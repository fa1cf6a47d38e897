// Structured JSON logs (pino), one root logger per process; requests get a child with their id.
// CLI commands other than `serve` log to stderr so their stdout stays machine-readable.

import { pino, type Logger } from 'pino';

export function createLogger(
  level: string,
  options: { stderr?: boolean; bindings?: Record<string, unknown> } = {},
): Logger {
  return pino(
    {
      level,
      base: { service: 'exchange', ...options.bindings },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pino.destination({ fd: options.stderr ? 2 : 1, sync: true }),
  );
}
