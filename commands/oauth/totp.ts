// Two-factor login (TOTP): the operator turns it on for an account (the secret is answered once,
// with its otpauth:// URL); the login page checks codes. A code is accepted once: its step is
// appended with the stream's expected revision (commands/handleCommand.ts), so the same code
// replayed, even concurrently, within its window is refused: the loser decides again on the
// stream that now holds the winner's step.

import { randomBytes, randomUUID } from 'node:crypto';
import type { EventStore } from '../../eventstore/port.ts';
import { base32Decode, base32Encode, matchTotp, otpauthUrl, TOTP_SECRET_BYTES } from '../../domain/auth/totp.ts';
import { evolveTotp, totpStream, type TotpCodeUsed, type TotpEnabled } from '../../domain/oauth/events.ts';
import { accepted, type CommandResult } from '../result.ts';
import { append, handleCommand, loadAggregate, type Aggregate } from '../handleCommand.ts';

const TOTP_ISSUER = 'Exchange';

type TotpState = ReturnType<typeof evolveTotp>;

const totpOf = (accountId: string): Aggregate<TotpState> => ({
  stream: totpStream(accountId),
  initial: () => null,
  evolve: evolveTotp,
});

export async function totpEnabled(store: EventStore, accountId: string): Promise<boolean> {
  return (await loadAggregate(store, totpOf(accountId))).state !== null;
}

/** Turns two-factor on (a fresh secret each time); answers the secret and its otpauth:// URL. */
export async function enableTotp(
  store: EventStore,
  accountId: string,
  label: string,
  nowUs: number,
): Promise<CommandResult<{ secret: string; otpauth_url: string }>> {
  const secret = base32Encode(randomBytes(TOTP_SECRET_BYTES));
  const data: TotpEnabled = { account_id: accountId, secret, at_us: nowUs };
  await store.append(totpStream(accountId), [{ id: randomUUID(), type: 'TotpEnabled', data }], 'any');
  return accepted({ secret, otpauth_url: otpauthUrl(TOTP_ISSUER, label, secret) });
}

/** Checks a code and records its step; false for a wrong, stale or already used code. */
export async function acceptTotpCode(
  store: EventStore,
  accountId: string,
  code: string,
  nowUs: number,
): Promise<boolean> {
  const result = await handleCommand(store, totpOf(accountId), ({ state }) => {
    const secret = state ? base32Decode(state.secret) : null;
    if (!state || !secret) return append([], false);
    const step = matchTotp(secret, code.trim(), Math.floor(nowUs / 1000), state.lastUsedStep);
    if (step === null) return append([], false);
    const data: TotpCodeUsed = { account_id: accountId, step, at_us: nowUs };
    return append([{ type: 'TotpCodeUsed', data }], true);
  });
  return result.ok && result.value.value;
}
