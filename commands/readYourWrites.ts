// Read-your-writes for reads answered by the read models (PostgreSQL): wait, bounded, until every
// projector has passed the account's last write. Reads answered from the engine's live view do
// not wait for the projectors: the view has passed every write noted (the publisher publishes a
// batch before it notes its accounts).

import type { AppContext } from './context.ts';
import type { LiveView } from '../engine/gateway.ts';

/** Bound on the read-your-writes wait; a slower projection answers with what it has. */
export const READ_YOUR_WRITES_WAIT_MS = 5_000;

export async function readYourWrites(
  ctx: Pick<AppContext, 'writes' | 'projections' | 'logger'>,
  accountId: string,
): Promise<void> {
  const lastWrite = ctx.writes.lastFor(accountId);
  if (lastWrite === undefined) return;
  await ctx.projections.waitFor(lastWrite, READ_YOUR_WRITES_WAIT_MS).catch((err: unknown) => {
    ctx.logger.warn({ err, account_id: accountId }, 'read-your-writes wait timed out');
  });
}

/** The live view, when it has passed the account's last write (else undefined: read the read models, after `readYourWrites`). */
export function liveViewFor(ctx: Pick<AppContext, 'writes' | 'engine'>, accountId: string): LiveView | undefined {
  const view = ctx.engine.live;
  if (!view) return undefined;
  const lastWrite = ctx.writes.lastFor(accountId);
  return lastWrite === undefined || view.position >= lastWrite ? view : undefined;
}
