// JSON Schemas of the member routes: the PATCH /me/profile body (ajv on the request path) and
// the response objects (published through openapi.ts). Field names are the API's contract (docs/MEMBER.md).

import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import {
  AVATAR_PALETTES,
  AVATAR_SEED_LENGTH_MAX,
  AVATAR_SEED_LENGTH_MIN,
  AVATAR_STYLES,
} from '../../../domain/avatar/avatar.ts';
import { LEADERBOARD_METRICS } from '../../../domain/leaderboard/board.ts';
import { LEADERBOARD_PERIODS } from '../../../domain/leaderboard/period.ts';
import { badRequest } from '../../errors.ts';

type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const strOrNull: Schema = { type: ['string', 'null'] };
const uuid: Schema = { type: 'string', format: 'uuid' };
const uuidOrNull: Schema = { type: ['string', 'null'], format: 'uuid' };
const decimal: Schema = { type: 'string', description: 'decimal string' };
const int64: Schema = { type: 'integer', description: 'UNIX microseconds' };
const int64OrNull: Schema = { type: ['integer', 'null'], description: 'UNIX microseconds' };
const integer: Schema = { type: 'integer' };
const dateTime: Schema = { type: 'string', format: 'date-time' };
const dateTimeOrNull: Schema = { type: ['string', 'null'], format: 'date-time' };
const cursor: Schema = { type: ['string', 'null'], description: 'Opaque; null when there are no more pages' };
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const object = (properties: Record<string, Schema>, optional: readonly string[] = []): Schema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
});

const AvatarObject: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['palette', 'seed', 'style'],
  properties: {
    palette: { type: 'string', enum: [...AVATAR_PALETTES] },
    seed: { type: 'string', minLength: AVATAR_SEED_LENGTH_MIN, maxLength: AVATAR_SEED_LENGTH_MAX },
    style: { type: 'string', enum: [...AVATAR_STYLES] },
  },
};

/** Every key optional, at least one; `avatar: null` refused; handle rules beyond the type are 422s. */
export const ProfilePatchBody: Schema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    avatar: AvatarObject,
    handle: {
      type: 'string',
      description: '3 to 24 characters: lowercase letters, digits and inner . or _; case folded',
    },
    leaderboard_opt_in: { type: 'boolean' },
  },
};

const Me: Schema = object(
  {
    account_id: uuid,
    avatar_url: strOrNull,
    first_name: strOrNull,
    last_name: strOrNull,
    handle: strOrNull,
    handle_changeable_at: dateTimeOrNull,
    key_id: strOrNull,
    leaderboard_opt_in: { type: 'boolean' },
    method: { type: 'string', enum: ['api_key', 'bearer'] },
    scope: { type: ['string', 'null'], enum: ['read_only', 'read_write', null] },
    user_id: uuid,
    avatar: {
      oneOf: [{ ...AvatarObject, additionalProperties: true }, { type: 'null' }],
      description: 'The chosen avatar; null when none was chosen',
    },
  },
  ['avatar'],
);

const MeResponse: Schema = object({ me: ref('Me') });

const LeaderboardRow: Schema = object({
  rank: { type: 'integer', minimum: 1 },
  handle: strOrNull,
  avatar_url: strOrNull,
  top_sport: strOrNull,
  top_sport_icon_url: strOrNull,
  value: {
    type: ['string', 'integer', 'number'],
    description: 'dollar string on money boards, integer on count boards, number 0 to 1 on ratio boards',
  },
});

const Leaderboard: Schema = object({
  period: { type: 'string', enum: [...LEADERBOARD_PERIODS] },
  category: str,
  metric: { type: 'string', enum: [...LEADERBOARD_METRICS] },
  shown: { type: 'boolean' },
  refreshed_at: dateTimeOrNull,
  next_reset_at: dateTimeOrNull,
  leaderboard: { type: 'array', items: ref('LeaderboardRow') },
});

const ledgerCommon: Record<string, Schema> = {
  id: uuid,
  account_id: uuid,
  amount: decimal,
  points: { type: 'number' },
  type: str,
  event_id: uuidOrNull,
  market_id: uuidOrNull,
  fee_id: uuidOrNull,
  payment_id: uuidOrNull,
  settlement_id: uuidOrNull,
  inserted_at: int64,
  time: dateTime,
};

const LoyaltyEntry: Schema = object({
  ...ledgerCommon,
  type: {
    type: 'string',
    description:
      '`rollup` (points credited at a result for the amount risked) or `referral` (the referee first traded: the referrer is credited)',
  },
  referee_account_id: { ...uuidOrNull, description: 'On a referral entry: the account referred' },
  referrer_account_id: { ...uuidOrNull, description: 'On a referral entry: the account that referred it' },
});
const WithdrawalEntry: Schema = object({
  ...ledgerCommon,
  method: strOrNull,
  reason: strOrNull,
  sub_method: strOrNull,
});
const FeeEntry: Schema = object({
  ...ledgerCommon,
  type: { type: 'string', enum: ['fee', 'fee_refund'] },
  amount: {
    ...decimal,
    description:
      'The signed balance effect: a `fee` is never positive (0.00: assessed and came to nothing), a `fee_refund` never negative',
  },
  fee_id: { ...uuidOrNull, description: 'A fee: its own id; a refund: the fee it refunds' },
  settlement_id: {
    ...uuidOrNull,
    description: 'The settlement that charged or refunded it (settlement, market group and event fees, voids)',
  },
});
const AdjustmentEntry: Schema = object({ ...ledgerCommon, reason: strOrNull });

const LoyaltyList: Schema = object({ cursor, loyalty: { type: 'array', items: ref('LoyaltyEntry') } });
const WithdrawalList: Schema = object({ cursor, withdrawals: { type: 'array', items: ref('WithdrawalEntry') } });
const FeeList: Schema = object({ cursor, fees: { type: 'array', items: ref('FeeEntry') } });
const AdjustmentList: Schema = object({ cursor, adjustments: { type: 'array', items: ref('AdjustmentEntry') } });

const MARKET_STATS_DECIMALS = [
  'position',
  'available_position',
  'contracts_traded',
  'contracts_closed',
  'contracts_expired',
  'contracts_settled',
  'buy_contracts_traded',
  'buy_contracts_closed',
  'buy_contracts_expired',
  'buy_contracts_settled',
  'sell_contracts_traded',
  'sell_contracts_closed',
  'sell_contracts_expired',
  'sell_contracts_settled',
  'contracts_in_orders',
  'contracts_in_buy_orders',
  'contracts_in_sell_orders',
  'cancelled_contracts',
  'cancelled_buy_contracts',
  'cancelled_sell_contracts',
  'order_liability',
  'buy_order_liability',
  'sell_order_liability',
  'position_premium_liability',
  'total_liability',
  'max_liability_loss',
  'max_liability_win',
  'max_risk',
  'open_risk',
  'original_risk',
  'buy_original_risk',
  'sell_original_risk',
  'open_premium',
  'average_open_premium',
  'closed_premium',
  'closed_buy_premium',
  'closed_sell_premium',
  'expired_premium',
  'expired_buy_premium',
  'expired_sell_premium',
  'total_fees',
  'closed_fees',
  'expired_fees',
  'max_potential_fee',
  'open_potential_fee',
  'potential_order_trade_fee',
  'pending_close_fee',
  'closed_gross_pnl',
  'closed_net_pnl',
  'expired_gross_pnl',
  'expired_net_pnl',
  'total_settlement_pnl',
  'total_net_pnl',
  'max_potential_profit',
  'open_potential_profit',
  'pending_close_pnl',
  'market_max_price',
] as const;

export const MARKET_STATS_COUNTS = [
  'orders',
  'buy_orders',
  'sell_orders',
  'open_order_count',
  'cancelled_orders',
  'cancelled_buy_orders',
  'cancelled_sell_orders',
  'rejected_orders',
  'rejected_buy_orders',
  'rejected_sell_orders',
  'trade_count',
  'buy_trade_count',
  'sell_trade_count',
  'open_trade_count',
  'settlements',
  'buy_settlements',
  'sell_settlements',
] as const;

export const MARKET_STATS_DECIMAL_FIELDS: readonly string[] = MARKET_STATS_DECIMALS;

const MarketStats: Schema = object({
  account_id: uuid,
  market_id: uuid,
  event_id: uuidOrNull,
  competition: strOrNull,
  sport: strOrNull,
  // the live-index fields: null once the market is no longer held there (archived, or never listed)
  status: { ...strOrNull, description: "The market's status; null once the market is archived" },
  title: { ...strOrNull, description: "The market's title; null once the market is archived" },
  event_start_time: { ...int64OrNull, description: "The event's start; null once the market is archived" },
  archived_at: { ...int64OrNull, description: 'When the operator archived the market; null until then' },
  last_settled_at: int64OrNull,
  settled_at: int64OrNull,
  inserted_at: int64,
  updated_at: int64,
  ...Object.fromEntries(MARKET_STATS_DECIMALS.map((name) => [name, decimal])),
  ...Object.fromEntries(MARKET_STATS_COUNTS.map((name) => [name, integer])),
});

const MarketStatsList: Schema = object({ cursor, market_stats: { type: 'array', items: ref('MarketStats') } });

export const MEMBER_COMPONENT_SCHEMAS: Record<string, Schema> = {
  Me,
  MeResponse,
  ProfilePatchBody,
  Leaderboard,
  LeaderboardRow,
  LoyaltyEntry,
  WithdrawalEntry,
  FeeEntry,
  AdjustmentEntry,
  LoyaltyList,
  WithdrawalList,
  FeeList,
  AdjustmentList,
  MarketStats,
  MarketStatsList,
};

// ── request validation ───────────────────────────────────────────────────────────────────

const ajv = new Ajv2020({ strict: false, allErrors: false });

function describe(error: ErrorObject): string {
  const field = error.instancePath.split('/').filter(Boolean).join('.');
  const name = field === '' ? 'Request body' : field;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `${name} must be ${params.type === 'object' ? 'an object' : `a ${String(params.type)}`}`;
    case 'required':
      return `${field === '' ? '' : `${field}.`}${String(params.missingProperty)} is required`;
    case 'enum':
      return `${name} must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'minLength':
    case 'maxLength':
      return `${name} must be ${AVATAR_SEED_LENGTH_MIN} to ${AVATAR_SEED_LENGTH_MAX} characters`;
    case 'additionalProperties':
      return `${field === '' ? '' : `${field}.`}${String(params.additionalProperty)} is not a known field`;
    case 'minProperties':
      return 'At least one of avatar, handle, leaderboard_opt_in is required';
    default:
      return `${name} is invalid`;
  }
}

const validators = new Map<Schema, ValidateFunction>();

/** Validates a body against a schema; the first failure is a 400 naming the field. */
export function validateBody<T>(schema: Schema, body: unknown): T {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  if (!validate(body)) {
    const first = validate.errors?.[0];
    throw badRequest(first ? describe(first) : 'Request body is invalid');
  }
  return body as T;
}
