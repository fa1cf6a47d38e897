// What a projector changed in the read models, announced after its transaction commits. The
// realtime feed and in-process caches subscribe to these; commands see them only as this type.

export interface ProjectionChange {
  projector: string;
  /** e.g. 'order', 'fill', 'balance', 'position', 'market', 'ledger_entry', 'profile' */
  kind: string;
  /** Keys a subscriber routes on, e.g. { account_id, user_id, market_id }. */
  keys: Record<string, string>;
  /** The new row as the REST API would render it, when cheap to give. */
  doc?: unknown;
  /**
   * The engine sequence number the row reflects (its last change), where the row has one (orders,
   * balances, positions): a subscriber holding a newer state of the row skips an older change.
   */
  seq?: number;
}
