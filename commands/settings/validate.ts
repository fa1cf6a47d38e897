// Validation of a settings patch: each field's JSON type and its own rules. Pure; the store and
// the admin route both rely on it, so a bad value can never reach the event stream.

import { InvalidInput } from '../../domain/errors.ts';
import { REFERRAL_POINTS_MAX } from '../../domain/engine/referrals.ts';
import { LEADERBOARD_METRICS, sportKey } from '../../domain/leaderboard/board.ts';
import { LEADERBOARD_PERIODS } from '../../domain/leaderboard/period.ts';
import type { GeofencingSettings, LeaderboardBoardSetting, Settings } from './settings.ts';

/** Bounds that keep one settings document small and sane. */
const REGISTRATION_LIMIT_PER_HOUR_MAX = 1_000_000;
const BATCH_LIMIT_MAX = 10_000;
const HANDLE_LIST_LENGTH_MAX = 10_000;
const BOARDS_LENGTH_MAX = 1_000;
const CODES_LENGTH_MAX = 1_000;
/** Bounds of `ws_heartbeat_timeout_ms`: a tenth of a second (tests) to a day. */
const WS_HEARTBEAT_TIMEOUT_MS_MIN = 100;
const WS_HEARTBEAT_TIMEOUT_MS_MAX = 86_400_000;
/** `max_live_orders_per_account` may be raised up to this (the engine holds every live order in memory). */
const LIVE_ORDERS_PER_ACCOUNT_MAX = 1_000_000;
const CATEGORY_LENGTH_MAX = 64;
/** Upper bounds of `websocket_limits` (the feed holds at most 20,000 sockets in all). */
const WS_CONNECTIONS_PER_CLIENT_MAX = 20_000;
const WS_JOINS_PER_SECOND_MAX = 1_000;
/** `rate_limits` values may be raised up to this many requests per second per account (benchmarks go near it). */
const RATE_LIMIT_PER_SECOND_MAX = 10_000_000;
/** `http_limits.connections_per_address` may be raised up to the listener's global cap (HTTP_CONNECTIONS_MAX). */
const CONNECTIONS_PER_ADDRESS_MAX = 10_000;

type Checker<K extends keyof Settings> = (value: unknown, field: string) => Settings[K];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new InvalidInput(`${field} must be a boolean`);
  return value;
}

function integerIn(min: number, max: number) {
  return (value: unknown, field: string): number => {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new InvalidInput(`${field} must be an integer`);
    if (value < min || value > max) throw new InvalidInput(`${field} must be between ${min} and ${max}`);
    return value;
  };
}

function stringList(maxLength: number, normalize: (s: string) => string = (s) => s) {
  return (value: unknown, field: string): string[] => {
    if (!Array.isArray(value)) throw new InvalidInput(`${field} must be an array of strings`);
    if (value.length > maxLength) throw new InvalidInput(`${field} must have at most ${maxLength} entries`);
    const out: string[] = [];
    value.forEach((entry, index) => {
      if (typeof entry !== 'string' || entry.trim() === '')
        throw new InvalidInput(`${field}[${index}] must be a non-empty string`);
      const normalized = normalize(entry.trim());
      if (!out.includes(normalized)) out.push(normalized);
    });
    return out;
  };
}

/** IPv4 or IPv6 CIDR (a bare address counts as a single-host range). */
export function isCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  if (rest.length > 0 || address === undefined) return false;
  const v4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(address);
  const v6 = !v4 && /^[0-9a-f:.]+$/i.test(address) && address.includes(':') && address.split('::').length <= 2;
  if (!v4 && !v6) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (v4 ? 32 : 128);
}

function boards(value: unknown, field: string): LeaderboardBoardSetting[] {
  if (!Array.isArray(value)) throw new InvalidInput(`${field} must be an array`);
  if (value.length > BOARDS_LENGTH_MAX)
    throw new InvalidInput(`${field} must have at most ${BOARDS_LENGTH_MAX} entries`);
  const seen = new Set<string>();
  return value.map((entry, index) => {
    const at = `${field}[${index}]`;
    if (!isObject(entry)) throw new InvalidInput(`${at} must be an object`);
    for (const key of Object.keys(entry)) {
      if (!['period', 'category', 'metric', 'shown'].includes(key))
        throw new InvalidInput(`${at}.${key} is not a known field`);
    }
    const { period, category, metric, shown } = entry;
    if (typeof period !== 'string' || !(LEADERBOARD_PERIODS as readonly string[]).includes(period)) {
      throw new InvalidInput(`${at}.period must be one of ${LEADERBOARD_PERIODS.join(', ')}`);
    }
    const categoryKey =
      typeof category === 'string' && category.length <= CATEGORY_LENGTH_MAX ? sportKey(category) : null;
    if (categoryKey === null) throw new InvalidInput(`${at}.category must be all or a sport key`);
    if (typeof metric !== 'string' || !(LEADERBOARD_METRICS as readonly string[]).includes(metric)) {
      throw new InvalidInput(`${at}.metric must be one of ${LEADERBOARD_METRICS.join(', ')}`);
    }
    if (typeof shown !== 'boolean') throw new InvalidInput(`${at}.shown must be a boolean`);
    const board: LeaderboardBoardSetting = {
      period: period as LeaderboardBoardSetting['period'],
      category: categoryKey,
      metric: metric as LeaderboardBoardSetting['metric'],
      shown,
    };
    const key = `${board.period}/${board.category}/${board.metric}`;
    if (seen.has(key)) throw new InvalidInput(`${at} repeats the board ${key}`);
    seen.add(key);
    return board;
  });
}

const GEOFENCING_KEYS = ['enforced', 'allowed_codes', 'accept_network_location', 'blocked_networks'] as const;

/** A geofencing object; fields left out keep their current value. */
function geofencing(current: GeofencingSettings) {
  return (value: unknown, field: string): GeofencingSettings => {
    if (!isObject(value)) throw new InvalidInput(`${field} must be an object`);
    for (const key of Object.keys(value)) {
      if (!(GEOFENCING_KEYS as readonly string[]).includes(key))
        throw new InvalidInput(`${field}.${key} is not a known field`);
    }
    const next: GeofencingSettings = { ...current };
    if (value.enforced !== undefined) next.enforced = boolean(value.enforced, `${field}.enforced`);
    if (value.accept_network_location !== undefined) {
      next.accept_network_location = boolean(value.accept_network_location, `${field}.accept_network_location`);
    }
    if (value.allowed_codes !== undefined) {
      next.allowed_codes = stringList(CODES_LENGTH_MAX)(value.allowed_codes, `${field}.allowed_codes`);
    }
    if (value.blocked_networks !== undefined) {
      const networks = stringList(CODES_LENGTH_MAX)(value.blocked_networks, `${field}.blocked_networks`);
      networks.forEach((cidr, index) => {
        if (!isCidr(cidr)) throw new InvalidInput(`${field}.blocked_networks[${index}] must be a CIDR`);
      });
      next.blocked_networks = networks;
    }
    return next;
  };
}

/**
 * An object of integer fields, each within its bounds; fields left out keep their current value,
 * unknown ones are refused.
 */
function integerFields<T extends object>(current: T, bounds: { [K in keyof T]: [number, number] }) {
  return (value: unknown, field: string): T => {
    if (!isObject(value)) throw new InvalidInput(`${field} must be an object`);
    const next = { ...current };
    for (const [key, raw] of Object.entries(value)) {
      const range = (bounds as Record<string, [number, number] | undefined>)[key];
      if (range === undefined) throw new InvalidInput(`${field}.${key} is not a known field`);
      (next as Record<string, number>)[key] = integerIn(range[0], range[1])(raw, `${field}.${key}`);
    }
    return next;
  };
}

const lowercase = (s: string) => s.toLowerCase();

/**
 * Checks a partial settings change against the current settings and returns the normalized
 * patch (only the fields sent). Unknown fields and wrong JSON types are InvalidInput (400).
 */
export function validateSettingsPatch(patch: unknown, current: Settings): Partial<Settings> {
  if (!isObject(patch)) throw new InvalidInput('settings must be an object');
  const checkers: { [K in keyof Settings]: Checker<K> } = {
    dynamic_registration: boolean,
    registration_limit_per_hour: integerIn(0, REGISTRATION_LIMIT_PER_HOUR_MAX),
    leaderboard_enabled: boolean,
    leaderboard_boards: boards,
    reserved_handles: stringList(HANDLE_LIST_LENGTH_MAX, lowercase),
    blocked_handles: stringList(HANDLE_LIST_LENGTH_MAX, lowercase),
    batch_limit: integerIn(1, BATCH_LIMIT_MAX),
    geofencing: geofencing(current.geofencing),
    oauth_unavailable: boolean,
    ws_heartbeat_timeout_ms: integerIn(WS_HEARTBEAT_TIMEOUT_MS_MIN, WS_HEARTBEAT_TIMEOUT_MS_MAX),
    max_live_orders_per_account: integerIn(1, LIVE_ORDERS_PER_ACCOUNT_MAX),
    referral_points: integerIn(0, REFERRAL_POINTS_MAX),
    websocket_limits: integerFields(current.websocket_limits, {
      connections_per_address: [1, WS_CONNECTIONS_PER_CLIENT_MAX],
      connections_per_identity: [1, WS_CONNECTIONS_PER_CLIENT_MAX],
      joins_per_second: [1, WS_JOINS_PER_SECOND_MAX],
    }),
    rate_limits: integerFields(current.rate_limits, {
      read_per_second: [0, RATE_LIMIT_PER_SECOND_MAX],
      write_per_second: [0, RATE_LIMIT_PER_SECOND_MAX],
    }),
    http_limits: integerFields(current.http_limits, { connections_per_address: [1, CONNECTIONS_PER_ADDRESS_MAX] }),
  };
  const out: Partial<Record<keyof Settings, unknown>> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (!(key in checkers)) throw new InvalidInput(`${key} is not a known setting`);
    const field = key as keyof Settings;
    out[field] = (checkers[field] as Checker<typeof field>)(value, key);
  }
  return out as Partial<Settings>;
}
