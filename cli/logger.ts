// Structured JSON logs (pino), one root logger per process; requests get a child with their id.

import { pino, type Logger } from 'pino';

export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'exchange', ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
