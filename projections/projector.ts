// A projector turns recorded events into read-model rows. The runner (projections/runner.ts)
// feeds it batches inside one transaction that also stores its checkpoint, so a projector only
// writes rows; it must be idempotent (an event seen twice leaves the rows as once).
//
// Tables: `schemaSql` creates them with UNQUALIFIED names. The runner executes it with
// `search_path` set to the target schema: `public` normally, a scratch schema during a rebuild,
// whose tables are swapped into `public` when the rebuild has caught up. Handlers likewise use
// unqualified names and run with the right search_path already set on `tx`.

import type pg from 'pg';
import type { RecordedEvent, SubscriptionFilter } from '../eventstore/port.ts';

export type { ProjectionChange } from '../domain/readModel/change.ts';
import type { ProjectionChange } from '../domain/readModel/change.ts';

export interface Projector {
  name: string;
  /** Bump when schemaSql or the handling changes: the runner then rebuilds from zero. */
  version: number;
  /** Tables this projector owns (unqualified). */
  tables: string[];
  schemaSql: string;
  filter?: SubscriptionFilter;
  /**
   * Optional finer test after `filter`: false when the record certainly changes nothing here, so
   * a batch of only such records costs no transaction. `handle` must still accept them (a
   * rebuild passes every record the filter lets through).
   */
  wants?(event: RecordedEvent): boolean;
  handle(tx: pg.PoolClient, events: RecordedEvent[]): Promise<ProjectionChange[] | void>;
}
