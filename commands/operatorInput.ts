// Submitting an engine input for an operator command (or the demo seeder): a refused input comes
// back as its typed refusal, an accepted one with the entities it changed. The engine has noted
// the write for read-your-writes of every account it touched before it answers.

import type { StepAnswer } from '../domain/engine/engine.ts';
import type { EngineInput } from '../domain/engine/inputs.ts';
import { DomainError, type Refusal } from '../domain/errors.ts';
import type { EngineGateway, EngineReply } from '../engine/gateway.ts';

export interface EngineCaller {
  engine: EngineGateway;
}

/** What every operator command answers: its value, or why nothing was done. */
export type CommandResult<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const accepted = <T>(value: T): CommandResult<T> => ({ ok: true, value });
export const refused = (refusal: Refusal): { ok: false; refusal: Refusal } => ({ ok: false, refusal });

export type Accepted = { reply: EngineReply; answer: StepAnswer; position: bigint };

/** The engine answered without saying why (it always says; this is the fallback). */
const REQUEST_REFUSED: Refusal = { code: 'request_refused' };

export async function submitOperatorInput(caller: EngineCaller, input: EngineInput): Promise<CommandResult<Accepted>> {
  const reply = await caller.engine.submit(input);
  if (!reply.ok) return refused(reply.error ?? REQUEST_REFUSED);
  return accepted({ reply, answer: answerOf(reply), position: reply.position });
}

/** For callers with nobody to answer (the demo seeder, the CLI's wiring): a refusal is thrown. */
export function valueOrThrow<T>(result: CommandResult<T>): T {
  if (!result.ok) throw new DomainError(result.refusal);
  return result.value;
}

export async function submitOrThrow(caller: EngineCaller, input: EngineInput): Promise<EngineReply> {
  return valueOrThrow(await submitOperatorInput(caller, input)).reply;
}

/** What an accepted operator input changed, as the engine answered it. */
function answerOf(reply: EngineReply): StepAnswer {
  // order inputs answer with their legs instead
  return reply.answer ?? { accounts: [], balances: [], entries: [], sportEvents: [], markets: [], fills: [] };
}
