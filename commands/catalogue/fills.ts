// The operator's fill amendment: a trade's price and/or size corrected on both of its fills (the
// engine's rules: docs/ENGINE.md). One engine input; the answer is the trade's fills as amended.

import type { EngineInput } from '../../domain/engine/inputs.ts';
import type { FillView } from '../../domain/views.ts';
import { accepted, refused, type CommandResult } from '../result.ts';
import { submitOperatorInput, type EngineCaller } from '../operatorInput.ts';

interface FillAmendment {
  /** Whole cents, > 0 (below the market's max_price is the engine's rule). */
  price?: string;
  /** Contracts, >= 0. */
  filled?: string;
}

interface AmendedFills {
  /** The trade's first fill (or, if the engine named none of the trade's fills, the last fill it changed). */
  fill: FillView | null;
  /** The trade's fills as amended. */
  fills: FillView[];
}

export async function amendFill(
  caller: EngineCaller,
  tradeId: string,
  amendment: FillAmendment,
): Promise<CommandResult<AmendedFills>> {
  if (amendment.price === undefined && amendment.filled === undefined)
    return refused({ code: 'price_or_filled_required' });
  const input: Extract<EngineInput, { kind: 'AmendFill' }> = { kind: 'AmendFill', trade_id: tradeId };
  if (amendment.price !== undefined) input.price = amendment.price;
  if (amendment.filled !== undefined) input.filled = amendment.filled;
  const result = await submitOperatorInput(caller, input);
  if (!result.ok) return result;
  const changed = result.value.answer.fills;
  const fills = changed.filter((f) => f.trade_id === tradeId);
  return accepted({ fill: fills[0] ?? changed.at(-1) ?? null, fills });
}
