// The composition root as one call: the whole service (cli/serve.ts startService: the event
// store, the engine, the projection worker, the HTTP API with real authentication, the operator
// listener, the feed) from its configuration, with the few parts a caller may set instead (its
// database, logger, engine bounds, schedules). `exchange serve` builds the service through it,
// and so does every test harness, so a test runs what the command runs.

import type { Config } from '../commands/context.ts';
import { loadConfig } from './config.ts';
import { startService, type RunningService, type StartOptions } from './serve.ts';

export interface ServiceOverrides extends StartOptions {
  /** The configuration (default: read from `env` by loadConfig). */
  config?: Config;
  /** The configuration variables, as loadConfig reads them (default: the process environment). */
  env?: Record<string, string | undefined>;
}

/** Starts the whole service; resolves once it is ready (its probes answer 503 until then). */
export async function buildService(overrides: ServiceOverrides = {}): Promise<RunningService> {
  const { config, env = process.env, ...options } = overrides;
  return startService(config ?? loadConfig(env), options);
}
