// `Idempotency-Key` on POST /orders, POST /orders/batched and DELETE /orders/batched: a retry
// with the same key from the same account within 24 hours gets the first answer (status and
// body) and changes nothing. Write handlers return their answer instead of writing it, so the
// first answer, error answers included, can be stored before it is sent.

import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../../commands/context.ts';
import { IDEMPOTENCY_KEY_LENGTH_MAX } from '../../commands/idempotency/keys.ts';
import { principalOf } from '../auth/principal.ts';
import { badRequest, httpErrorOf, httpErrorOfThrown } from '../errors.ts';

export interface Answer {
  status: number;
  body: unknown;
}

type AnswerHandler = (req: Request) => Promise<Answer>;

const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_FORMAT = /^[\x21-\x7e]+$/;

/** The claim a request runs under (set while its handler runs). */
const claims = new WeakMap<Request, { seed: string; takenOver: boolean }>();

/**
 * The order ids of a request made under an Idempotency-Key claim: the n-th leg's id is made from
 * the claim's seed (a UUID of the v4 form), so the request taken over after its first node
 * stopped places the same orders (commands/idempotency/keys.ts). Undefined without a claim.
 */
export function claimedOrderIds(req: Request): ((leg: number) => string) | undefined {
  const claim = claims.get(req);
  if (!claim) return undefined;
  return (leg) => {
    const bytes = createHash('sha256').update(`${claim.seed}:${leg}`, 'utf8').digest().subarray(0, 16);
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

/** Whether the request took over a claim whose first holder stopped before answering. */
export function tookOverClaim(req: Request): boolean {
  return claims.get(req)?.takenOver === true;
}

/**
 * A refusal as the answer a client receives (stored under the key); a transient failure (503: the
 * engine or the store cannot serve now) or a bug stays an exception, so a retry is decided anew.
 */
function answerOfError(err: unknown): Answer | null {
  const answer = httpErrorOfThrown(err);
  if (answer === null || answer.status >= 500) return null;
  return { status: answer.status, body: { error: answer.message, ...answer.extra } };
}

function send(res: Response, answer: Answer): void {
  res.status(answer.status).json(answer.body);
}

/**
 * What makes two requests "the same request" for a key: method, path and the body's digest (the
 * IETF Idempotency-Key draft: the same key with another body is 422, never the first answer).
 */
function fingerprintOf(method: string, path: string, body: unknown): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(body ?? null), 'utf8')
    .digest('base64url');
  return `${method} ${path} ${digest}`;
}

export function idempotentWrite(ctx: AppContext, handler: AnswerHandler): RequestHandler {
  const store = ctx.idempotencyKeys;
  return async function idempotentHandler(req, res): Promise<void> {
    const header = req.headers[IDEMPOTENCY_HEADER];
    if (header === undefined) {
      send(res, await handler(req));
      return;
    }
    if (
      typeof header !== 'string' ||
      header.length === 0 ||
      header.length > IDEMPOTENCY_KEY_LENGTH_MAX ||
      !KEY_FORMAT.test(header)
    ) {
      throw badRequest(`Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_LENGTH_MAX} visible ASCII characters`);
    }
    const accountId = principalOf(req).account_id;
    const fingerprint = fingerprintOf(req.method, req.path, req.body);
    const claim = await store.claim(accountId, header, fingerprint);
    if (claim.kind === 'busy') throw httpErrorOf({ code: 'idempotency_key_in_use' });
    if (claim.kind === 'replay') {
      if (claim.fingerprint !== fingerprint) throw httpErrorOf({ code: 'idempotency_key_reused' });
      res.set('Idempotent-Replayed', 'true');
      send(res, claim.answer);
      return;
    }
    let answer: Answer;
    claims.set(req, { seed: claim.seed, takenOver: claim.takenOver });
    try {
      answer = await handler(req);
    } catch (err) {
      const expected = answerOfError(err);
      if (!expected) {
        await store.release(accountId, header, claim.createdAtUs).catch(() => undefined);
        throw err;
      }
      answer = expected;
    }
    await store.complete(accountId, header, claim.createdAtUs, answer);
    send(res, answer);
  };
}
