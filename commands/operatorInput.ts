// Submitting an engine input for an operator command (or the demo seeder): a refused input comes
// back as its typed refusal, an accepted one with the entities it changed. The engine has noted
// the write for read-your-writes of every account it touched before it answers.

import type { StepAnswer } from '../domain/engine/engine.ts';
import type { EngineInput } from '../domain/engine/inputs.ts';
import type { Refusal } from '../domain/errors.ts';
import type { EngineGateway, EngineReply } from '../engine/gateway.ts';
import { accepted, refused, valueOrThrow, type CommandResult } from './result.ts';

export interface EngineCaller {
  engine: EngineGateway;
}

export type Accepted = { reply: EngineReply; answer: StepAnswer; position: bigint };

/** The engine answered without saying why (it always says; this is the fallback). */
const REQUEST_REFUSED: Refusal = { code: 'request_refused' };

export async function submitOperatorInput(caller: EngineCaller, input: EngineInput): Promise<CommandResult<Accepted>> {
  const reply = await caller.engine.submit(input);
  if (!reply.ok) return refused(reply.error ?? REQUEST_REFUSED);
  return accepted({ reply, answer: answerOf(reply), position: reply.position });
}

export async function submitOrThrow(caller: EngineCaller, input: EngineInput): Promise<EngineReply> {
  return valueOrThrow(await submitOperatorInput(caller, input)).reply;
}

/** What an accepted operator input changed, as the engine answered it. */
function answerOf(reply: EngineReply): StepAnswer {
  // order inputs answer with their legs instead
  return reply.answer ?? { accounts: [], balances: [], entries: [], sportEvents: [], markets: [], fills: [] };
}
