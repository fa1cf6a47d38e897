// The /api/v1 authentication middleware: the transport-free resolver (commands/auth) decides (and,
// for reads, waits until the read models passed the account's last write); its typed refusals
// become REST answers through the one table (api/errors.ts).

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { BlockList } from 'node:net';
import type { CredentialRequest } from '../../commands/auth/credentials.ts';
import { baseUrlOf, trustedProxies } from '../../commands/auth/origin.ts';
import type { AppContext } from '../../commands/context.ts';
import { BURST_SECONDS, TABLE_FULL, TokenBuckets } from '../../commands/limits/tokenBuckets.ts';
import { addressKeyOf, clientAddressOf, isLoopback } from '../../commands/net/clientAddress.ts';
import { httpErrorOf, tooManyRequests } from '../errors.ts';
import { setPrincipal } from './principal.ts';

/** `Authorization: Bearer …`: a 401 then answers that the token is invalid (RFC 6750 §3.1). */
const BEARER_PRESENTED = /^bearer +\S/i;

/** What the resolver sees of an express request. */
function credentialRequestOf(req: Request): CredentialRequest {
  return {
    method: req.method,
    pathWithQuery: req.originalUrl,
    header: (name) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : undefined;
    },
    remoteAddress: req.socket.remoteAddress ?? null,
  };
}

/** The protected resource metadata URL of the host the request came to (RFC 9728). */
function resourceMetadataUrlOf(req: Request, proxies: BlockList): string {
  const origin = { ...credentialRequestOf(req), encrypted: (req.socket as { encrypted?: boolean }).encrypted === true };
  return `${baseUrlOf(origin, proxies)}/.well-known/oauth-protected-resource`;
}

/**
 * Failed authentications (401) one client address may make per second, two seconds' worth at once;
 * past it the address gets 429 before its credentials are even looked at (guessing keys or
 * tokens, or making the service look them up, goes no faster). Loopback addresses are not counted.
 */
export const AUTH_FAILURES_PER_SECOND_PER_ADDRESS = 20;
/** Addresses whose failures are counted at once (see TokenBuckets for what happens past it). */
export const AUTH_FAILURE_ADDRESSES_MAX = 10_000;
const US_PER_MS = 1000;

export function authenticate(ctx: AppContext): RequestHandler {
  const proxies = trustedProxies(ctx.config.trustedProxies);
  const failures = new TokenBuckets(AUTH_FAILURE_ADDRESSES_MAX);
  const failureRefusal = (key: string, nowMs: number, waitMs: number) =>
    tooManyRequests(
      waitMs === TABLE_FULL ? 1000 : waitMs,
      AUTH_FAILURES_PER_SECOND_PER_ADDRESS * BURST_SECONDS,
      failures.refillMs(key, AUTH_FAILURES_PER_SECOND_PER_ADDRESS, nowMs),
    );
  /** The key the request's address counts under; null when it is not counted (loopback, unknown). */
  const addressKeyOfRequest = (req: Request): string | null => {
    const forwarded = req.headers['x-forwarded-for'];
    const address = clientAddressOf(
      req.socket.remoteAddress,
      typeof forwarded === 'string' ? forwarded : undefined,
      proxies,
    );
    // this machine's own clients are not counted (a local proxy: list it in TRUSTED_PROXIES)
    return address === null || isLoopback(address) ? null : addressKeyOf(address);
  };
  return async function authenticateRequest(req: Request, _res: Response, next: NextFunction): Promise<void> {
    // while no address has failed lately, nothing to look at (the common case costs nothing)
    if (failures.size > 0) failures.sweep(AUTH_FAILURES_PER_SECOND_PER_ADDRESS, ctx.clock.nowUs() / US_PER_MS);
    let addressKey = failures.size === 0 ? null : addressKeyOfRequest(req);
    if (
      addressKey !== null &&
      failures.isEmpty(addressKey, AUTH_FAILURES_PER_SECOND_PER_ADDRESS, ctx.clock.nowUs() / US_PER_MS)
    ) {
      const nowMs = ctx.clock.nowUs() / US_PER_MS;
      throw failureRefusal(
        addressKey,
        nowMs,
        failures.take(addressKey, 1, AUTH_FAILURES_PER_SECOND_PER_ADDRESS, nowMs),
      );
    }
    const result = await ctx.credentials.resolve(credentialRequestOf(req));
    if (!result.ok) {
      const answer = httpErrorOf(result.refusal, {
        resourceMetadataUrl: resourceMetadataUrlOf(req, proxies),
        bearerPresented: BEARER_PRESENTED.test(req.headers.authorization ?? ''),
      });
      if (answer.status === 401) addressKey ??= addressKeyOfRequest(req);
      if (answer.status === 401 && addressKey !== null) {
        const nowMs = ctx.clock.nowUs() / US_PER_MS;
        const waitMs = failures.take(addressKey, 1, AUTH_FAILURES_PER_SECOND_PER_ADDRESS, nowMs);
        if (waitMs !== 0) throw failureRefusal(addressKey, nowMs, waitMs);
      }
      throw answer;
    }
    setPrincipal(req, result.principal);
    next();
  };
}
