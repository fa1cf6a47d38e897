// /admin/v1 accounts: open, read, update, deposits, withdrawals, adjustments, API keys, sessions.
// Each write is parse (schema, path id, amounts) → command → render.

import type { Request, Router } from 'express';
import { adjust, deposit, openAccount, updateAccount, withdraw } from '../../../commands/accounts/accounts.ts';
import { PASSWORD_LENGTH_MAX } from '../../../commands/accounts/password.ts';
import type { AccountFields } from '../../../domain/engine/inputs.ts';
import { httpErrorOf, valueOrRefuse } from '../../errors.ts';
import { issueApiKey, revokeApiKey } from '../../../commands/credentials/apiKeys.ts';
import { issueSession, SESSION_LIFETIME_MAX_S } from '../../../commands/credentials/sessions.ts';
import { usToIso } from '../../../domain/clock.ts';
import { renderBalance, renderLedgerEntry } from '../../../projections/core/render.ts';
import { enableTotp } from '../../../commands/oauth/totp.ts';
import { grantsOf } from '../../../projections/oauth/grants.ts';
import { presentAccount } from '../present.ts';
import type { SnapshotCache } from '../upstream.ts';
import { compile, dateTimeToUs, optional, parseBody, parseMoney, pathId } from '../validate.ts';

const NAME_LENGTH_MAX = 200;
/** The grants list is a projection: wait (bounded) until it has caught up with the store. */
const GRANTS_VISIBLE_WAIT_MS = 2_000;

const nullableString = (maxLength: number) => ({ type: ['string', 'null'], maxLength });

const accountProperties = {
  first_name: nullableString(NAME_LENGTH_MAX),
  last_name: nullableString(NAME_LENGTH_MAX),
  email: { anyOf: [{ type: 'string', format: 'email', maxLength: 320 }, { type: 'null' }] },
  password: { type: 'string', minLength: 1, maxLength: PASSWORD_LENGTH_MAX },
  status: { enum: ['active', 'pending', 'suspended'] },
  jurisdiction: { enum: ['us', 'ca'] },
  fee_schedule: { enum: ['fixed_percent', 'on_trade', 'loyalty_tier_on_trade'] },
  base_fee_percent: { type: ['number', 'null'], minimum: 0, maximum: 100 },
  maker_factor: { type: ['number', 'null'], minimum: 0, maximum: 100 },
  taker_factor: { type: ['number', 'null'], minimum: 0, maximum: 100 },
  created_at: { type: 'string', format: 'date-time' },
};

interface AccountBody {
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  password?: string;
  status?: AccountFields['status'];
  jurisdiction?: AccountFields['jurisdiction'];
  fee_schedule?: AccountFields['fee_schedule'];
  base_fee_percent?: number | null;
  maker_factor?: number | null;
  taker_factor?: number | null;
  created_at?: string;
}

const validateCreate = compile<AccountBody>({ type: 'object', properties: accountProperties });
const validatePatch = compile<AccountBody>({ type: 'object', properties: accountProperties, minProperties: 1 });
const validateDeposit = compile<{ amount: string }>({
  type: 'object',
  required: ['amount'],
  properties: { amount: { type: 'string', format: 'decimal' } },
});
const validateWithdrawal = compile<{
  amount: string;
  method?: string | null;
  reason?: string | null;
  sub_method?: string | null;
}>({
  type: 'object',
  required: ['amount'],
  properties: {
    amount: { type: 'string', format: 'decimal' },
    method: nullableString(100),
    reason: nullableString(1000),
    sub_method: { enum: ['Send', 'Request', null] },
  },
});
const validateAdjustment = compile<{ amount: string; reason?: string | null }>({
  type: 'object',
  required: ['amount'],
  properties: { amount: { type: 'string', format: 'decimal' }, reason: nullableString(1000) },
});
const validateApiKey = compile<{ scope: 'read_only' | 'read_write'; public_key?: string | null }>({
  type: 'object',
  required: ['scope'],
  properties: { scope: { enum: ['read_only', 'read_write'] }, public_key: { type: ['string', 'null'] } },
});
const validateSession = compile<{ expires_in?: number | null }>({
  type: 'object',
  properties: { expires_in: { type: ['integer', 'null'], minimum: 1, maximum: SESSION_LIFETIME_MAX_S } },
});

function accountFieldsOf(body: AccountBody): AccountFields {
  const fields: AccountFields = optional(body, [
    'first_name',
    'last_name',
    'email',
    'status',
    'jurisdiction',
    'fee_schedule',
    'base_fee_percent',
    'maker_factor',
    'taker_factor',
  ]);
  if (body.created_at !== undefined) fields.created_at = dateTimeToUs('created_at', body.created_at);
  return fields;
}

const accountIdOf = (req: Request): string => pathId(req, 'account_id', 'account_not_found');

export function accountRoutes(router: Router, cache: SnapshotCache): void {
  const ctx = cache.context;

  async function requireAccount(accountId: string) {
    const account = await cache.account(accountId);
    if (account === null) throw httpErrorOf({ code: 'account_not_found' });
    return account;
  }

  router.post('/accounts', async (req, res) => {
    const body = parseBody(validateCreate, req.body);
    const opened = valueOrRefuse(await openAccount(ctx, accountFieldsOf(body), body.password));
    cache.accounts.set(opened.account.account_id, opened.account);
    res.json({
      account: { ...presentAccount(opened.account), balance: opened.balance && renderBalance(opened.balance) },
    });
  });

  router.get('/accounts/:account_id', async (req, res) => {
    res.json({ account: presentAccount(await requireAccount(accountIdOf(req))) });
  });

  router.patch('/accounts/:account_id', async (req, res) => {
    const accountId = accountIdOf(req);
    const body = parseBody(validatePatch, req.body);
    const updated = valueOrRefuse(await updateAccount(ctx, accountId, accountFieldsOf(body), body.password));
    cache.accounts.set(accountId, updated.account);
    // a status change is in force on /api/v1 once answered: credential checks read the status
    // from the read models, so the answer waits (bounded) until they have it
    if (body.status !== undefined) await cache.caughtUp(updated.position);
    res.json({ account: presentAccount(updated.account) });
  });

  router.post('/accounts/:account_id/totp', async (req, res) => {
    const accountId = accountIdOf(req);
    const account = await requireAccount(accountId);
    const totp = valueOrRefuse(
      await enableTotp(ctx.store, accountId, account.email ?? account.account_id, ctx.clock.nowUs()),
    );
    res.json({ totp });
  });

  router.get('/accounts/:account_id/grants', async (req, res) => {
    const accountId = accountIdOf(req);
    await requireAccount(accountId);
    await ctx.projections.waitFor(await ctx.store.headPosition(), GRANTS_VISIBLE_WAIT_MS).catch(() => undefined);
    res.json({ grants: await grantsOf(ctx.pool, accountId) });
  });

  router.post('/accounts/:account_id/deposits', async (req, res) => {
    const accountId = accountIdOf(req);
    const body = parseBody(validateDeposit, req.body);
    const amount = parseMoney(body.amount, 'positive');
    const result = valueOrRefuse(await deposit(ctx, accountId, amount));
    res.json({ balance: renderBalance(result.balance), deposit: result.entry && renderLedgerEntry(result.entry) });
  });

  router.post('/accounts/:account_id/withdrawals', async (req, res) => {
    const accountId = accountIdOf(req);
    const body = parseBody(validateWithdrawal, req.body);
    const amount = parseMoney(body.amount, 'positive');
    const result = valueOrRefuse(
      await withdraw(ctx, accountId, {
        amount,
        method: body.method ?? null,
        reason: body.reason ?? null,
        sub_method: body.sub_method ?? null,
      }),
    );
    res.json({ withdrawal: renderLedgerEntry(result.entry), balance: result.balance && renderBalance(result.balance) });
  });

  router.post('/accounts/:account_id/adjustments', async (req, res) => {
    const accountId = accountIdOf(req);
    const body = parseBody(validateAdjustment, req.body);
    const amount = parseMoney(body.amount, 'nonzero');
    const result = valueOrRefuse(await adjust(ctx, accountId, amount, body.reason ?? null));
    res.json({ adjustment: renderLedgerEntry(result.entry), balance: result.balance && renderBalance(result.balance) });
  });

  router.post('/accounts/:account_id/api_keys', async (req, res) => {
    const accountId = accountIdOf(req);
    const body = parseBody(validateApiKey, req.body);
    await requireAccount(accountId);
    const request: { account_id: string; scope: 'read_only' | 'read_write'; public_key?: string } = {
      account_id: accountId,
      scope: body.scope,
    };
    if (typeof body.public_key === 'string') request.public_key = body.public_key;
    res.json({ api_key: valueOrRefuse(await issueApiKey(ctx, request)) });
  });

  router.delete('/api_keys/:key_id', async (req, res) => {
    const revoked = valueOrRefuse(await revokeApiKey(ctx, pathId(req, 'key_id', 'api_key_not_found')));
    res.json({
      api_key: {
        ...revoked,
        revoked: true,
        revoked_at: usToIso(revoked.revoked_at),
        revoked_at_us: revoked.revoked_at,
      },
    });
  });

  router.post('/accounts/:account_id/sessions', async (req, res) => {
    const accountId = accountIdOf(req);
    const body = parseBody(validateSession, req.body);
    await requireAccount(accountId);
    const session = valueOrRefuse(
      await issueSession(ctx, { account_id: accountId, expires_in_s: body.expires_in ?? null }),
    );
    res.json({
      session: { token: session.token, expires_at: usToIso(session.expires_at), expires_at_us: session.expires_at },
    });
  });
}
