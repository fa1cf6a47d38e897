// Expected-revision rule shared by the adapters that check it themselves (memory, postgres).

import { WrongExpectedRevision, type ExpectedRevision } from './port.ts';

/** Throws WrongExpectedRevision unless `current` (undefined: no stream) satisfies `expected`. */
export function checkExpectedRevision(stream: string, expected: ExpectedRevision, current: bigint | undefined): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === undefined) ||
    (expected === 'stream_exists' && current !== undefined) ||
    (typeof expected === 'bigint' && current === expected);
  if (!ok) throw new WrongExpectedRevision(stream, expected, current ?? 'no_stream');
}
