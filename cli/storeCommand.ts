// What a command that reads the event log and the read models opens: the configuration (exit 2
// on a bad one), the database (attaching to a running embedded server) and the event store.

import type { Config } from '../commands/context.ts';
import { migrate } from '../eventstore/postgres/migrate.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { openDatabase, openEventStore } from './serve.ts';

export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** Opens the database (attaching to a running embedded server) and event store for one command. */
export async function withStore<T>(run: (deps: Awaited<ReturnType<typeof open>>) => Promise<T>): Promise<T> {
  const deps = await open();
  try {
    return await run(deps);
  } finally {
    await deps.store.close();
    await deps.database.close();
  }
}

async function open() {
  const config = configOrExit();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { stderr: true });
  const database = await openDatabase(config, logger, { attach: true });
  await migrate(database.pool);
  const store = await openEventStore(config, database);
  return { config, logger, database, store };
}
