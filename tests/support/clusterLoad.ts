// Driving a cluster (tests/support/cluster.ts) as an operator and as members, through the
// contract only: the admin API of any node (docs/OPERATOR.md), the trading API of any node with
// the client package `@event-exchange/client` (signed API keys), and `/readyz`. Then an order load
// spread over every node that survives kills and freezes, and the checks the failover contract
// asks of it (docs/ARCHITECTURE.md "Several nodes"): the failover gap (from a kill to the first
// acknowledged order sent after it), answers in the gap (200, or 503 with Retry-After: never
// another 5xx, never a 4xx for a valid order), no acknowledged order lost or doubled (each
// logical order is one client_order_id and one Idempotency-Key, retried on the next node until it
// is answered), and cash conserved.

import { randomUUID } from 'node:crypto';
import { apiKey, ExchangeClient, ExchangeError, type Order, type OrderInput } from '@event-exchange/client';
import { compare, decimalOf, decimalText, plus, ZERO, type Decimal } from '../../domain/money/decimal.ts';
import type { Cluster, ClusterNode } from './cluster.ts';

export const USER_AGENT = 'cluster-harness/1';
/** The failover contract's bound: another node accepts orders within this long of a kill (or a freeze past the lease). */
export const FAILOVER_BOUND_MS = 2_000;
/**
 * An attempt with no answer after this long counts as unanswered (a frozen node answers nothing);
 * above the service's own waits (a forwarded write's 10 s, an Idempotency-Key in flight's 30 s),
 * so what the service answers at the end of them is seen.
 */
export const ATTEMPT_TIMEOUT_MS = 35_000;
/** An operator's call, or a read of the checks, with no answer after this long fails. */
export const READ_TIMEOUT_MS = 60_000;
/** Between two attempts of one logical order (after a 503 or no answer). */
export const RETRY_PAUSE_MS = 50;
/** A logical order still unanswered this long after its first attempt is reported and given up. */
export const ORDER_GIVE_UP_MS = 90_000;
/** Page size of the order listings read back (SPEC's maximum). */
const PAGE_SIZE = 200;

export interface HttpAnswer {
  status: number;
  body: any;
  headers: Headers;
}

/** One call of a node's admin API (`/admin/v1`) with the cluster's admin token. */
export async function adminCall(
  cluster: Cluster,
  node: ClusterNode,
  method: string,
  route: string,
  body?: unknown,
): Promise<HttpAnswer> {
  const answer = await fetch(new URL(`/admin/v1${route}`, node.adminUrl), {
    method,
    headers: {
      authorization: `Bearer ${cluster.adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(READ_TIMEOUT_MS),
  });
  const text = await answer.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: answer.status, body: parsed, headers: answer.headers };
}

/** An admin call that must answer 200: its body. */
export async function admin(
  cluster: Cluster,
  node: ClusterNode,
  method: string,
  route: string,
  body?: unknown,
): Promise<any> {
  const answer = await adminCall(cluster, node, method, route, body);
  if (answer.status !== 200)
    throw new Error(`${node.name} admin ${method} ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export interface Trader {
  accountId: string;
  userId: string;
  keyId: string;
  privateKey: string;
  /** What the harness deposited, in dollars. */
  deposited: string;
}

/** An active account, funded with `deposit` dollars, with a `read_write` API key, through `node`. */
export async function openTrader(
  cluster: Cluster,
  node: ClusterNode,
  deposit: string,
  name = 'Trader',
): Promise<Trader> {
  const { account } = await admin(cluster, node, 'POST', '/accounts', { first_name: name, last_name: 'Cluster' });
  await admin(cluster, node, 'POST', `/accounts/${account.account_id}/deposits`, { amount: deposit });
  const { api_key: key } = await admin(cluster, node, 'POST', `/accounts/${account.account_id}/api_keys`, {
    scope: 'read_write',
  });
  return {
    accountId: account.account_id,
    userId: account.user_id,
    keyId: key.key_id,
    privateKey: key.private_key,
    deposited: deposit,
  };
}

/** An event starting tomorrow and an open market on it, through `node`: the market's id. */
export async function openMarket(cluster: Cluster, node: ClusterNode, title: string): Promise<string> {
  const { event } = await admin(cluster, node, 'POST', '/events', {
    title: `${title} event`,
    start: new Date(Date.now() + 86_400_000).toISOString(),
    sport: 'soccer',
  });
  const { market } = await admin(cluster, node, 'POST', '/markets', {
    event_id: event.event_id,
    title,
    status: 'open',
  });
  return market.market_id;
}

/**
 * The per-account limits lifted above what a load sends (the load measures failover, not the
 * rate limiter or the live-order cap).
 */
export async function liftAccountLimits(cluster: Cluster, node: ClusterNode): Promise<void> {
  await admin(cluster, node, 'PATCH', '/settings', {
    max_live_orders_per_account: 1_000_000,
    rate_limits: { read_per_second: 1_000_000, write_per_second: 1_000_000 },
  });
}

/**
 * The client package for `trader` on `node`: no retries and no generated Idempotency-Keys of its
 * own (the callers decide both), each request bounded by `timeoutMs`.
 */
export function memberClient(node: ClusterNode, trader: Trader, timeoutMs = ATTEMPT_TIMEOUT_MS): ExchangeClient {
  return new ExchangeClient({
    baseUrl: node.baseUrl.origin,
    wsUrl: node.wsUrl,
    credentials: apiKey(trader.keyId, trader.privateKey),
    userAgent: USER_AGENT,
    retries: 0,
    idempotencyKeys: false,
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
  });
}

/** One attempt of a logical order on one node; status 0: no answer (refused, reset, timed out). */
export interface Attempt {
  node: string;
  /** performance.now() when it was sent, and when its answer (or failure) came. */
  sentAt: number;
  answeredAt: number;
  status: number;
  retryAfter: number | undefined;
  error: string | undefined;
}

/** One order as the member means it: one client_order_id and one Idempotency-Key for every attempt. */
export interface LogicalOrder {
  clientOrderId: string;
  idempotencyKey: string;
  trader: number;
  body: OrderInput;
  attempts: Attempt[];
  /** The order the service acknowledged (200). */
  acked: { orderId: string; node: string; sentAt: number; answeredAt: number } | undefined;
  /** An answer the contract does not allow for a valid order. */
  violation: string | undefined;
  /** Still unanswered when the load gave it up (ORDER_GIVE_UP_MS). */
  abandoned: boolean;
}

export interface OrderLoadOptions {
  cluster: Cluster;
  traders: Trader[];
  marketId: string;
  /** New logical orders started per second, whatever happens to the ones in flight (an open loop). */
  ratePerS: number;
  /** Logical orders in flight at most; a start that would pass it is skipped (and counted). */
  inFlightMax?: number;
  /** The order of logical order `i` for trader `trader`. */
  orderOf?: (i: number, trader: number) => OrderInput;
  /** A prefix for client_order_ids, so loads of one run never share one. */
  label: string;
}

/** The default bound of OrderLoadOptions.inFlightMax, in logical orders. */
export const LOAD_IN_FLIGHT_MAX = 200;

/**
 * Crossing limit orders around 0.50: even traders buy, odd traders sell, at 0.48..0.52, one
 * contract each: some rest, most trade, fees are charged.
 */
export function crossingOrder(marketId: string): (i: number, trader: number) => OrderInput {
  return (i, trader) => ({
    market_id: marketId,
    action: trader % 2 === 0 ? 'buy' : 'sell',
    order_type: 'limit',
    price: (0.48 + (i % 5) / 100).toFixed(2),
    quantity: '1',
  });
}

/**
 * A steady load: `ratePerS` logical orders started every second (an open loop: an order stuck in
 * a failover never holds back the next ones), each sent to the nodes in turn (logical order i
 * starts at node i; the next node after each unanswered attempt or 503) with its one
 * Idempotency-Key, until it is answered 200 or with an answer the contract forbids. A node the
 * harness is starting is left out until it is ready (a killed or frozen one is not: the load
 * learns of it as a client would, by getting no answer).
 */
export class OrderLoad {
  readonly orders: LogicalOrder[] = [];
  /** Starts skipped because LOAD_IN_FLIGHT_MAX orders were in flight. */
  skipped = 0;
  private running = false;
  private ticker: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly clients = new Map<string, ExchangeClient>();

  constructor(private readonly options: OrderLoadOptions) {}

  start(): void {
    this.running = true;
    this.ticker = this.tick();
  }

  /** Stops starting logical orders and waits until every one in flight is answered or given up. */
  async stop(): Promise<void> {
    this.running = false;
    await this.ticker;
    await Promise.all(this.inFlight);
  }

  private clientOf(node: ClusterNode, trader: number): ExchangeClient {
    const id = `${node.name}/${trader}`;
    let client = this.clients.get(id);
    if (!client) {
      client = memberClient(node, this.options.traders[trader]!);
      this.clients.set(id, client);
    }
    return client;
  }

  private async tick(): Promise<void> {
    const { traders, marketId, label, ratePerS, inFlightMax = LOAD_IN_FLIGHT_MAX } = this.options;
    const orderOf = this.options.orderOf ?? crossingOrder(marketId);
    const intervalMs = 1000 / ratePerS;
    const startedAt = performance.now();
    for (let i = 0; this.running; i++) {
      const dueAt = startedAt + i * intervalMs;
      const wait = dueAt - performance.now();
      if (wait > 0) await sleep(wait);
      if (!this.running) return;
      if (this.inFlight.size >= inFlightMax) {
        this.skipped += 1;
        continue;
      }
      const trader = i % traders.length;
      const clientOrderId = `${label}-${i}`;
      const order: LogicalOrder = {
        clientOrderId,
        idempotencyKey: randomUUID(),
        trader,
        body: { ...orderOf(i, trader), client_order_id: clientOrderId },
        attempts: [],
        acked: undefined,
        violation: undefined,
        abandoned: false,
      };
      this.orders.push(order);
      const placing = this.place(order, i).finally(() => this.inFlight.delete(placing));
      this.inFlight.add(placing);
    }
  }

  /** Sends `order` until it is answered, starting at node `turn`. */
  private async place(order: LogicalOrder, turn: number): Promise<void> {
    const nodes = this.options.cluster.nodes;
    const firstAt = performance.now();
    for (;;) {
      const node = nodes[turn % nodes.length]!;
      if (node.starting) {
        // not in rotation until it is ready, as behind a load balancer checking /readyz
        turn += 1;
        if (nodes.every((each) => each.starting)) await sleep(RETRY_PAUSE_MS);
        continue;
      }
      const attempt = await this.attempt(node, order);
      order.attempts.push(attempt);
      if (attempt.status === 200) return;
      if (attempt.status !== 0 && !(attempt.status === 503 && attempt.retryAfter !== undefined)) {
        order.violation = `${node.name} answered ${attempt.status}${attempt.status === 503 ? ' without Retry-After' : ''}: ${attempt.error}`;
        // a server error names its cause in the node's log: keep the errors logged around it
        if (attempt.status >= 500) order.violation += `\n${errorLinesOf(node.logTail())}`;
        return;
      }
      if (performance.now() - firstAt > ORDER_GIVE_UP_MS) {
        order.abandoned = true;
        return;
      }
      turn += 1;
      await sleep(RETRY_PAUSE_MS);
    }
  }

  private async attempt(node: ClusterNode, order: LogicalOrder): Promise<Attempt> {
    const sentAt = performance.now();
    const base = { node: node.name, sentAt };
    try {
      const placed: Order = await this.clientOf(node, order.trader).placeOrder(order.body, {
        idempotencyKey: order.idempotencyKey,
      });
      const answeredAt = performance.now();
      order.acked = { orderId: placed.id, node: node.name, sentAt, answeredAt };
      return { ...base, answeredAt, status: 200, retryAfter: undefined, error: undefined };
    } catch (error) {
      const answeredAt = performance.now();
      if (error instanceof ExchangeError)
        return { ...base, answeredAt, status: error.status, retryAfter: error.retryAfterS, error: error.error };
      return { ...base, answeredAt, status: 0, retryAfter: undefined, error: String((error as Error).message) };
    }
  }

  /** Logical orders answered 200. */
  acked(): LogicalOrder[] {
    return this.orders.filter((order) => order.acked !== undefined);
  }

  /** Every answer the contract forbids, and every order given up unanswered, as one line each. */
  problems(): string[] {
    return this.orders.flatMap((order) => [
      ...(order.violation ? [`${order.clientOrderId}: ${order.violation}`] : []),
      ...(order.abandoned
        ? [`${order.clientOrderId}: unanswered for ${ORDER_GIVE_UP_MS} ms (${describeAttempts(order.attempts)})`]
        : []),
    ]);
  }

  /** Attempts answered 503 (with Retry-After). */
  unavailableAnswers(): number {
    return this.orders.reduce(
      (count, order) => count + order.attempts.filter((attempt) => attempt.status === 503).length,
      0,
    );
  }

  /**
   * Milliseconds from `at` (performance.now()) to the first acknowledgement of an attempt sent at
   * or after it; undefined when none was.
   */
  gapAfter(at: number): number | undefined {
    let first: number | undefined;
    for (const order of this.orders) {
      const acked = order.acked;
      if (acked && acked.sentAt >= at && (first === undefined || acked.answeredAt < first)) first = acked.answeredAt;
    }
    return first === undefined ? undefined : first - at;
  }
}

/** The first attempts of an order, one phrase each: node, answer, time it took. */
function describeAttempts(attempts: Attempt[]): string {
  const first = attempts
    .slice(0, 6)
    .map(
      (attempt) =>
        `${attempt.node} ${attempt.status === 0 ? `no answer (${attempt.error})` : attempt.status} after ${Math.round(attempt.answeredAt - attempt.sentAt)} ms`,
    );
  return `${attempts.length} attempts: ${first.join('; ')}${attempts.length > first.length ? '; …' : ''}`;
}

/** Every order of `trader` (every status), read through `node`, page after page. */
export async function allOrders(node: ClusterNode, trader: Trader): Promise<Order[]> {
  const orders: Order[] = [];
  for await (const order of memberClient(node, trader, READ_TIMEOUT_MS).orders({ limit: PAGE_SIZE }))
    orders.push(order);
  return orders;
}

export interface OrderAudit {
  /** Acknowledged orders not found (or found under another id). */
  lost: string[];
  /** client_order_ids placed more than once (under different order ids). */
  duplicates: string[];
  /** Orders a listing gave more than once (the same id on two pages): a paging fault, not a double placement. */
  listedTwice: string[];
  /** Logical orders never acknowledged but found placed (an attempt journaled whose answer was lost). */
  placedUnacknowledged: number;
}

/** Reads back every trader's orders through `node` and holds them against what the loads sent. */
export async function auditOrders(node: ClusterNode, traders: Trader[], sent: LogicalOrder[]): Promise<OrderAudit> {
  const found = new Map<string, string[]>();
  const seen = new Set<string>();
  const listedTwice: string[] = [];
  for (const trader of traders) {
    for (const order of await allOrders(node, trader)) {
      if (seen.has(order.id)) {
        listedTwice.push(`${order.client_order_id} (${order.id})`);
        continue;
      }
      seen.add(order.id);
      if (order.client_order_id === null || order.client_order_id === undefined) continue;
      found.set(order.client_order_id, [...(found.get(order.client_order_id) ?? []), order.id]);
    }
  }
  const lost: string[] = [];
  let placedUnacknowledged = 0;
  for (const order of sent) {
    const ids = found.get(order.clientOrderId) ?? [];
    if (order.acked && !ids.includes(order.acked.orderId)) lost.push(`${order.clientOrderId} (${order.acked.orderId})`);
    if (!order.acked && ids.length > 0) placedUnacknowledged += 1;
  }
  const sentById = new Map(sent.map((order) => [order.clientOrderId, order]));
  const duplicates = [...found]
    .filter(([, ids]) => ids.length > 1)
    .map(([id, ids]) => {
      const order = sentById.get(id);
      const acked = order?.acked ? `acked ${order.acked.orderId} through ${order.acked.node}` : 'not acked';
      return `${id} placed ${ids.length} times (${ids.join(', ')}; ${acked}; ${order ? describeAttempts(order.attempts) : ''})`;
    });
  return { lost, duplicates, listedTwice, placedUnacknowledged };
}

export interface CashAudit {
  conserved: boolean;
  /** Σ account_balance + Σ total_fees, Σ total_deposits, and what the harness deposited. */
  balancesPlusFees: string;
  totalDeposits: string;
  deposited: string;
}

/**
 * Cash conserved to the cent once every market traded is settled (SPEC's balance fields, read
 * through `node`): the members' cash plus the fees they paid equals what was deposited, and the
 * deposits the service counts are the ones the harness made.
 */
export async function auditCash(node: ClusterNode, traders: Trader[]): Promise<CashAudit> {
  let balancesPlusFees: Decimal = ZERO;
  let totalDeposits: Decimal = ZERO;
  let deposited: Decimal = ZERO;
  for (const trader of traders) {
    const balance = await memberClient(node, trader, READ_TIMEOUT_MS).balance();
    balancesPlusFees = plus(balancesPlusFees, plus(decimalOf(balance.account_balance), decimalOf(balance.total_fees)));
    totalDeposits = plus(totalDeposits, decimalOf(balance.total_deposits));
    deposited = plus(deposited, decimalOf(trader.deposited));
  }
  return {
    conserved: compare(balancesPlusFees, deposited) === 0 && compare(totalDeposits, deposited) === 0,
    balancesPlusFees: decimalText(balancesPlusFees),
    totalDeposits: decimalText(totalDeposits),
    deposited: decimalText(deposited),
  };
}

/** Closes `marketId` and settles it (`win`), through `node`: its pool is paid out. */
export async function settleMarket(cluster: Cluster, node: ClusterNode, marketId: string): Promise<void> {
  await admin(cluster, node, 'POST', `/markets/${marketId}/status`, { status: 'closed' });
  await admin(cluster, node, 'POST', `/markets/${marketId}/result`, { result: 'win' });
}

/**
 * Waits until every node that runs answers `/readyz` 200 at one and the same position (they have
 * all applied the journal to its head); the position. Fails after `timeoutMs` naming each node's.
 */
export async function untilCaughtUp(cluster: Cluster, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = cluster.nodes.filter((node) => node.running && !node.isFrozen);
    const answers = await Promise.all(running.map((node) => node.readyz()));
    const positions = new Set(answers.map((answer) => (answer.status === 200 ? answer.position : undefined)));
    const [position] = positions;
    if (positions.size === 1 && position !== undefined) return position;
    if (Date.now() > deadline)
      throw new Error(
        `the nodes did not reach one position within ${timeoutMs} ms: ${answers.map((answer, i) => `${running[i]!.name} ${answer.status} ${answer.position}`).join(', ')}`,
      );
    await sleep(100);
  }
}

/**
 * `/readyz` of every node sampled every `everyMs` until stopped: a position lower than the last
 * one the same process answered, or two writers in one round, is recorded.
 */
export class ReadinessWatch {
  readonly problems: string[] = [];
  samples = 0;
  private readonly last = new Map<string, { pid: number; position: bigint }>();
  private running = true;
  private readonly done: Promise<void>;

  constructor(
    private readonly cluster: Cluster,
    everyMs = 200,
  ) {
    this.done = (async () => {
      while (this.running) {
        await this.round();
        await sleep(everyMs);
      }
    })();
  }

  private async round(): Promise<void> {
    const nodes = this.cluster.nodes.filter((node) => node.running && !node.isFrozen);
    const pids = nodes.map((node) => node.pid);
    const answers = await Promise.all(nodes.map((node) => node.readyz()));
    const writers: string[] = [];
    const roundAt = new Date().toISOString();
    answers.forEach((answer, i) => {
      const node = nodes[i]!;
      const pid = pids[i];
      if (answer.status !== 200 || pid === undefined || node.pid !== pid) return;
      if (answer.role === 'writer') writers.push(node.name);
      if (answer.position === undefined || !/^-?\d+$/.test(answer.position)) return;
      const position = BigInt(answer.position);
      const before = this.last.get(node.name);
      if (before && before.pid === pid && position < before.position)
        this.problems.push(`${node.name} (pid ${pid}): position ${before.position} then ${position}`);
      this.last.set(node.name, { pid, position });
    });
    if (writers.length > 1)
      this.problems.push(
        `two writers in one round at ${roundAt}: ${answers.map((answer, i) => `${nodes[i]!.name} ${JSON.stringify(answer.body)}`).join('; ')}`,
      );
    this.samples += 1;
  }

  async stop(): Promise<string[]> {
    this.running = false;
    await this.done;
    return this.problems;
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The error lines of a node's log tail (pino level 50 and above), the last few. */
function errorLinesOf(log: string): string {
  return log
    .split('\n')
    .filter((line) => /"level":(50|60)/.test(line))
    .slice(-3)
    .join('\n');
}
