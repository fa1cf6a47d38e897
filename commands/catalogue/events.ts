// Operator commands on sport events: schedule, change (with the event's settlement-side fee),
// start. Each is one engine input (two when a fee is set with a change); the answer is the event as
// the engine left it, or a refusal.

import { randomUUID } from 'node:crypto';
import type { SportEventChanges, SportEventFields } from '../../domain/engine/inputs.ts';
import type { SportEventView } from '../../domain/views.ts';
import { accepted, type CommandResult } from '../result.ts';
import { submitOperatorInput, type EngineCaller } from '../operatorInput.ts';

type SportEventListing = Omit<SportEventFields, 'event_id'>;

interface EventChange {
  changes: SportEventChanges;
  /** The event's settlement-side percent (null removes it); absent: unchanged. */
  event_fee_percent?: number | null;
}

interface ChangedEvent {
  /** The event after the change; null when the engine changed nothing (read it where it is kept). */
  event: SportEventView | null;
  position: bigint;
}

export async function scheduleEvent(
  caller: EngineCaller,
  listing: SportEventListing,
): Promise<CommandResult<{ event: SportEventView; position: bigint }>> {
  const eventId = randomUUID();
  const result = await submitOperatorInput(caller, {
    kind: 'ScheduleSportEvent',
    event: { event_id: eventId, ...listing },
  });
  if (!result.ok) return result;
  const event = result.value.answer.sportEvents.find((e) => e.event_id === eventId);
  if (!event) throw new Error('engine accepted ScheduleSportEvent without scheduling the event');
  return accepted({ event, position: result.value.position });
}

export async function changeEvent(
  caller: EngineCaller,
  eventId: string,
  change: EventChange,
): Promise<CommandResult<ChangedEvent>> {
  let result = await submitOperatorInput(caller, {
    kind: 'UpdateSportEvent',
    event_id: eventId,
    changes: change.changes,
  });
  if (!result.ok) return result;
  let event = result.value.answer.sportEvents.find((e) => e.event_id === eventId) ?? null;
  if (change.event_fee_percent !== undefined) {
    result = await submitOperatorInput(caller, {
      kind: 'SetSettlementFee',
      scope: 'event',
      scope_id: eventId,
      percent: change.event_fee_percent,
    });
    if (!result.ok) return result;
    event = result.value.answer.sportEvents.find((e) => e.event_id === eventId) ?? event;
  }
  return accepted({ event, position: result.value.position });
}

export async function startEvent(caller: EngineCaller, eventId: string): Promise<CommandResult<ChangedEvent>> {
  const result = await submitOperatorInput(caller, { kind: 'StartSportEvent', event_id: eventId });
  if (!result.ok) return result;
  return accepted({
    event: result.value.answer.sportEvents.find((e) => e.event_id === eventId) ?? null,
    position: result.value.position,
  });
}
