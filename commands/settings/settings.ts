// Operator settings: one document, changed through PATCH /admin/v1/settings, read by routes.

import { DEFAULT_REFERRAL_POINTS } from '../../domain/engine/referrals.ts';
import type { CommandResult } from '../result.ts';

export type LeaderboardPeriod = 'daily' | 'weekly' | 'monthly' | 'yearly' | 'all';
export type LeaderboardMetric =
  'volume' | 'profit' | 'predictions' | 'markets' | 'win_rate' | 'biggest_win' | 'return' | 'streak';

export interface LeaderboardBoardSetting {
  period: LeaderboardPeriod;
  category: string;
  metric: LeaderboardMetric;
  shown: boolean;
}

export interface GeofencingSettings {
  enforced: boolean;
  allowed_codes: string[];
  accept_network_location: boolean;
  /** CIDRs identified as VPN, proxy or hosting ranges. */
  blocked_networks: string[];
}

/** Per-client bounds on the WebSocket feed (docs/REALTIME.md "Limits and protections"). */
export interface WebsocketLimitsSettings {
  /** Open sockets from one peer address (handshakes under way included); past it a handshake is 429. */
  connections_per_address: number;
  /** Open sockets of one member account (over all its keys and tokens) or one OAuth application; past it 429. */
  connections_per_identity: number;
  /** Joins one socket may start per second; past it a join is refused `too many joins`. */
  joins_per_second: number;
}

export interface Settings {
  dynamic_registration: boolean;
  registration_limit_per_hour: number;
  leaderboard_enabled: boolean;
  leaderboard_boards: LeaderboardBoardSetting[];
  reserved_handles: string[];
  blocked_handles: string[];
  batch_limit: number;
  geofencing: GeofencingSettings;
  oauth_unavailable: boolean;
  /** A WebSocket silent this long is closed (and its member's cancel_on_disconnect orders cancelled). */
  ws_heartbeat_timeout_ms: number;
  /** Live orders one account may hold; a new order over it is refused (422). */
  max_live_orders_per_account: number;
  /** Loyalty points credited to a referrer when the referee first trades (the engine holds the value in force). */
  referral_points: number;
  /** Per-client caps on WebSocket connections and the join rate of one socket. */
  websocket_limits: WebsocketLimitsSettings;
  /** Requests per second per account over all its credentials (token buckets, burst two seconds' worth); 0 turns one off. */
  rate_limits: RateLimitSettings;
  /** Bounds on the public HTTP listener. */
  http_limits: HttpLimitSettings;
}

export interface RateLimitSettings {
  /** GET requests under /api/v1 per second per account. */
  read_per_second: number;
  /** Other requests under /api/v1 per second per account; a batch counts one per leg. */
  write_per_second: number;
}

export interface HttpLimitSettings {
  /** Open connections from one address on the public port (trusted proxies excepted); past it new ones are closed at once. */
  connections_per_address: number;
}

export const DEFAULT_READS_PER_SECOND = 200;
export const DEFAULT_WRITES_PER_SECOND = 100;
export const DEFAULT_CONNECTIONS_PER_ADDRESS = 256;

export const DEFAULT_SETTINGS: Settings = {
  dynamic_registration: false,
  registration_limit_per_hour: 10,
  leaderboard_enabled: true,
  leaderboard_boards: [],
  reserved_handles: ['admin', 'support', 'exchange', 'root', 'system', 'moderator'],
  blocked_handles: [],
  batch_limit: 100,
  geofencing: { enforced: false, allowed_codes: [], accept_network_location: false, blocked_networks: [] },
  oauth_unavailable: false,
  ws_heartbeat_timeout_ms: 60_000,
  max_live_orders_per_account: 10_000,
  referral_points: DEFAULT_REFERRAL_POINTS,
  websocket_limits: { connections_per_address: 200, connections_per_identity: 50, joins_per_second: 10 },
  rate_limits: { read_per_second: DEFAULT_READS_PER_SECOND, write_per_second: DEFAULT_WRITES_PER_SECOND },
  http_limits: { connections_per_address: DEFAULT_CONNECTIONS_PER_ADDRESS },
};

export interface SettingsStore {
  /** The current settings (kept in memory, always up to date in this process). */
  get(): Settings;
  /** Validates and applies a partial change; appends a SettingsChanged event; returns the result. */
  update(patch: Partial<Settings>): Promise<CommandResult<Settings>>;
  /**
   * A SettingsChanged journaled at `revision` of the stream (by any node, this one included):
   * the held copy takes it when it is newer. How another node's change reaches this one.
   */
  observe?(settings: Settings, revision: bigint): void;
}
