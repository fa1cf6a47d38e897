// The value rules of the order bodies and the geofencing settings, without HTTP (refusals as REST maps them).

import { expect } from 'chai';
import { DEFAULT_SETTINGS, type GeofencingSettings } from '../../../../commands/settings/settings.ts';
import { HttpError, httpErrorOf } from '../../../../api/errors.ts';
import { checkLocation as locationRefusalOf, inBlockedNetwork } from '../../../../commands/orders/location.ts';
import { GEO_REFUSAL_PREFIX } from '../../../../domain/errors.ts';
import { isInvalidField, orderRequestOf, type OrderBody } from '../../../../commands/orders/input.ts';
import type { GeofencingSettings as Geo } from '../../../../commands/settings/settings.ts';
import { normalizeIp } from '../../../../domain/address.ts';
import { check, compile } from '../../../../api/v1/validation.ts';
import { CancelOrdersBody, PlaceOrderBody, PlaceOrdersBody } from '../../../../api/openapi/schemas.ts';

const MARKET = '7d3c1f4e-8a43-4a4e-9d0c-1f6a2b3c4d5e';
const limit = (extra: Partial<Record<keyof OrderBody, unknown>> = {}) => ({
  action: 'buy',
  market_id: MARKET,
  order_type: 'limit',
  price: '0.42',
  quantity: '10',
  ...extra,
});

function statusOf(fn: () => unknown): number | 'ok' {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (err instanceof HttpError) return err.status;
    throw err;
  }
}
function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

const validateOrder = compile<OrderBody>(PlaceOrderBody);
/** The command's typed refusals, as REST answers them. */
function place(body: unknown) {
  const order = orderRequestOf(check(validateOrder, body), 'id', { ip_address: '10.0.0.1' });
  if (isInvalidField(order)) throw httpErrorOf(order);
  return order;
}
function checkLocation(settings: Geo, geoLocation: string | null | undefined, ip: string | null): void {
  const refusal = locationRefusalOf(settings, geoLocation, ip);
  if (refusal) throw httpErrorOf(refusal);
}

describe('order body rules (POST /orders)', () => {
  const cases: Array<[string, unknown, number | 'ok']> = [
    ['a limit order with a decimal string price', limit(), 'ok'],
    ['price 0.4200 equals 0.42', limit({ price: '0.4200' }), 'ok'],
    ['price as a JSON number', limit({ price: 0.42 }), 400],
    ['sub-cent price', limit({ price: '0.001' }), 400],
    ['three decimals that are not whole cents', limit({ price: '0.425' }), 400],
    ['zero price', limit({ price: '0' }), 400],
    ['negative price', limit({ price: '-0.42' }), 400],
    ['limit order without price', limit({ price: undefined }), 400],
    ['limit order with price null', limit({ price: null }), 400],
    ['market order with price null', limit({ order_type: 'market', price: null }), 'ok'],
    ['market order without price', limit({ order_type: 'market', price: undefined }), 'ok'],
    ['market order with a sub-cent price', limit({ order_type: 'market', price: '0.001' }), 400],
    ['market order with a malformed price', limit({ order_type: 'market', price: 'abc' }), 400],
    ['quantity as a JSON number', limit({ quantity: 10 }), 400],
    ['zero quantity', limit({ quantity: '0' }), 400],
    ['quantity rounding to zero at nine places', limit({ quantity: '0.0000000001' }), 400],
    ['quantity with twelve decimals', limit({ quantity: '1.123456789999' }), 'ok'],
    ['good_till_time without expiration_time', limit({ expiration: 'good_till_time' }), 400],
    ['good_till_time with expiration_time null', limit({ expiration: 'good_till_time', expiration_time: null }), 400],
    [
      'good_till_time with expiration_time',
      limit({ expiration: 'good_till_time', expiration_time: 1_900_000_000_000_000 }),
      'ok',
    ],
    ['expiration_time as a string', limit({ expiration: 'good_till_time', expiration_time: '1900000000000000' }), 400],
    ['unknown expiration', limit({ expiration: 'good_till_cancel' }), 400],
    ['unknown action', limit({ action: 'hold' }), 400],
    ['market_id that is not a UUID', limit({ market_id: 'abc' }), 400],
    ['missing market_id', limit({ market_id: undefined }), 400],
    ['client_order_id and device_id null', limit({ client_order_id: null, device_id: null }), 'ok'],
    ['cancel_on_disconnect as a string', limit({ cancel_on_disconnect: 'yes' }), 400],
    ['geo_location as a number', limit({ geo_location: 5 }), 400],
    ['a body that is an array', [limit()], 400],
  ];
  for (const [name, body, expected] of cases) {
    it(`${name}: ${expected}`, () => {
      const clean = JSON.parse(JSON.stringify(body ?? null));
      expect(statusOf(() => place(clean))).to.equal(expected);
    });
  }

  it('normalizes price to cents, rounds quantity to nine places, keeps client fields', () => {
    const order = place(
      limit({ price: '0.4200', quantity: '1.1234567895', client_order_id: 'abc 1', device_id: 'dev' }),
    );
    expect(order.price).to.equal('0.42');
    expect(order.quantity).to.equal('1.12345679');
    expect(order.client_order_id).to.equal('abc 1');
    expect(order.device_id).to.equal('dev');
    expect(order.ip_address).to.equal('10.0.0.1');
    // a market order's price goes to the engine too, which checks it against max_price
    expect(place(limit({ order_type: 'market', price: '0.4000' })).price).to.equal('0.40');
    expect(place(limit({ order_type: 'market', price: null })).price).to.equal(null);
  });

  it('names the field in the error', () => {
    expect(messageOf(() => place(limit({ price: 0.42 })))).to.match(/^price /);
    expect(messageOf(() => place(limit({ quantity: undefined })))).to.equal('quantity is required');
  });
});

describe('batch bodies', () => {
  const validateBatch = compile(PlaceOrdersBody);
  const validateCancel = compile(CancelOrdersBody);
  it('names the leg of a malformed order', () => {
    expect(messageOf(() => check(validateBatch, { orders: [limit(), limit({ quantity: 3 })] }))).to.equal(
      'orders[1].quantity must be a string',
    );
  });
  it('refuses an empty or missing orders list', () => {
    expect(statusOf(() => check(validateBatch, { orders: [] }))).to.equal(400);
    expect(statusOf(() => check(validateBatch, {}))).to.equal(400);
    expect(statusOf(() => check(validateBatch, { orders: 'x' }))).to.equal(400);
  });
  it('cancel: a flat order_ids list is 400 `orders is required`', () => {
    expect(messageOf(() => check(validateCancel, { order_ids: [MARKET] }))).to.equal('orders is required');
    expect(statusOf(() => check(validateCancel, { orders: [MARKET] }))).to.equal(400);
    expect(statusOf(() => check(validateCancel, { orders: [{ order_id: MARKET }] }))).to.equal('ok');
  });
});

describe('geofencing rules', () => {
  const on = (patch: Partial<GeofencingSettings> = {}): GeofencingSettings => ({
    enforced: true,
    allowed_codes: ['US-NJ'],
    accept_network_location: false,
    blocked_networks: ['10.8.0.0/16', '2001:db8::/32'],
    ...patch,
  });
  it('is off by default: anything passes', () => {
    expect(statusOf(() => checkLocation(DEFAULT_SETTINGS.geofencing, undefined, '1.2.3.4'))).to.equal('ok');
    expect(statusOf(() => checkLocation(DEFAULT_SETTINGS.geofencing, 'nonsense', '1.2.3.4'))).to.equal('ok');
  });
  it('enforced: omission is 422 with the documented prefix', () => {
    expect(messageOf(() => checkLocation(on(), undefined, '1.2.3.4'))).to.match(
      new RegExp(`^${GEO_REFUSAL_PREFIX.replace(/[()]/g, '\\$&')}`),
    );
    expect(statusOf(() => checkLocation(on(), null, '1.2.3.4'))).to.equal(422);
  });
  it('enforced: an allowed code passes, a bad one is 422 even when the network location is accepted', () => {
    expect(statusOf(() => checkLocation(on(), 'US-NJ', '1.2.3.4'))).to.equal('ok');
    expect(statusOf(() => checkLocation(on(), 'XX', '1.2.3.4'))).to.equal(422);
    expect(statusOf(() => checkLocation(on({ accept_network_location: true }), 'XX', '1.2.3.4'))).to.equal(422);
  });
  it('network location: accepted unless inside a blocked (VPN, proxy, hosting) range', () => {
    const settings = on({ accept_network_location: true });
    expect(statusOf(() => checkLocation(settings, undefined, '1.2.3.4'))).to.equal('ok');
    expect(statusOf(() => checkLocation(settings, undefined, '10.8.3.4'))).to.equal(422);
    expect(statusOf(() => checkLocation(settings, undefined, '2001:db8::1'))).to.equal(422);
    expect(inBlockedNetwork(normalizeIp('::ffff:10.8.0.9') as string, settings.blocked_networks)).to.equal(true);
  });
});
