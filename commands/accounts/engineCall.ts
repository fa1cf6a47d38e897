// Submitting an engine input on behalf of an operator or the demo seeder: a refused input
// becomes its typed DomainError (mapped to 400/404/422 at the edge), and the write is noted for
// read-your-writes of every account it touched.

import { DomainError } from '../../domain/errors.ts';
import type { EngineEvent } from '../../domain/engine/events.ts';
import type { EngineInput } from '../../domain/engine/inputs.ts';
import type { AppContext } from '../context.ts';
import type { EngineReply } from '../engine/gateway.ts';

export type EngineCaller = Pick<AppContext, 'engine' | 'writes'>;

export async function submitOrThrow(ctx: EngineCaller, input: EngineInput): Promise<EngineReply> {
  const reply = await ctx.engine.submit(input);
  if (!reply.ok) {
    const error = reply.error ?? { code: 'refused' as const, message: 'Refused by the engine' };
    throw new DomainError(error.code, error.message);
  }
  for (const accountId of accountsTouched(reply.events)) ctx.writes.note(accountId, reply.position);
  return reply;
}

/** Every account whose state one of these events changed. */
export function accountsTouched(events: readonly EngineEvent[]): Set<string> {
  const accounts = new Set<string>();
  for (const event of events) {
    switch (event.type) {
      case 'AccountOpened':
      case 'AccountUpdated':
        accounts.add(event.account.account_id);
        break;
      case 'BalanceChanged':
        accounts.add(event.balance.account_id);
        break;
      case 'LedgerEntryRecorded':
        accounts.add(event.entry.account_id);
        break;
      case 'OrderPlaced':
      case 'OrderChanged':
        accounts.add(event.order.account_id);
        break;
      case 'TradeExecuted':
        accounts.add(event.provider.account_id);
        accounts.add(event.taker.account_id);
        break;
      case 'FillChanged':
        accounts.add(event.fill.account_id);
        break;
      case 'PositionChanged':
        accounts.add(event.position.account_id);
        break;
      default:
        break;
    }
  }
  return accounts;
}

/** The last event of a given type matching `pick`, from a reply. */
export function lastEvent<T extends EngineEvent['type']>(
  events: readonly EngineEvent[],
  type: T,
  pick: (event: Extract<EngineEvent, { type: T }>) => boolean = () => true,
): Extract<EngineEvent, { type: T }> | undefined {
  let found: Extract<EngineEvent, { type: T }> | undefined;
  for (const event of events) {
    if (event.type === type && pick(event as Extract<EngineEvent, { type: T }>)) found = event as Extract<EngineEvent, { type: T }>;
  }
  return found;
}
