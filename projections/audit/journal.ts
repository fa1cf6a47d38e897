// The auditor's fold of the engine journal: every record from position zero, folded with the
// read models' own fold (projections/facts/fold.ts, FactFold over an in-memory FoldStore) and
// nothing else: no engine input is decided again. Beside the fold it keeps its own books of the
// money: each Transferred fact posted to a ledger of accounts (member cash, fee revenue, each
// market's pool, the outside world), and per member the sums by kind. From these it checks
//
// - every transfer: a well-formed amount (>= 0, written as money writes it), between two
//   different accounts, the pair its kind moves money between (a deposit from outside into cash,
//   a fee from cash to fee revenue, a settlement between cash and its market's pool, …);
// - all ledger accounts sum to zero (after the last step);
// - a settled market's pool (resulted or voided) is zero at the end of every step that settles
//   it or moves it afterwards (a pool moves only by transfers, so it is then zero at the end);
// - for every member, cash = deposits − withdrawals ± adjustments + realised PnL − fees, and the
//   fold's balance record has that cash and those totals;
// - steps come in increasing sequence, and the fold can place every fact (FoldError otherwise).
//
// Memory is per entity (the FoldStore's records, and per order, fill and ledger entry where and
// when it first appeared), never per event: records are read in pages of AUDIT_PAGE_RECORDS and
// each page's FactFold is dropped after it.

import {
  compare,
  decimalOf,
  isDecimalText,
  isNegative,
  isZero,
  minus,
  money,
  negated,
  plus,
  ZERO,
  type Decimal,
} from '../../domain/money/decimal.ts';
import { ENGINE_RECORD_TYPES, ENGINE_STREAM } from '../../domain/engine/journal/journal.ts';
import {
  memberOfLedgerAccount,
  type EngineEvent,
  type LedgerAccount,
  type TransferKind,
} from '../../domain/engine/events.ts';
import type { LedgerEntryRecord } from '../../domain/readModel/records.ts';
import type { EventStore, RecordedEvent } from '../../eventstore/port.ts';
import { emptyStore, FactFold, type Fact, type FoldStore } from '../facts/fold.ts';
import { journaledEventsOf } from '../core/engineEvents.ts';

/** Event-store records read per page (an engine record holds a whole group commit: up to a few hundred KB of JSON each). */
export const AUDIT_PAGE_RECORDS = 64;
/** Differences an audit collects before it stops looking (it names the first; the rest help find the cause). */
export const AUDIT_DIFFERENCES_MAX = 20;

/**
 * One thing the audit found not as it should be: where (`table`: a read-model table, `journal`,
 * `ledger` or `members`; `key`: the row or fact), which `column` (or check), and both values.
 */
export interface Difference {
  table: string;
  key: string;
  column: string;
  expected: string;
  found: string;
}

/** A member's money by kind, as the auditor's books sum the transfers (signed into the member's cash). */
interface MemberSums {
  deposits: Decimal;
  withdrawals: Decimal;
  adjustments: Decimal;
  realisedPnl: Decimal;
  fees: Decimal;
}

/** Where a row first appeared in the journal (the read models' "most recent first" order). */
export interface Inserted {
  pos: string;
  idx: number;
}

/** A ledger entry as the fold recorded it, with its step. */
export interface RecordedEntry {
  entry: LedgerEntryRecord;
  seq: number;
  nowUs: number;
  pos: string;
  idx: number;
}

/** Which ledger accounts each kind of transfer moves money between (one side is always the member's cash). */
const COUNTERPARTY_OF: Record<TransferKind, 'outside' | 'fees' | 'pool'> = {
  deposit: 'outside',
  withdrawal: 'outside',
  adjustment: 'outside',
  fee: 'fees',
  fee_refund: 'fees',
  settlement: 'pool',
  trade_pnl: 'pool',
};
/** The direction of a kind, when it has one: into the member's cash (`in`) or out of it (`out`). */
const DIRECTION_OF: Partial<Record<TransferKind, 'in' | 'out'>> = {
  deposit: 'in',
  withdrawal: 'out',
  fee: 'out',
  fee_refund: 'in',
};

export class JournalAudit {
  /** The fold's records of every entity (the read models' rows, as the fold makes them). */
  readonly store: FoldStore = emptyStore();
  readonly ordersInserted = new Map<string, Inserted>();
  /** With the trade each fill came from (the public tape's trade id). */
  readonly fillsInserted = new Map<string, Inserted & { tradeId: string | null }>();
  readonly entries = new Map<string, RecordedEntry>();
  /** The auditor's books: every ledger account's balance. */
  readonly ledger = new Map<LedgerAccount, Decimal>();
  readonly members = new Map<string, MemberSums>();
  /** Markets resulted or voided. */
  readonly settled = new Set<string>();
  readonly differences: Difference[] = [];
  /** The fold could not place a fact: the journal and the fold are out of step; nothing after it is folded. */
  stopped = false;
  /** The last position folded (-1: none). */
  position = -1n;
  records = 0;
  steps = 0;
  facts = 0;
  transfers = 0;
  trades = 0;

  private lastSeq = -1;
  private stepSeq: number | null = null;
  private stepPosition = '';
  /** Pools moved and markets settled in the current step: checked when it ends. */
  private readonly stepPools = new Set<string>();

  /** Whether more differences would still be kept. */
  get full(): boolean {
    return this.differences.length >= AUDIT_DIFFERENCES_MAX;
  }

  differ(difference: Difference): void {
    if (!this.full) this.differences.push(difference);
  }

  /** Folds one page of event-store records (non-engine records are passed over). */
  fold(records: readonly RecordedEvent[]): void {
    if (records.length === 0) return;
    this.position = records[records.length - 1]!.position;
    if (this.stopped) return;
    const journal = records.filter(
      (record) => record.stream === ENGINE_STREAM && ENGINE_RECORD_TYPES.includes(record.type),
    );
    this.records += journal.length;
    let facts: Fact[];
    try {
      facts = journaledEventsOf(journal);
    } catch (error) {
      this.differ({
        table: 'journal',
        key: `positions ${journal[0]?.position ?? ''} to ${this.position}`,
        column: 'record',
        expected: 'a journal record that reads',
        found: (error as Error).message,
      });
      this.stopped = true;
      return;
    }
    const fold = new FactFold(this.store);
    for (const fact of facts) {
      if (fact.seq !== this.stepSeq) this.startStep(fact);
      try {
        fold.apply(fact);
      } catch (error) {
        this.differ({
          table: 'journal',
          key: this.keyOf(fact),
          column: 'fold',
          expected: 'a fact the fold can place',
          found: (error as Error).message,
        });
        this.stopped = true;
        return;
      }
      this.facts += 1;
      this.check(fact);
    }
    this.endStep();
    this.keep(fold, facts);
  }

  /** The checks that need the whole journal: run once after the last page (not after the fold stopped: its state is partial). */
  finish(): void {
    this.endStep();
    if (this.stopped) return;
    let sum = ZERO;
    for (const balance of this.ledger.values()) sum = plus(sum, balance);
    if (!isZero(sum))
      this.differ({ table: 'ledger', key: 'all accounts', column: 'sum', expected: '0.00', found: money(sum) });
    for (const [accountId, stored] of this.store.accounts) {
      const sums = this.members.get(accountId) ?? emptySums();
      const cash = this.ledger.get(`cash:${accountId}`) ?? ZERO;
      const identity = minus(
        plus(plus(minus(sums.deposits, sums.withdrawals), sums.adjustments), sums.realisedPnl),
        sums.fees,
      );
      this.same(
        'members',
        accountId,
        'cash (deposits - withdrawals + adjustments + realised PnL - fees)',
        identity,
        cash,
      );
      // the fold's balance against the auditor's books
      const record = stored.record;
      this.same('members', accountId, 'account_balance', cash, record.cash);
      this.same('members', accountId, 'total_deposits', sums.deposits, record.totals.deposits);
      this.same('members', accountId, 'total_withdrawals', sums.withdrawals, record.totals.withdrawals);
      this.same('members', accountId, 'total_adjustments', sums.adjustments, record.totals.adjustments);
      this.same('members', accountId, 'total_settlement_pnl', sums.realisedPnl, record.totals.settlementPnl);
      this.same('members', accountId, 'total_fees', sums.fees, record.totals.fees);
    }
  }

  /** Sums over every member, and the house's ledger accounts. */
  totals(): {
    deposits: Decimal;
    withdrawals: Decimal;
    adjustments: Decimal;
    realisedPnl: Decimal;
    fees: Decimal;
    feeRevenue: Decimal;
    outside: Decimal;
    openPools: Decimal;
  } {
    let total = emptySums();
    for (const sums of this.members.values()) {
      total = {
        deposits: plus(total.deposits, sums.deposits),
        withdrawals: plus(total.withdrawals, sums.withdrawals),
        adjustments: plus(total.adjustments, sums.adjustments),
        realisedPnl: plus(total.realisedPnl, sums.realisedPnl),
        fees: plus(total.fees, sums.fees),
      };
    }
    let openPools = ZERO;
    for (const [account, balance] of this.ledger) if (account.startsWith('pool:')) openPools = plus(openPools, balance);
    return {
      ...total,
      feeRevenue: this.ledger.get('fees') ?? ZERO,
      outside: this.ledger.get('outside') ?? ZERO,
      openPools,
    };
  }

  private same(table: string, key: string, column: string, expected: Decimal, found: Decimal): void {
    if (compare(expected, found) !== 0)
      this.differ({ table, key, column, expected: money(expected), found: money(found) });
  }

  private keyOf(fact: Fact, id?: string | null): string {
    return `position ${fact.pos} seq ${fact.seq} ${fact.event.type}${id ? ` ${id}` : ''}`;
  }

  private startStep(fact: Fact): void {
    this.endStep();
    if (fact.seq <= this.lastSeq) {
      this.differ({
        table: 'journal',
        key: `position ${fact.pos}`,
        column: 'seq',
        expected: `above ${this.lastSeq}`,
        found: String(fact.seq),
      });
    }
    this.lastSeq = Math.max(this.lastSeq, fact.seq);
    this.stepSeq = fact.seq;
    this.stepPosition = fact.pos;
    this.steps += 1;
  }

  /** A settled market's pool, moved or settled in the step that ends, is zero. */
  private endStep(): void {
    if (this.stepSeq === null) return;
    for (const marketId of this.stepPools) {
      if (!this.settled.has(marketId)) continue;
      const balance = this.ledger.get(`pool:${marketId}`) ?? ZERO;
      if (!isZero(balance)) {
        this.differ({
          table: 'ledger',
          key: `pool:${marketId} (settled market, after position ${this.stepPosition} seq ${this.stepSeq})`,
          column: 'balance',
          expected: '0.00',
          found: money(balance),
        });
      }
    }
    this.stepPools.clear();
    this.stepSeq = null;
  }

  private check(fact: Fact): void {
    const e: EngineEvent = fact.event;
    if (e.type === 'Traded') this.trades += 1;
    else if (e.type === 'MarketSettled') {
      this.settled.add(e.market_id);
      this.stepPools.add(e.market_id);
    } else if (e.type === 'Transferred') this.transferred(e, fact);
  }

  private transferred(e: Extract<EngineEvent, { type: 'Transferred' }>, fact: Fact): void {
    this.transfers += 1;
    const key = this.keyOf(fact, e.id ?? e.kind);
    if (!isDecimalText(e.amount) || isNegative(decimalOf(e.amount)) || money(decimalOf(e.amount)) !== e.amount) {
      this.differ({
        table: 'journal',
        key,
        column: 'amount',
        expected: 'an amount >= 0 written as money',
        found: String(e.amount),
      });
      return;
    }
    const amount = decimalOf(e.amount);
    const fromMember = memberOfLedgerAccount(e.from);
    const toMember = memberOfLedgerAccount(e.to);
    const member = toMember ?? fromMember;
    const other = toMember ? e.from : e.to;
    const wanted = COUNTERPARTY_OF[e.kind];
    const wantedAccount = wanted === 'pool' ? `pool:${e.market_id ?? '?'}` : wanted;
    const direction = DIRECTION_OF[e.kind];
    if (
      e.from === e.to ||
      (fromMember !== null && toMember !== null) ||
      member === null ||
      other !== wantedAccount ||
      (direction === 'in' && toMember === null) ||
      (direction === 'out' && fromMember === null)
    ) {
      const between =
        direction === 'out'
          ? `cash:<member> -> ${wantedAccount}`
          : direction === 'in'
            ? `${wantedAccount} -> cash:<member>`
            : `cash:<member> <-> ${wantedAccount}`;
      this.differ({ table: 'journal', key, column: 'from -> to', expected: between, found: `${e.from} -> ${e.to}` });
      return;
    }
    this.ledger.set(e.from, minus(this.ledger.get(e.from) ?? ZERO, amount));
    this.ledger.set(e.to, plus(this.ledger.get(e.to) ?? ZERO, amount));
    if (other.startsWith('pool:')) this.stepPools.add(other.slice(5));
    const signed = toMember ? amount : negated(amount);
    let sums = this.members.get(member);
    if (!sums) {
      sums = emptySums();
      this.members.set(member, sums);
    }
    switch (e.kind) {
      case 'deposit':
        sums.deposits = plus(sums.deposits, amount);
        break;
      case 'withdrawal':
        sums.withdrawals = plus(sums.withdrawals, amount);
        break;
      case 'adjustment':
        sums.adjustments = plus(sums.adjustments, signed);
        break;
      case 'fee':
      case 'fee_refund':
        sums.fees = minus(sums.fees, signed);
        break;
      case 'settlement':
      case 'trade_pnl':
        sums.realisedPnl = plus(sums.realisedPnl, signed);
        break;
      default: {
        const unknown: never = e.kind;
        this.differ({ table: 'journal', key, column: 'kind', expected: 'a transfer kind', found: String(unknown) });
      }
    }
  }

  /**
   * What the page's fold changed, kept as the read models keep it: each record's step (so a step
   * seen again changes nothing, as in the projector), where orders, fills and ledger entries first
   * appeared, and the ledger entries themselves.
   */
  private keep(fold: FactFold, facts: readonly Fact[]): void {
    const tradeOf = new Map<string, string>();
    for (const { event: e } of facts) {
      if (e.type === 'Traded') tradeOf.set(e.maker_fill_id, e.trade_id).set(e.taker_fill_id, e.trade_id);
    }
    for (const [id, { at }] of fold.accounts) this.store.accounts.get(id)!.seq = at.seq;
    for (const [id, { at }] of fold.balances) this.store.accounts.get(id)!.balanceSeq = at.seq;
    for (const [id, { record }] of fold.orders) this.store.orders.get(id)!.seq = record.seq;
    for (const [id, { record }] of fold.fills) this.store.fills.get(id)!.seq = record.seq;
    for (const [key, { at }] of fold.positions) this.store.positions.get(key)!.seq = at.seq;
    for (const [id, { record }] of fold.markets) this.store.markets.get(id)!.seq = record.seq;
    for (const [id, { at }] of fold.sportEvents) this.store.sportEvents.get(id)!.seq = at.seq;
    for (const [id, { created }] of fold.orders)
      if (created) this.ordersInserted.set(id, { pos: created.pos, idx: created.idx });
    for (const [id, { created }] of fold.fills)
      if (created) this.fillsInserted.set(id, { pos: created.pos, idx: created.idx, tradeId: tradeOf.get(id) ?? null });
    for (const { entry, at } of fold.entries)
      this.entries.set(entry.id, { entry, seq: at.seq, nowUs: at.nowUs, pos: at.pos, idx: at.idx });
  }
}

function emptySums(): MemberSums {
  return { deposits: ZERO, withdrawals: ZERO, adjustments: ZERO, realisedPnl: ZERO, fees: ZERO };
}

/**
 * Folds the event log from position zero up to `upTo` (inclusive; the head when omitted), page by
 * page, then runs the end checks. `onProgress` gets the last position folded after each page.
 */
export async function auditJournal(
  store: EventStore,
  options: { upTo?: bigint; onProgress?: (position: bigint) => void; pageRecords?: number } = {},
): Promise<JournalAudit> {
  const audit = new JournalAudit();
  const pageRecords = options.pageRecords ?? AUDIT_PAGE_RECORDS;
  let after = -1n;
  for (;;) {
    if (options.upTo !== undefined && after >= options.upTo) break;
    let page = await store.readAll({ after, maxCount: pageRecords });
    if (page.length === 0) break;
    if (options.upTo !== undefined) page = page.filter((record) => record.position <= options.upTo!);
    if (page.length === 0) break;
    audit.fold(page);
    after = page[page.length - 1]!.position;
    options.onProgress?.(after);
  }
  audit.finish();
  return audit;
}
