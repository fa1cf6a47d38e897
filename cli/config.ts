// Configuration from the environment (docs/RUNNING.md "Configuration" lists every variable). Every variable is checked at start; a
// bad value stops the service with a message naming the variable and what it accepts.

import { isIP } from 'node:net';
import path from 'node:path';
import type { Config } from '../commands/context.ts';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid configuration: ${variable} ${detail}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const PORT_MAX = 65_535;
/** The public listener (REST, OAuth, /docs) and the WebSocket feed, on every interface. */
const PORT_DEFAULT = 8080;
const WS_PORT_DEFAULT = 8081;
/** The operator listener (/admin/v1, /metrics): its own port, on loopback unless ADMIN_HOST says otherwise. */
export const ADMIN_PORT_DEFAULT = 8082;
export const ADMIN_HOST_DEFAULT = '127.0.0.1';

type Env = Record<string, string | undefined>;

function valueOf(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function port(env: Env, name: string, fallback: number): number {
  const raw = valueOf(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > PORT_MAX) {
    throw new ConfigError(name, `must be a TCP port number from 0 to ${PORT_MAX} (got "${raw}")`);
  }
  return Number(raw);
}

function flag(env: Env, name: string): boolean {
  const raw = valueOf(env, name);
  if (raw === undefined) return false;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be 1 or 0 (got "${raw}")`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = valueOf(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL like ${protocols[0]}//host:port/... (got an unparsable value)`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
  }
  return raw;
}

/** ADMIN_HOST: the address the operator listener binds (an IP address; default loopback). */
function adminHostOf(env: Env): string {
  const raw = valueOf(env, 'ADMIN_HOST');
  if (raw === undefined) return ADMIN_HOST_DEFAULT;
  if (isIP(raw) === 0) {
    throw new ConfigError(
      'ADMIN_HOST',
      `must be an IP address to bind the operator listener to, e.g. 127.0.0.1 (the default) or 0.0.0.0 to expose it (got "${raw}")`,
    );
  }
  return raw;
}

/** How a client on this machine reaches a listener bound to `host` (a wildcard address: loopback). */
export function reachableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return isIP(host) === 6 ? `[${host}]` : host;
}

/**
 * Where the CLI finds the service when EXCHANGE_URL is unset: the same environment as the server.
 * The public listener: PORT (default 8080). `forAdmin`: the operator listener, ADMIN_HOST
 * (default 127.0.0.1) and ADMIN_PORT (default 8082).
 */
export function defaultServiceUrl(env: Env = process.env, forAdmin = false): string {
  const explicit = valueOf(env, 'EXCHANGE_URL');
  if (explicit !== undefined) return explicit.replace(/\/+$/, '');
  if (forAdmin) return `http://${reachableHost(adminHostOf(env))}:${port(env, 'ADMIN_PORT', ADMIN_PORT_DEFAULT)}`;
  return `http://localhost:${port(env, 'PORT', PORT_DEFAULT)}`;
}

/** TRUSTED_PROXIES: comma-separated IP addresses or CIDRs (e.g. `10.0.0.5,10.1.0.0/16`); none by default. */
function trustedProxiesOf(env: Env): string[] {
  const raw = valueOf(env, 'TRUSTED_PROXIES');
  if (raw === undefined) return [];
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || extra !== undefined) {
      throw new ConfigError('TRUSTED_PROXIES', `must be comma-separated IP addresses or CIDRs (got "${entry}")`);
    }
  }
  return entries;
}

/**
 * NODE_URL: where other nodes reach this one to forward writes (HTTP/2 without TLS, on the URL's
 * port, every interface); unset: a free port on 127.0.0.1, which suits nodes on one host.
 */
function nodeUrlOf(env: Env): string | undefined {
  const raw = url(env, 'NODE_URL', ['http:']);
  if (raw === undefined) return undefined;
  const parsed = new URL(raw);
  if (parsed.port === '' || parsed.pathname !== '/' || parsed.search !== '' || parsed.username !== '') {
    throw new ConfigError(
      'NODE_URL',
      `must be http://host:port with nothing after the port, e.g. http://10.0.0.5:8083 (got "${raw}")`,
    );
  }
  return raw.replace(/\/+$/, '');
}

/** The operator API's bearer token guards money movements: a guessable one is refused at start. */
const ADMIN_TOKEN_LENGTH_MIN = 32;

/** Reads and checks the configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const jurisdiction = (valueOf(env, 'JURISDICTION') ?? 'us').toLowerCase();
  if (jurisdiction !== 'us' && jurisdiction !== 'ca') {
    throw new ConfigError('JURISDICTION', `must be us or ca (got "${env.JURISDICTION}")`);
  }
  const logLevel = (valueOf(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
  }
  const adminToken = valueOf(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && /\s/.test(adminToken)) {
    throw new ConfigError('ADMIN_TOKEN', 'must not contain whitespace');
  }
  if (adminToken !== undefined && adminToken.length < ADMIN_TOKEN_LENGTH_MIN) {
    throw new ConfigError(
      'ADMIN_TOKEN',
      `must be at least ${ADMIN_TOKEN_LENGTH_MIN} characters (e.g. \`openssl rand -hex 24\`), or unset to have one generated under DATA_DIR`,
    );
  }
  const ports = {
    port: port(env, 'PORT', PORT_DEFAULT),
    wsPort: port(env, 'WS_PORT', WS_PORT_DEFAULT),
    adminPort: port(env, 'ADMIN_PORT', ADMIN_PORT_DEFAULT),
  };
  if (ports.adminPort !== 0 && (ports.adminPort === ports.port || ports.adminPort === ports.wsPort)) {
    throw new ConfigError(
      'ADMIN_PORT',
      `must differ from PORT and WS_PORT (got ${ports.adminPort}): the operator API has a listener of its own; set ADMIN_HOST to expose it`,
    );
  }
  return {
    ...ports,
    adminHost: adminHostOf(env),
    trustedProxies: trustedProxiesOf(env),
    adminToken,
    dataDir: path.resolve(valueOf(env, 'DATA_DIR') ?? './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    eventstoreUrl: url(env, 'EVENTSTORE_URL', ['esdb:', 'esdb+discover:']),
    jurisdiction,
    testClock: flag(env, 'TEST_CLOCK'),
    demo: flag(env, 'DEMO'),
    logLevel,
    nodeUrl: nodeUrlOf(env),
  };
}
