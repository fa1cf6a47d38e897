// The engine decider: one sequenced input in, its outcome events out. Deterministic (time and
// sequence arrive on the input, ids derive from them), synchronous and free of I/O. A refused
// input changes nothing and yields no events; an accepted one changes the state in place and
// states what happened as facts (events.ts), closing with what each touched account's funds now
// reserve. The caller's answer (the orders as the engine left them; for operator inputs the
// entities they changed) is rendered from the state, not carried in the facts.

import { JSON_NESTING_DEPTH_MAX, textProblemOf } from '../text.ts';
import type { Refusal } from '../errors.ts';
import {
  accountView,
  balanceView,
  fillView,
  ledgerEntryView,
  marketView,
  orderView,
  sportEventView,
} from '../readModel/render.ts';
import type {
  AccountView,
  BalanceView,
  FillView,
  LedgerEntryView,
  MarketStateView,
  OrderView,
  SportEventView,
} from '../views.ts';
import { adjust, deposit, openAccount, updateAccount, withdraw } from './accounts.ts';
import { amendFill } from './amend.ts';
import { StepContext } from './context.ts';
import type { EngineEvent } from './events.ts';
import type { SequencedInput } from './inputs.ts';
import {
  changeMarketStatus,
  listMarket,
  resultMarket,
  scheduleSportEvent,
  startSportEvent,
  tick,
  updateMarket,
  updateSportEvent,
} from './markets.ts';
import { cancelOrder, liveOrderIdsOf, decideOrder, type OrderOutcome } from './orders.ts';
import { assert, AssertionFailed } from '../assert.ts';
import { fundsFiguresOf } from './funds.ts';
import { recordReferral, setReferralPoints } from './referrals.ts';
import { setSettlementFee } from './settlementFees.ts';
import { initialState } from './snapshot.ts';
import type { EngineState } from './state.ts';

/** Outcome of one leg of a batch (same shape as the gateway's LegOutcome). */
export interface LegResult {
  order_id: string;
  order?: OrderView;
  error?: Refusal;
}

/** What an operator input changed, as the REST views show it (the answer to the operator). */
export interface StepAnswer {
  accounts: AccountView[];
  balances: BalanceView[];
  entries: LedgerEntryView[];
  sportEvents: SportEventView[];
  markets: MarketStateView[];
  fills: FillView[];
  /** The referral a RecordReferral input recorded. */
  referral?: { referrer_account_id: string; referee_account_id: string; created_at: number };
}

export interface StepOutcome {
  ok: boolean;
  error?: Refusal;
  events: EngineEvent[];
  legs?: LegResult[];
  answer?: StepAnswer;
}

/** Inputs whose callers are answered with the entities they changed (order inputs answer with their legs). */
const ANSWERED_WITH_ENTITIES: ReadonlySet<string> = new Set([
  'OpenAccount',
  'UpdateAccount',
  'Deposit',
  'Withdraw',
  'Adjust',
  'ScheduleSportEvent',
  'StartSportEvent',
  'UpdateSportEvent',
  'ListMarket',
  'UpdateMarket',
  'ChangeMarketStatus',
  'ResultMarket',
  'AmendFill',
  'SetSettlementFee',
  'RecordReferral',
  'SetReferralPoints',
]);

export class Engine {
  /** The working set of a step, reused from one step to the next (steps never overlap). */
  private context: StepContext | null = null;

  constructor(public state: EngineState = initialState()) {}

  /** The sequence number the next journaled input gets. */
  get nextSeq(): number {
    return this.state.seq + 1;
  }

  /** The order legs the input being decided answers with (set by decideInput). */
  private outcomes: { id: string; outcome: OrderOutcome }[] | undefined = undefined;

  /**
   * Decides one sequenced input. Pre: its `seq` comes after the state's. Post: a refused input
   * changed nothing; an accepted one changed something only if it states a fact (the state moves
   * only through facts), and leaves the books it traded on uncrossed. (That the ledger sums
   * to zero is asserted by the engine process after every batch, before anything is journaled:
   * ledger.ts assertBalanced, which stops the engine rather than rebuild it.)
   */
  step(sequenced: SequencedInput): StepOutcome {
    assert(sequenced.seq > this.state.seq, "a step's seq comes after the last accepted step's");
    if (mayHaveTextProblem(sequenced.input, 0)) {
      const problem = textProblemOf(sequenced.input);
      if (problem !== null) return { ok: false, error: problem, events: [] };
    }
    const ctx = (this.context ??= new StepContext(this.state, sequenced.seq, sequenced.now_us));
    ctx.begin(this.state, sequenced.seq, sequenced.now_us);
    const input = sequenced.input;
    this.outcomes = undefined;
    const error = this.decideInput(ctx, input);
    const outcomes = this.outcomes;
    this.outcomes = undefined;
    if (error) {
      if (ctx.touchedAnything) throw new AssertionFailed(`input ${input.kind} refused after changing state`);
      return { ok: false, error, events: [] };
    }
    const touched = ctx.touchedAnything;
    const events = factsOf(ctx);
    if (events.length > 0) this.state.seq = sequenced.seq;
    assert(events.length > 0 || !touched, 'an accepted step that states no fact changed nothing');
    assertStepDone(ctx);
    if (outcomes) return { ok: true, events, legs: legResultsOf(outcomes) };
    if (ANSWERED_WITH_ENTITIES.has(input.kind)) return { ok: true, events, answer: operatorAnswerOf(ctx, events) };
    return { ok: true, events };
  }

  /** The decision of one input: a refusal, or null (order inputs note their legs in `outcomes`). */
  private decideInput(ctx: StepContext, input: SequencedInput['input']): Refusal | null {
    switch (input.kind) {
      case 'OpenAccount':
        return openAccount(ctx, input);
      case 'UpdateAccount':
        return updateAccount(ctx, input);
      case 'Deposit':
        return deposit(ctx, input);
      case 'Withdraw':
        return withdraw(ctx, input);
      case 'Adjust':
        return adjust(ctx, input);
      case 'PlaceOrder': {
        const outcome = decideOrder(ctx, input.account_id, input.order, input.limits);
        if (outcome.error) return outcome.error;
        this.outcomes = [{ id: input.order.order_id, outcome }];
        return null;
      }
      case 'PlaceOrders':
        this.outcomes = input.orders.map((order) => ({
          id: order.order_id,
          outcome: decideOrder(ctx, input.account_id, order, input.limits),
        }));
        return null;
      case 'CancelOrder': {
        const outcome = cancelOrder(ctx, input.account_id, input.order_id);
        if (outcome.error) return outcome.error;
        this.outcomes = [{ id: input.order_id, outcome }];
        return null;
      }
      case 'CancelOrders':
        this.outcomes = input.order_ids.map((id) => ({ id, outcome: cancelOrder(ctx, input.account_id, id) }));
        return null;
      case 'CancelAccountOrders':
        if (!ctx.state.accounts.has(input.account_id)) return { code: 'account_not_found' };
        this.outcomes = liveOrderIdsOf(ctx, input.account_id, input.market_id, input.cancel_on_disconnect_only).map(
          (id) => ({ id, outcome: cancelOrder(ctx, input.account_id, id) }),
        );
        return null;
      case 'ScheduleSportEvent':
        return scheduleSportEvent(ctx, input);
      case 'StartSportEvent':
        return startSportEvent(ctx, input);
      case 'UpdateSportEvent':
        return updateSportEvent(ctx, input);
      case 'ListMarket':
        return listMarket(ctx, input);
      case 'UpdateMarket':
        return updateMarket(ctx, input);
      case 'ChangeMarketStatus':
        return changeMarketStatus(ctx, input);
      case 'ResultMarket':
        return resultMarket(ctx, input);
      case 'AmendFill':
        return amendFill(ctx, input);
      case 'SetSettlementFee':
        return setSettlementFee(ctx, input);
      case 'RecordReferral':
        return recordReferral(ctx, input);
      case 'SetReferralPoints':
        return setReferralPoints(ctx, input);
      case 'Tick':
        tick(ctx);
        return null;
      default: {
        const never: never = input;
        return { code: 'invalid_input', message: `unknown input ${(never as { kind: string }).kind}` };
      }
    }
  }
}

/** The postcondition of an accepted step: no market the step traded on rests crossed. */
function assertStepDone(ctx: StepContext): void {
  for (const { book } of ctx.changedMarkets.items) {
    const bid = book.bestPrice('buy');
    const offer = book.bestPrice('sell');
    assert(bid < 0 || offer < 0 || bid < offer, 'no book rests crossed after a step');
  }
}

/**
 * Whether `value` may hold a NUL or nest too deep (textProblemOf then finds and names the
 * problem): the same walk without allocating, as every input is checked. Recursion stops at the
 * nesting bound, so a hostile input costs a bounded depth.
 */
function mayHaveTextProblem(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  if (depth >= JSON_NESTING_DEPTH_MAX) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (mayHaveTextProblem(value[i], depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (key.includes('\u0000') || mayHaveTextProblem((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/** Each leg answers with its order as the step left it. */
function legResultsOf(outcomes: { id: string; outcome: OrderOutcome }[]): LegResult[] {
  const legs: LegResult[] = [];
  for (const { id, outcome } of outcomes) {
    if (outcome.error) legs.push({ order_id: id, error: outcome.error });
    else legs.push(outcome.order ? { order_id: id, order: orderView(outcome.order) } : { order_id: id });
  }
  return legs;
}

/** The step's facts, closed by what each account whose balance moved now holds in reserve. */
function factsOf(ctx: StepContext): EngineEvent[] {
  const facts = ctx.takeFacts();
  for (const account of ctx.changedBalances.items) {
    const funds = fundsFiguresOf(account);
    facts.push({
      type: 'FundsReserved',
      account_id: account.id,
      buy_orders: funds.buyOrders,
      sell_orders: funds.sellOrders,
      positions: funds.positions,
      available: funds.available,
    });
  }
  return facts;
}

/** The views of what an operator input changed, in first-change order. */
function operatorAnswerOf(ctx: StepContext, facts: readonly EngineEvent[]): StepAnswer {
  const balanceOf = new Set(ctx.changedAccounts.items);
  for (const account of ctx.changedBalances.items) balanceOf.add(account);
  const answer: StepAnswer = {
    accounts: ctx.changedAccounts.items.map(accountView),
    balances: [...balanceOf].map((account) => balanceView(account, fundsFiguresOf(account), ctx.seq)),
    entries: ctx.entries.map((entry) => ledgerEntryView(entry, ctx.now, ctx.seq)),
    sportEvents: ctx.changedEvents.items.map(sportEventView),
    markets: ctx.changedMarkets.items.map(marketView),
    fills: ctx.changedFills.items.map((fill) => fillView(fill, ctx.state.markets.get(fill.marketId))),
  };
  for (const fact of facts) {
    if (fact.type === 'ReferralRecorded') {
      answer.referral = {
        referrer_account_id: fact.referrer_account_id,
        referee_account_id: fact.referee_account_id,
        created_at: ctx.now,
      };
    }
  }
  return answer;
}
