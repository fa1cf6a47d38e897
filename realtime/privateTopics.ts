// Private topics (`orders:{user_id}` … `account:{user_id}`) are sent to each join on its own, not
// through a shared publish: every join knows what its snapshot already showed and skips the
// updates that are not newer.
//
// Why: a join's snapshot of live orders, positions and the balance is taken from the engine's
// live view (as REST's reads are), which runs ahead of the read models' change announcements
// the updates come from. The view stands at one engine seq, and every order, balance and
// position in it reflects the steps up to that seq; each announced change carries the seq of
// the row's last change. A join therefore skips a change of those kinds stamped at or below its
// snapshot's seq (already shown, possibly older than what the client holds) and sends every
// later one (nothing is lost: every step after the snapshot is announced later). A balance
// update carries the fields that differ from the balance this join last showed.
//
// From the moment a join subscribes until its reply is sent, the updates for it are held, then
// passed through the same filter right after the reply.

import type { PRIVATE_UPDATE_KEYS } from './feed.ts';

/** Updates held for one join while its snapshot is read; past this the join is refused (`busy`). */
export const HELD_UPDATES_PER_JOIN_MAX = 10_000;

export type PrivateKind = (typeof PRIVATE_UPDATE_KEYS)[keyof typeof PRIVATE_UPDATE_KEYS];

export interface PrivateUpdate {
  kind: PrivateKind;
  doc: Record<string, unknown>;
  /** The engine seq the row reflects, when the announcement says it. */
  seq?: number;
}

export class PrivateSubscriber {
  private held: PrivateUpdate[] | null = [];
  private overflow = false;
  /** Per kind: changes stamped at or below this seq are already in the snapshot. */
  private readonly floors = new Map<PrivateKind, number>();
  /** The balance this join last showed (the base of a balance update's changed fields). */
  private balance: Record<string, unknown> | null = null;

  constructor(
    private readonly send: (payload: Record<string, unknown>) => void,
    private readonly dropped: () => void,
  ) {}

  /** More updates arrived while the snapshot was read than can be held. */
  get overflowed(): boolean {
    return this.overflow;
  }

  /**
   * What the snapshot showed: the kinds taken from the engine's live view at `seq` (their older
   * changes are skipped from now on) and the balance it showed, if any.
   */
  showed(kinds: readonly PrivateKind[], seq: number | null, balance: Record<string, unknown> | null): void {
    if (seq !== null) for (const kind of kinds) this.floors.set(kind, seq);
    this.balance = balance;
  }

  /** After the reply: the held updates go out (filtered), then every update as it comes. */
  start(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const update of held) this.deliver(update);
  }

  /** The join ended. */
  close(): void {
    this.held = null;
    this.dropped();
  }

  offer(update: PrivateUpdate): void {
    if (this.held === null) {
      this.deliver(update);
      return;
    }
    if (this.held.length >= HELD_UPDATES_PER_JOIN_MAX) this.overflow = true;
    else this.held.push(update);
  }

  private deliver(update: PrivateUpdate): void {
    const floor = this.floors.get(update.kind);
    if (floor !== undefined && update.seq !== undefined && update.seq <= floor) return;
    if (update.kind !== 'balance') {
      this.send({ [update.kind]: update.doc });
      return;
    }
    const before = this.balance;
    this.balance = update.doc;
    const changed: Record<string, unknown> = { account_id: update.doc.account_id, user_id: update.doc.user_id };
    let any = false;
    for (const [key, value] of Object.entries(update.doc)) {
      if (key === 'account_id' || key === 'user_id') continue;
      if (before === null || JSON.stringify(before[key]) !== JSON.stringify(value)) {
        changed[key] = value;
        any = true;
      }
    }
    if (any) this.send({ balance: changed });
  }
}

/** The joins of every private topic, by topic. */
export class PrivateTopics {
  private readonly topics = new Map<string, Set<PrivateSubscriber>>();

  /** A join of `topic` (held until `start`); `send` pushes an `update` to that join alone. */
  subscribe(topic: string, send: (payload: Record<string, unknown>) => void): PrivateSubscriber {
    let set = this.topics.get(topic);
    if (!set) this.topics.set(topic, (set = new Set()));
    const subscriber: PrivateSubscriber = new PrivateSubscriber(send, () => {
      const current = this.topics.get(topic);
      current?.delete(subscriber);
      if (current?.size === 0) this.topics.delete(topic);
    });
    set.add(subscriber);
    return subscriber;
  }

  wants(topic: string): boolean {
    return this.topics.has(topic);
  }

  publish(topic: string, update: PrivateUpdate): void {
    const set = this.topics.get(topic);
    if (set) for (const subscriber of set) subscriber.offer(update);
  }
}
