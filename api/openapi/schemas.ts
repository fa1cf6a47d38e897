// JSON Schemas of the trading API: request bodies (compiled by ajv on the request path) and
// response objects (published in the OpenAPI document; the tests validate every answer against
// them). Field names, types and nullability are the API's contract: clients rely on them exactly.

type Schema = Record<string, unknown>;

// ── building blocks ───────────────────────────────────────────────────────────────────────
const DECIMAL_PATTERN = '^-?(?:\\d+(?:\\.\\d*)?|\\.\\d+)$';
const UNSIGNED_DECIMAL_PATTERN = '^(?:\\d+(?:\\.\\d*)?|\\.\\d+)$';
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });
const decimal: Schema = { type: 'string', pattern: DECIMAL_PATTERN, description: 'decimal string' };
const decimalOrNull = nullable(decimal);
const int64: Schema = { type: 'integer', description: 'UNIX microseconds' };
const int64OrNull: Schema = { type: ['integer', 'null'], description: 'UNIX microseconds' };
const uuid: Schema = { type: 'string', format: 'uuid' };
const uuidOrNull: Schema = { type: ['string', 'null'], format: 'uuid' };
const dateTime: Schema = { type: 'string', format: 'date-time' };
const dateTimeOrNull: Schema = { type: ['string', 'null'], format: 'date-time' };
const str: Schema = { type: 'string' };
const strOrNull: Schema = { type: ['string', 'null'] };
const bool: Schema = { type: 'boolean' };
const integer: Schema = { type: 'integer' };
const numberOrNull: Schema = { type: ['number', 'null'] };
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

function object(properties: Record<string, Schema>, optional: readonly string[] = []): Schema {
  return { type: 'object', properties, required: Object.keys(properties).filter((k) => !optional.includes(k)) };
}

export const ORDER_STATUSES = [
  'created',
  'requested',
  'accepted',
  'delayed',
  'open',
  'filled',
  'rejected',
  'cancelled',
  'partially_cancelled',
] as const;
export const MARKET_STATUSES = ['scheduled', 'pre_open', 'open', 'closed', 'resulted', 'cancelled', 'voided'] as const;
export const FILL_STATUSES = ['created', 'open', 'settled', 'cancelled'] as const;

// ── request bodies ────────────────────────────────────────────────────────────────────────
const orderBodyProperties: Record<string, Schema> = {
  action: { enum: ['buy', 'sell'] },
  market_id: uuid,
  order_type: { enum: ['limit', 'market'] },
  price: {
    type: ['string', 'null'],
    pattern: UNSIGNED_DECIMAL_PATTERN,
    maxLength: 40,
    description: 'Dollars as a decimal string; whole cents; a JSON number is refused',
  },
  quantity: {
    type: 'string',
    pattern: UNSIGNED_DECIMAL_PATTERN,
    maxLength: 40,
    description: 'Contracts as a decimal string; a JSON number is refused',
  },
  cancel_on_disconnect: { type: ['boolean', 'null'] },
  client_order_id: { type: ['string', 'null'], maxLength: 256 },
  device_id: { type: ['string', 'null'], maxLength: 256 },
  expiration: { enum: ['good_till_start', 'good_till_time', null] },
  expiration_time: {
    type: ['integer', 'null'],
    minimum: 0,
    description: 'UNIX microseconds; required with good_till_time',
  },
  geo_location: { type: ['string', 'null'], maxLength: 128 },
};

export const PlaceOrderBody: Schema = {
  type: 'object',
  properties: orderBodyProperties,
  required: ['action', 'market_id', 'order_type', 'quantity'],
};

export const PlaceOrdersBody: Schema = {
  type: 'object',
  properties: {
    orders: {
      type: 'array',
      minItems: 1,
      items: PlaceOrderBody,
      description: 'At most the batch limit (100 by default)',
    },
    geo_location: { type: ['string', 'null'], maxLength: 128 },
  },
  required: ['orders'],
};

export const CancelOrdersBody: Schema = {
  type: 'object',
  properties: {
    orders: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', properties: { order_id: uuid }, required: ['order_id'] },
    },
    geo_location: { type: ['string', 'null'], maxLength: 128 },
  },
  required: ['orders'],
};

// ── response objects ──────────────────────────────────────────────────────────────────────
const ErrorBody: Schema = object({ error: str });

const Order: Schema = object({
  id: uuid,
  market_id: uuid,
  action: { enum: ['buy', 'sell'] },
  order_type: { enum: ['limit', 'market'] },
  status: { enum: [...ORDER_STATUSES] },
  quantity: decimal,
  filled: decimal,
  filled_percentage: integer,
  price: decimalOrNull,
  avg_price: decimalOrNull,
  total_value: decimal,
  amount: decimalOrNull,
  filled_amount: decimalOrNull,
  client_order_id: strOrNull,
  device_id: strOrNull,
  ip_address: strOrNull,
  expiration: { enum: ['good_till_start', 'good_till_time', null] },
  expiration_time: int64OrNull,
  expires_at: int64OrNull,
  accepted_at: int64OrNull,
  delayed_until: int64OrNull,
  inserted_at: int64,
  time: dateTime,
  placed_pre_start: bool,
  fix_order: bool,
  cancellation_reason: strOrNull,
  rejection_reason: strOrNull,
  odds_type: { type: ['string', 'null'] },
  odds_value: { type: ['string', 'null'] },
});

const fillDecimals = [
  'closed_contracts',
  'expired_contracts',
  'settled_contracts',
  'remaining',
  'virtual_remaining',
  'closing',
  'closed_fee',
  'expired_fee',
  'closed_pnl',
  'expired_pnl',
  'closed_net_pnl',
  'expired_net_pnl',
  'gross_pnl',
  'pc_premium',
  'pc_risk',
  'pc_to_win',
  'remaining_potential_fee',
  'remaining_premium',
  'remaining_risk',
  'remaining_to_win',
  'trade_fee',
  'unrounded_trade_fee',
  'total_fee',
];
const Fill: Schema = object(
  {
    trade_id: uuid,
    order_id: uuid,
    account_id: uuid,
    market_id: uuid,
    client_order_id: strOrNull,
    action: { enum: ['buy', 'sell'] },
    status: { enum: [...FILL_STATUSES] },
    liquidity_action: { enum: ['provider', 'taker'] },
    price: decimal,
    filled: decimal,
    traded_contracts: decimal,
    original_filled: decimal,
    original_price: decimal,
    original_premium: decimal,
    original_risk: decimal,
    original_to_win: decimal,
    amended: bool,
    last_modified_at: int64OrNull,
    last_modified_by_admin_id: uuidOrNull,
    admin_log: { type: ['object', 'null'] },
    ...Object.fromEntries(fillDecimals.map((name) => [name, decimal])),
    remaining_potential_fee: {
      ...decimal,
      description:
        'What the settlement-side fee percents in force (market, event, market group) would charge on `remaining_to_win` if the unsettled part won',
    },
    total_fee: {
      ...decimal,
      description:
        "The trade fee net of refunds, plus this fill's share of the settlement-side fees of its settlements",
    },
    points: { type: 'number' },
    settlements_count: integer,
    placed_pre_start: bool,
    pre_start: bool,
    device_id: strOrNull,
    ip_address: strOrNull,
    opened_at: int64,
    expires_at: int64OrNull,
    settled_at: dateTimeOrNull,
    inserted_at: int64,
    updated_at: int64,
    time: dateTime,
  },
  ['last_modified_by_admin_id', 'admin_log'],
);

const marketStrings = [
  'short_title',
  'group_title',
  'description',
  'question',
  'rules',
  'specifier',
  'symbol',
  'position',
  'result',
  'powered_by',
  'competition',
  'sport',
  'event_title',
  'event_short_title',
  'event_type',
  'event_status',
  'grouping_name',
];
const Market: Schema = object({
  market_id: uuid,
  event_id: uuid,
  status: { enum: [...MARKET_STATUSES, 'suspended'] },
  trading: bool,
  archived: bool,
  featured: bool,
  featured_home: bool,
  manual_probability: bool,
  price: decimalOrNull,
  last_traded_price: decimalOrNull,
  max_price: decimal,
  probability: { ...numberOrNull, minimum: 0, maximum: 1 },
  price_change24h: integer,
  open_interest: decimal,
  total_volume: decimal,
  volume24h: decimal,
  bids: { type: 'array' },
  offers: { type: 'array' },
  recent_trades: { type: 'array', maxItems: 15 },
  // no element shapes are promised for these: lists of strings, as the operator sets them
  participants: {
    type: 'array',
    items: str,
    description: "Participants: the market's own when the operator set them, else its event's",
  },
  filters: { type: 'array', items: str, description: 'Categorizations' },
  trading_filters: { type: 'array', items: str, description: 'Trade categorizations' },
  keywords: { type: 'array', items: str },
  title: str,
  ...Object.fromEntries(marketStrings.map((name) => [name, strOrNull])),
  event_start: dateTimeOrNull,
  home_category: { enum: ['Upcoming', 'Live', null] },
  grouping_id: str,
  in_play_delay_sec: integer,
  points_cost: integer,
  last_probability_at: int64OrNull,
  settled_at: int64OrNull,
  timestamp: dateTime,
  timestamp_int: int64,
  stat_detail: {
    description: 'Stat line the market derives from (any JSON, as the operator set it); null for non-stat-line markets',
  },
});

const Position: Schema = object({
  account_id: uuid,
  market_id: uuid,
  event_id: uuidOrNull,
  position: decimal,
  side: { enum: ['long', 'short', 'flat'] },
  contracts: decimal,
  avg_price: decimalOrNull,
  premium: decimal,
  risk: decimal,
  to_win: decimal,
  realized_pnl: decimal,
  fees: decimal,
  market_max_price: decimal,
  updated_at: int64,
});

const Balance: Schema = object({
  account_id: uuid,
  user_id: uuid,
  account_balance: decimal,
  available_balance: decimal,
  buy_order_liability: decimal,
  sell_order_liability: decimal,
  position_premium_liability: decimal,
  escrow: decimal,
  fee_schedule: str,
  base_fee_percent: numberOrNull,
  maker_factor: numberOrNull,
  taker_factor: numberOrNull,
  loyalty_tier: str,
  points: integer,
  total_adjustments: decimal,
  total_deposits: decimal,
  total_withdrawals: decimal,
  total_fees: decimal,
  total_settlement_pnl: decimal,
  total_traded: decimal,
  total_trade_count: integer,
});

const cursor: Schema = { type: ['string', 'null'] };
const OrderResponse: Schema = object({ order: ref('Order') });
const OrderList: Schema = object({ cursor, orders: { type: 'array', items: ref('Order') } });
const MarketList: Schema = object({ cursor, markets: { type: 'array', items: ref('Market') } });
const FillList: Schema = object({ cursor, fills: { type: 'array', items: ref('Fill') } });
const PositionList: Schema = object({ cursor, positions: { type: 'array', items: ref('Position') } });
const BalanceResponse: Schema = object({ balance: ref('Balance') });
const BatchLegResult: Schema = {
  oneOf: [
    object({ order: ref('Order') }),
    {
      type: 'object',
      properties: {
        errors: { type: 'array', minItems: 1, items: object({ error: str }) },
        order_id: uuid,
      },
      required: ['errors'],
      not: { properties: { order: true }, required: ['order'] },
    },
  ],
};
const BatchPlaceResponse: Schema = object({ results: { type: 'array', items: ref('BatchLegResult') } });
const BatchCancelResponse: Schema = object({
  cancellations: { type: 'array', items: object({ order_id: uuid, status: str }) },
});

/** Every component schema, keyed by its name in `#/components/schemas`. */
export const COMPONENT_SCHEMAS: Record<string, Schema> = {
  Error: ErrorBody,
  Order,
  Fill,
  Market,
  Position,
  Balance,
  OrderResponse,
  OrderList,
  MarketList,
  FillList,
  PositionList,
  BalanceResponse,
  BatchLegResult,
  BatchPlaceResponse,
  BatchCancelResponse,
  PlaceOrderBody,
  PlaceOrdersBody,
  CancelOrdersBody,
};
