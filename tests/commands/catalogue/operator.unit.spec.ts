// The operator's write commands with no HTTP at all: plain typed input in, the engine's views or a
// typed refusal out, over the real engine process journaling to the memory event store.

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { deposit, openAccount } from '../../../commands/accounts/accounts.ts';
import { changeEvent, scheduleEvent, startEvent } from '../../../commands/catalogue/events.ts';
import { recordReferral, setSettlementFee } from '../../../commands/catalogue/fees.ts';
import { amendFill } from '../../../commands/catalogue/fills.ts';
import {
  changeMarket,
  changeMarketStatus,
  listMarket,
  resultMarket,
  STAT_DETAIL_LENGTH_MAX,
} from '../../../commands/catalogue/markets.ts';
import { createTestClock, moveClock } from '../../../commands/clock/clock.ts';
import type { WriteTracker } from '../../../commands/context.ts';
import { startEngine, type RunningEngine } from '../../../engine/process.ts';
import { valueOrThrow } from '../../../commands/result.ts';
import { changeSettings } from '../../../commands/settings/change.ts';
import { loadSettingsStore } from '../../../commands/settings/store.ts';
import type { SettingsStore } from '../../../commands/settings/settings.ts';
import { MemoryEventStore } from '../../../eventstore/memory.ts';
import { T0 } from '../../domain/engine/support.ts';

const HOUR_US = 3_600_000_000;
const listing = (eventId: string, extra = {}) => ({ event_id: eventId, title: 'Will it rain?', details: {}, ...extra });

describe('operator commands (no transport)', () => {
  let dataDir: string;
  let store: MemoryEventStore;
  let engine: RunningEngine;
  let writes: WriteTracker;
  let settings: SettingsStore;
  const written = new Map<string, bigint>();
  const clock = { nowUs: () => T0 };
  const deps = () => ({ engine, writes, store, clock });

  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'operator-commands-'));
    store = new MemoryEventStore();
    let now = T0;
    written.clear();
    writes = { note: (id, position) => written.set(id, position), lastFor: (id) => written.get(id) };
    engine = await startEngine({
      store,
      dataDir,
      clock: { nowUs: () => (now += 1000) },
      logger: pino({ level: 'silent' }),
      writes,
    });
    settings = await loadSettingsStore({ store, logger: pino({ level: 'silent' }) });
  });
  afterEach(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function listedMarket(extra = {}) {
    const { event } = valueOrThrow(
      await scheduleEvent(deps(), {
        title: 'Rain',
        start: T0 + HOUR_US,
        short_title: null,
        event_type: null,
        sport: 'weather',
        competition: null,
        participants: [],
      }),
    );
    return { event, ...valueOrThrow(await listMarket(deps(), listing(event.event_id, extra))) };
  }

  it('opens and funds an account, noting the write for read-your-writes; an unknown account is account_not_found', async () => {
    const opened = valueOrThrow(await openAccount(deps(), { first_name: 'Ada' }));
    expect(opened.account).to.include({ first_name: 'Ada', status: 'active' });
    const funded = await deposit(deps(), opened.account.account_id, '25.00');
    expect(funded.ok && funded.value.balance.account_balance).to.equal('25.00');
    expect(written.get(opened.account.account_id)).to.be.a('bigint');
    expect(await deposit(deps(), '00000000-0000-4000-8000-000000000000', '1.00')).to.deep.equal({
      ok: false,
      refusal: { code: 'account_not_found' },
    });
  });

  it('schedules an event and lists a market with the listing defaults; an unknown event is event_not_found', async () => {
    const { event, market } = await listedMarket();
    expect(market).to.include({
      event_id: event.event_id,
      status: 'scheduled',
      trading: true,
      max_price: '1.00',
      grouping_id: market.market_id,
      featured: false,
    });
    expect(await listMarket(deps(), listing('00000000-0000-4000-8000-000000000000'))).to.deep.equal({
      ok: false,
      refusal: { code: 'event_not_found' },
    });
  });

  it("refuses by its own rules before the engine is asked: the stat line's size, a null grouping_id, a status change naming nothing", async () => {
    const { event, market } = await listedMarket();
    const huge = { stat_detail: 'x'.repeat(STAT_DETAIL_LENGTH_MAX) };
    expect(await listMarket(deps(), listing(event.event_id, { details: huge }))).to.deep.equal({
      ok: false,
      refusal: { code: 'stat_detail_too_long', length_max: STAT_DETAIL_LENGTH_MAX },
    });
    expect(await changeMarket(deps(), market.market_id, { changes: {}, grouping_id: null })).to.deep.equal({
      ok: false,
      refusal: { code: 'market_field_fixed', field: 'grouping_id' },
    });
    expect(await changeMarketStatus(deps(), market.market_id, {})).to.deep.equal({
      ok: false,
      refusal: { code: 'status_or_trading_required' },
    });
    expect(await amendFill(deps(), 'nope', {})).to.deep.equal({
      ok: false,
      refusal: { code: 'price_or_filled_required' },
    });
  });

  it("changes a market's fields, status and fee; results it; the engine's rules come back typed", async () => {
    const { market } = await listedMarket({ settlement_fee_percent: 5 });
    expect(market.settlement_fee_percent).to.equal(5);
    const changed = valueOrThrow(
      await changeMarket(deps(), market.market_id, {
        changes: { title: 'Rain at noon?' },
        status: 'open',
        settlement_fee_percent: null,
      }),
    );
    expect(changed.market).to.include({ title: 'Rain at noon?', status: 'open', settlement_fee_percent: null });
    const halted = valueOrThrow(await changeMarketStatus(deps(), market.market_id, { trading: false }));
    expect(halted.market).to.include({ trading: false });
    expect(valueOrThrow(await resultMarket(deps(), market.market_id, 'win')).market).to.include({
      status: 'resulted',
      result: 'win',
    });
    expect(await resultMarket(deps(), market.market_id, 'void')).to.deep.equal({
      ok: false,
      refusal: { code: 'resulted_market_not_voidable' },
    });
    expect(await changeMarketStatus(deps(), market.market_id, { status: 'open' })).to.deep.equal({
      ok: false,
      refusal: { code: 'market_settled' },
    });
    expect(await changeMarket(deps(), 'nope', { changes: { title: 't' } })).to.deep.equal({
      ok: false,
      refusal: { code: 'market_not_found' },
    });
  });

  it('changes and starts an event, with its fee; prices a market group; records a referral once', async () => {
    const { event, market } = await listedMarket({ grouping_id: 'rain-group' });
    const changed = valueOrThrow(
      await changeEvent(deps(), event.event_id, { changes: { title: 'Rain, maybe' }, event_fee_percent: 2 }),
    );
    expect(changed.event).to.include({ title: 'Rain, maybe' });
    expect(valueOrThrow(await startEvent(deps(), event.event_id)).event?.started_at).to.be.a('number');
    expect(await startEvent(deps(), event.event_id)).to.deep.equal({ ok: false, refusal: { code: 'event_started' } });
    const group = valueOrThrow(await setSettlementFee(deps(), 'market_group', 'rain-group', 3));
    expect(group.markets.map((m) => [m.market_id, m.group_fee_percent])).to.deep.equal([[market.market_id, 3]]);
    expect(await setSettlementFee(deps(), 'market_group', 'rain-group', 101)).to.deep.equal({
      ok: false,
      refusal: { code: 'fee_percent_invalid', percent_max: 100 },
    });

    const referrer = valueOrThrow(await openAccount(deps(), {})).account.account_id;
    const referee = valueOrThrow(await openAccount(deps(), {})).account.account_id;
    expect(valueOrThrow(await recordReferral(deps(), referrer, referee))).to.include({
      referrer_account_id: referrer,
      referee_account_id: referee,
    });
    expect(await recordReferral(deps(), referrer, referee)).to.deep.equal({
      ok: false,
      refusal: { code: 'referee_already_referred' },
    });
    expect(await recordReferral(deps(), referee, referee)).to.deep.equal({
      ok: false,
      refusal: { code: 'self_referral' },
    });
  });

  it('changes settings, telling the engine the referral points first; a bad value changes nothing', async () => {
    const changed = await changeSettings({ engine, settings }, { referral_points: 7, batch_limit: 5 });
    expect(changed.ok && [changed.value.referral_points, changed.value.batch_limit]).to.deep.equal([7, 5]);
    const journal = await store.readAll();
    expect(journal.some((record) => JSON.stringify(record.data).includes('"SetReferralPoints"'))).to.equal(true);
    expect(await changeSettings({ engine, settings }, { batch_limit: 0, referral_points: 9 })).to.deep.include({
      ok: false,
    });
    expect(settings.get()).to.include({ referral_points: 7, batch_limit: 5 });
  });

  it('moves the test clock by exactly one of set or advance, within 1970 to 2200', async () => {
    const testClock = createTestClock(() => T0);
    const clockDeps = { clock: testClock, engine };
    expect(await moveClock(clockDeps, {})).to.deep.equal({ ok: false, refusal: { code: 'clock_move_ambiguous' } });
    expect(await moveClock(clockDeps, { set_us: T0, advance_ms: 1 })).to.deep.equal({
      ok: false,
      refusal: { code: 'clock_move_ambiguous' },
    });
    expect(await moveClock(clockDeps, { advance_ms: -T0 })).to.deep.equal({
      ok: false,
      refusal: { code: 'clock_out_of_range' },
    });
    expect(await moveClock(clockDeps, { advance_ms: 1500 })).to.deep.equal({
      ok: true,
      value: { now_us: T0 + 1_500_000 },
    });
    expect(await moveClock(clockDeps, { set_us: T0 + HOUR_US })).to.deep.equal({
      ok: true,
      value: { now_us: T0 + HOUR_US },
    });
  });
});
