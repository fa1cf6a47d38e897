// What a projector changed in the read models, announced after its transaction commits. The
// realtime feed and in-process caches subscribe to these; commands see them only as this type.

export interface ProjectionChange {
  projector: string;
  /** e.g. 'order', 'fill', 'balance', 'position', 'market', 'ledger_entry', 'profile' */
  kind: string;
  /** Keys a subscriber routes on, e.g. { account_id, user_id, market_id }. */
  keys: Record<string, string>;
  /**
   * The new row as the REST API would render it, when cheap to give. A per-order document (kinds
   * in WATCHED_ONLY_KINDS) may be rendered on first read, so one nobody reads costs nothing.
   */
  doc?: unknown;
  /**
   * The engine sequence number the row reflects (its last change), where the row has one (orders,
   * balances, positions): a subscriber holding a newer state of the row skips an older change.
   */
  seq?: number;
}

/**
 * Kinds of change that concern one account's orders and fills: a node forwards them from its
 * projections to its feed only for accounts someone there watches (a private channel joined),
 * so the per-order documents nobody subscribes to are never rendered or sent between threads.
 * Every other kind is forwarded to every listener.
 */
export const WATCHED_ONLY_KINDS: ReadonlySet<string> = new Set(['order', 'fill']);

/** The changes a node's listeners get while `watched` holds the accounts someone watches. */
export function changesForWatchers(
  changes: readonly ProjectionChange[],
  watched: ReadonlySet<string>,
): ProjectionChange[] {
  const out: ProjectionChange[] = [];
  for (const change of changes) {
    if (WATCHED_ONLY_KINDS.has(change.kind)) {
      const accountId = change.keys.account_id;
      if (accountId === undefined || !watched.has(accountId)) continue;
    }
    out.push(change);
  }
  return out;
}
