// Submitting an engine input on behalf of an operator or the demo seeder: a refused input
// becomes its typed DomainError (mapped to 400/404/422 at the edge), and the write is noted for
// read-your-writes of every account it touched.

import { DomainError } from '../../domain/errors.ts';
import { accountsNamedBy, type EngineEvent } from '../../domain/engine/events.ts';
import type { StepAnswer } from '../../domain/engine/engine.ts';
import type { EngineInput } from '../../domain/engine/inputs.ts';
import type { AppContext } from '../context.ts';
import type { EngineReply } from '../engine/gateway.ts';

export type EngineCaller = Pick<AppContext, 'engine' | 'writes'>;

export async function submitOrThrow(ctx: EngineCaller, input: EngineInput): Promise<EngineReply> {
  const reply = await ctx.engine.submit(input);
  if (!reply.ok) {
    throw new DomainError(reply.error ?? { code: 'request_refused' });
  }
  for (const accountId of accountsTouched(reply.events)) ctx.writes.note(accountId, reply.position);
  return reply;
}

/** Every account whose state one of these facts changed. */
export function accountsTouched(events: readonly EngineEvent[]): Set<string> {
  return accountsNamedBy(events);
}

/** What an accepted operator input changed, as the engine answered it. */
export function answerOf(reply: EngineReply): StepAnswer {
  if (!reply.answer) throw new Error('the engine answered an operator input without the entities it changed');
  return reply.answer;
}
