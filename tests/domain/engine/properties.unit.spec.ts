// Property tests over random command sequences: money is conserved to the cent, the available
// balance is never negative (but where a corrected result or a void took winnings back), no order fills beyond its quantity, books never rest crossed,
// liabilities kept incrementally equal a recomputation, the read models folded from the facts
// show what the engine's state does, and replay (also from a snapshot) reproduces the same facts
// and state hash.

import { expect } from 'chai';
import fc from 'fast-check';
import { assertBookInvariants } from '../../../domain/book/match.ts';
import { Engine } from '../../../domain/engine/engine.ts';
import { liabilityOf } from '../../../domain/engine/funds.ts';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import { ledgerSum } from '../../../domain/engine/ledger.ts';
import { decodeState, encodeState, encodeStateV1, stateHash } from '../../../domain/engine/snapshot.ts';
import { ZERO } from '../../../domain/money/decimal.ts';
import { Big } from '../../../domain/money/big.ts';
import { fundsFiguresOf } from '../../../domain/engine/funds.ts';
import { balanceView, fillView, marketView, orderView, positionView } from '../../../domain/readModel/render.ts';
import { FoldedViews } from '../../support/views.ts';
import {
  anyAccount,
  anyMarket,
  anyPrice,
  commandCase,
  commonInput,
  historyStart,
  HistorySoFar,
  orderCases,
} from './randomCommands.ts';
import { deposit, order, place, SECOND, T0 } from './support.ts';

const command = fc.oneof(
  ...orderCases(['1', '2', '5', '0.5', '3.333333333', '10', '40']),
  commandCase(2, 'deposit', { who: anyAccount, amount: fc.constantFrom('1.00', '5.55', '20.00') }),
  commandCase(2, 'withdraw', { who: anyAccount, amount: fc.constantFrom('0.01', '1.00', '7.77') }),
  commandCase(1, 'adjust', { who: anyAccount, amount: fc.constantFrom('2.50', '-1.25') }),
  commandCase(1, 'status', {
    m: anyMarket,
    status: fc.constantFrom(
      'open' as const,
      'open' as const,
      'pre_open' as const,
      'closed' as const,
      'scheduled' as const,
      'cancelled' as const,
    ),
    trading: fc.boolean(),
  }),
  commandCase(1, 'result', { m: anyMarket, result: fc.constantFrom('win' as const, 'lose' as const, 'void' as const) }),
  commandCase(1, 'amend', { index: fc.nat(), price: anyPrice }),
  commandCase(1, 'fees', {
    who: anyAccount,
    schedule: fc.constantFrom('fixed_percent' as const, 'on_trade' as const, 'loyalty_tier_on_trade' as const),
  }),
  commandCase(1, 'start', {}),
  commandCase(2, 'tick', { seconds: fc.integer({ min: 1, max: 20 }) }),
);
type Command = typeof command extends fc.Arbitrary<infer T> ? T : never;

function toInput(cmd: Command, i: number, history: HistorySoFar, now: number): EngineInput {
  switch (cmd.kind) {
    case 'limit':
    case 'market': {
      const expiration =
        i % 7 === 0
          ? { expiration: 'good_till_time' as const, expiration_time: now + 5 * SECOND }
          : i % 11 === 0
            ? { expiration: 'good_till_start' as const }
            : {};
      return place(
        cmd.who,
        history.noted(
          cmd.who,
          order(`o${i}`, cmd.side, cmd.kind === 'limit' ? cmd.price : null, cmd.qty, {
            market_id: cmd.m,
            ...expiration,
          }),
        ),
      );
    }
    case 'cancel': {
      const target = history.placedAt(cmd.index);
      return { kind: 'CancelOrder', account_id: cmd.who, order_id: target?.id ?? 'none' };
    }
    case 'deposit':
      return deposit(cmd.who, cmd.amount, `d${i}`);
    case 'fees':
      return {
        kind: 'UpdateAccount',
        account_id: cmd.who,
        fields: { fee_schedule: cmd.schedule, maker_factor: 0.5, taker_factor: 1.5, base_fee_percent: 2 },
      };
    default:
      return commonInput(cmd, i, history);
  }
}

/** What the projectors fold from the facts equals what the engine's state renders: balances, live orders, open fills, positions. */
function checkViews(engine: Engine, views: FoldedViews): void {
  const state = engine.state;
  const withoutSeq = <T extends { seq: number }>(view: T) => ({ ...view, seq: 0 });
  for (const acct of state.accounts.values()) {
    expect(withoutSeq(views.balance(acct.id)), `balance of ${acct.id}`).to.deep.equal(
      withoutSeq(balanceView(acct, fundsFiguresOf(acct), 0)),
    );
    for (const exposure of acct.exposures.values()) {
      const folded = views.position(acct.id, exposure.marketId);
      if (folded)
        expect(withoutSeq(folded), `position of ${acct.id}`).to.deep.equal(
          withoutSeq(positionView(exposure, state.markets.get(exposure.marketId)!, 0)),
        );
    }
  }
  for (const order of state.orders.values())
    expect(views.order(order.id), `order ${order.id}`).to.deep.equal(orderView(order));
  for (const fill of state.fills.values()) expect(views.fill(fill.id), `fill ${fill.id}`).to.deep.equal(fillView(fill));
  for (const market of state.markets.values())
    expect(views.market(market.id), `market ${market.id}`).to.deep.equal(marketView(market));
}

/** The properties the random histories must keep; each one is its own test, so a failure names it. */
const PROPERTIES = {
  conservation:
    'money is conserved to the cent: the ledger sums to zero, cash + fees + pools = deposits - withdrawals + adjustments, a settled market keeps no pool',
  available: 'the available balance is never negative (but where a corrected result or a void took winnings back)',
  overfill: 'no order fills beyond its quantity',
  books: 'books never rest crossed (and keep their own invariants)',
  liabilities: 'liabilities kept incrementally equal a recomputation',
  views: "the read models folded from the facts show what the engine's state does",
  replay: 'replay (also from a snapshot, also of a version 1 snapshot) reproduces the same facts and state hash',
} as const;
type Property = keyof typeof PROPERTIES;

/** The first counterexample found for each property: its error and the history that broke it. */
class Failures {
  readonly first = new Map<Property, { error: unknown; commands: Command[]; step: number }>();
  constructor(
    private readonly commands: Command[],
    private step = -1,
  ) {}
  at(step: number): this {
    this.step = step;
    return this;
  }
  /** Runs one property's assertions; a failure is recorded (the first per property) and the history goes on. */
  check(property: Property, assertions: () => void): void {
    try {
      assertions();
    } catch (error) {
      if (!this.first.has(property)) this.first.set(property, { error, commands: this.commands, step: this.step });
    }
  }
}

/**
 * `resettled`: accounts a corrected result (a market resulted again) or a void (which reverses what
 * closing trades realised) took winnings back from: the clawback is charged in full, so their cash
 * may end below what their positions and live orders reserve (a debt; docs/ENGINE.md).
 */
function checkInvariants(engine: Engine, externalNet: Big, resettled: ReadonlySet<string>, failures: Failures): void {
  const state = engine.state;
  failures.check('conservation', () => {
    expect(ledgerSum(state).eq(0), 'ledger sums to zero').to.equal(true);
    let cash = ZERO;
    let pools = ZERO;
    for (const value of state.ledger.pools.values()) pools = pools.plus(value);
    for (const acct of state.accounts.values()) cash = cash.plus(acct.cash);
    expect(
      cash.plus(state.ledger.feeRevenue).plus(pools).eq(externalNet),
      'cash + fees + pools = deposits - withdrawals + adjustments',
    ).to.equal(true);
    for (const m of state.markets.values()) {
      if (m.status === 'resulted' || m.status === 'voided')
        expect(state.ledger.pools.has(m.id), `pool of settled market ${m.id}`).to.equal(false);
    }
  });
  failures.check('available', () => {
    for (const acct of state.accounts.values()) {
      if (!resettled.has(acct.id))
        expect(acct.cash.minus(acct.liability).gte(0), `available of ${acct.id} never negative`).to.equal(true);
    }
  });
  failures.check('liabilities', () => {
    for (const acct of state.accounts.values()) {
      let liability = ZERO;
      for (const exposure of acct.exposures.values()) {
        const max = state.markets.get(exposure.marketId)!.maxPriceCents;
        expect(exposure.liability.eq(liabilityOf(exposure, max)), 'cached market liability').to.equal(true);
        liability = liability.plus(exposure.liability);
      }
      expect(acct.liability.eq(liability), `liability of ${acct.id} equals its markets`).to.equal(true);
    }
  });
  failures.check('books', () => {
    for (const m of state.markets.values()) assertBookInvariants(m.book);
  });
}

/** Runs one random history through the engine, checking every property after every step. */
function runHistory(commands: Command[], failures: Failures, seen: Set<string>): void {
  const engine = new Engine();
  const views = new FoldedViews();
  const journal: { seq: number; now_us: number; input: EngineInput; events: unknown }[] = [];
  let now = T0;
  let externalNet = ZERO;
  const resettled = new Set<string>();
  const run = (input: EngineInput) => {
    const seq = engine.nextSeq;
    const outcome = engine.step({ seq, now_us: now, input });
    if (outcome.ok && outcome.events.length > 0) {
      journal.push({ seq, now_us: now, input, events: outcome.events });
      views.step(seq, now, outcome.events);
    }
    for (const event of outcome.events) {
      seen.add(event.type === 'Transferred' ? `transfer:${event.kind}` : event.type);
      if (event.type === 'Transferred' && ['deposit', 'withdrawal', 'adjustment'].includes(event.kind)) {
        externalNet = event.to.startsWith('cash:') ? externalNet.plus(event.amount) : externalNet.minus(event.amount);
      }
      if (event.type === 'FundsReserved')
        failures.check('available', () =>
          expect(new Big(event.available).gte(0), `available of ${event.account_id} after a reservation`).to.equal(
            true,
          ),
        );
      if (event.type === 'LotResettled') resettled.add(views.fill(event.fill_id).account_id);
      // a void reverses what closing trades realised: winnings taken back from cash, as a corrected result does
      if (
        input.kind === 'ResultMarket' &&
        input.result === 'void' &&
        event.type === 'Transferred' &&
        event.kind === 'settlement' &&
        event.from.startsWith('cash:')
      )
        resettled.add(event.from.slice('cash:'.length));
      const orderId = 'order_id' in event ? event.order_id : null;
      if (orderId) {
        const view = views.order(orderId);
        seen.add(`order:${view.status}`);
        failures.check('overfill', () =>
          expect(new Big(view.filled).lte(view.quantity), `filled of ${orderId} within its quantity`).to.equal(true),
        );
      }
    }
    return outcome;
  };
  for (const input of historyStart('25.00', { in_play_delay_sec: 3 })) {
    now += 1000;
    expect(run(input).ok).to.equal(true);
  }
  const history = new HistorySoFar();
  let snapshot: { text: string; v1: string; at: number } | undefined;
  commands.forEach((cmd, i) => {
    failures.at(i);
    now += cmd.kind === 'tick' ? cmd.seconds * SECOND : 1000;
    const outcome = run(toInput(cmd, i, history, now));
    for (const e of outcome.events) if (e.type === 'Traded') history.fills.push(e.maker_fill_id);
    checkInvariants(engine, externalNet, resettled, failures);
    failures.check('views', () => checkViews(engine, views));
    if (i === Math.floor(commands.length / 2))
      snapshot = { text: encodeState(engine.state), v1: encodeStateV1(engine.state), at: journal.length };
  });

  failures.at(commands.length);
  failures.check('replay', () => {
    const finalHash = stateHash(engine.state);
    const replayed = new Engine();
    for (const step of journal) {
      const outcome = replayed.step({ seq: step.seq, now_us: step.now_us, input: step.input });
      expect(outcome.events).to.deep.equal(step.events);
    }
    expect(stateHash(replayed.state)).to.equal(finalHash);
    if (snapshot) {
      // a version 1 snapshot of the same state (written before version 2) reads back to the same state
      expect(encodeState(decodeState(snapshot.v1))).to.equal(snapshot.text);
      const resumed = new Engine(decodeState(snapshot.text));
      for (const step of journal.slice(snapshot.at)) {
        expect(resumed.step({ seq: step.seq, now_us: step.now_us, input: step.input }).events).to.deep.equal(
          step.events,
        );
      }
      expect(stateHash(resumed.state)).to.equal(finalHash);
    }
  });
}

describe('engine properties over random command sequences', function () {
  // 300 random histories, each replayed and resumed from a snapshot: about 12 s of one core, more on a shared machine
  this.timeout(90_000);
  const failures = new Map<Property, { error: unknown; commands: Command[]; step: number }>();
  const seen = new Set<string>(); // which paths the random runs exercised

  before(() => {
    // every history is run once and checked for every property; each property's first counterexample is kept
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 200, size: 'max' }), (commands) => {
        const found = new Failures(commands);
        runHistory(commands, found, seen);
        for (const [property, failure] of found.first) if (!failures.has(property)) failures.set(property, failure);
      }),
      { numRuns: Number(process.env.ENGINE_PROPERTY_RUNS ?? 300) },
    );
  });

  for (const [property, statement] of Object.entries(PROPERTIES) as Array<[Property, string]>) {
    it(statement, () => {
      const failure = failures.get(property);
      if (failure) {
        const message = failure.error instanceof Error ? failure.error.message : String(failure.error);
        expect.fail(`${message}\n  at command ${failure.step} of the history ${JSON.stringify(failure.commands)}`);
      }
    });
  }

  it('the random runs reach every path the properties speak of', () => {
    for (const path of [
      'Traded',
      'LotClosed',
      'LotSettled',
      'FillVoided',
      'MarketSettled',
      'FillAmended',
      'OrderReleased',
      'transfer:fee_refund',
      'transfer:settlement',
      'transfer:trade_pnl',
      'PointsCredited',
      'LotResettled',
      'order:filled',
      'order:partially_cancelled',
      'order:rejected',
      'order:accepted',
      'order:delayed',
    ]) {
      expect([...seen].sort().join(' '), `random runs reached ${path}`).to.include(path);
    }
  });
});
