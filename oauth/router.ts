// The OAuth 2.0 authorization server's HTTP face: the protocol endpoints (JSON, RFC 6749 error
// bodies, never HTML) and the browser pages (login, two-factor, sign-up, consent). Every decision
// is made by commands/oauth (and sign-up by commands/accounts/signUp.ts); this file only parses
// requests, keeps the browser session, maps typed OAuth errors to answers and renders.
//
//   GET  /oauth/authorize          validate → sign in if needed → silent code or consent screen
//   GET  /oauth/login, POST         Email + Password → (Code) → back to the authorization
//   GET  /oauth/login/totp, POST    two-factor code
//   GET  /player/register, POST     sign-up, then log in in the same browser session
//   POST /oauth/consent             Allow / Deny
//   POST /oauth/token | revoke | introspect | register

import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { signUp, type NewMember, type SignUpLimiter } from '../commands/accounts/signUp.ts';
import { baseUrlOf, trustedProxies } from '../commands/auth/origin.ts';
import { allow, decide, deny, validateAuthorization, type AuthorizationRequest } from '../commands/oauth/authorize.ts';
import type { OAuthDeps } from '../commands/oauth/deps.ts';
import { answerOfError } from '../commands/oauth/errors.ts';
import { isFormContentType, type OAuthAnswer, type OAuthRequest } from '../commands/oauth/http.ts';
import { logIn, logInTotp, type LoginLimiter, type MemberDirectory } from '../commands/oauth/login.ts';
import { register, type RegistrationLimiter } from '../commands/oauth/register.ts';
import { introspect, revoke } from '../commands/oauth/revokeIntrospect.ts';
import { createTokenEndpoint } from '../commands/oauth/tokenEndpoint.ts';
import { normalizeIp } from '../domain/address.ts';
import {
  addPending,
  BrowserSessions,
  csrfMatches,
  sessionCookie,
  type BrowserSession,
  type BrowserSessionStore,
} from './browserSession.ts';
import { originRequestOf } from './metadata.ts';
import { consentPage, errorPage, loginPage, registerPage, signedInPage, totpPage } from './pages.ts';

const FORM_LIMIT = '16kb';
const FORM_PARAMETERS_MAX = 50;

interface OAuthWiring {
  deps: OAuthDeps;
  members: MemberDirectory;
  loginLimiter: LoginLimiter;
  registrations: RegistrationLimiter;
  signUps: SignUpLimiter;
  /** Opens a member account with a password and waits until the read models know it ('refused': the engine did not open it). */
  openMember(member: NewMember): Promise<'opened' | 'refused'>;
  trustedProxies: string[];
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Where browser sessions are kept (default: in this process's memory). */
  sessions?: BrowserSessionStore;
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** A route of this router that the service's direct lane may also answer (same handlers; no express). */
interface OAuthLaneRoute {
  method: string;
  path: string;
  routerPath: string;
  chain: ((req: Request, res: Response, next: NextFunction) => unknown)[];
}

const FORM_LIMIT_BYTES = 16 * 1024;

/** Retry-After in whole seconds for a refusal's `retryAfterMs` (a second when it names none). */
const retryAfterS = (retryAfterMs: number | undefined): string => String(Math.ceil((retryAfterMs ?? 1000) / 1000));

/**
 * The token endpoint's form parser: application/x-www-form-urlencoded up to 16 KiB into an object
 * (a repeated name becomes an array, which the endpoint refuses); other types leave an empty body
 * (the endpoint answers invalid_request). Bad or oversized bodies are answered here, as JSON.
 */
/** One application/x-www-form-urlencoded name or value ('+' is a space; a malformed escape stays as sent, as URLSearchParams leaves it). */
function formPart(text: string): string {
  if (text.indexOf('+') < 0 && text.indexOf('%') < 0) return text;
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return new URLSearchParams(`x=${text}`).get('x') ?? spaced;
  }
}

/** The name/value pairs of a form body, as URLSearchParams reads them; null past `max` pairs. */
export function formPairs(text: string, max: number): Array<[string, string]> | null {
  const pairs: Array<[string, string]> = [];
  const body = text.startsWith('?') ? text.slice(1) : text; // as URLSearchParams reads a string
  if (body === '') return pairs;
  for (const piece of body.split('&')) {
    if (piece === '') continue;
    if (pairs.length >= max) return null;
    const eq = piece.indexOf('=');
    pairs.push(eq < 0 ? [formPart(piece), ''] : [formPart(piece.slice(0, eq)), formPart(piece.slice(eq + 1))]);
  }
  return pairs;
}

function formBody(req: Request, res: Response, next: NextFunction): void {
  if (
    req.body !== undefined &&
    req.body !== null &&
    typeof req.body === 'object' &&
    Object.keys(req.body as object).length > 0
  )
    return next();
  const refuse = (description: string) => {
    if (res.headersSent) return;
    res
      .status(400)
      .set({ 'Cache-Control': 'no-store', Connection: 'close' })
      .json({ error: 'invalid_request', error_description: description });
  };
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > FORM_LIMIT_BYTES) return refuse('The request body is too large');
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  req.on('data', (chunk: Buffer) => {
    if (done) return;
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) {
      done = true;
      refuse('The request body is too large');
      return;
    }
    chunks.push(chunk);
  });
  req.on('error', () => {
    if (!done) {
      done = true;
      refuse('The request body could not be read');
    }
  });
  req.on('end', () => {
    if (done) return;
    done = true;
    const body: Record<string, string | string[]> = {};
    if (isFormContentType(req.headers['content-type'])) {
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      if (text.includes('\u0000')) return refuse('The request body must not contain NUL characters');
      const pairs = formPairs(text, FORM_PARAMETERS_MAX);
      if (pairs === null) return refuse('Too many parameters');
      for (const [name, value] of pairs) {
        const seen = body[name];
        body[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
      }
    }
    req.body = body;
    next();
  });
}

interface OAuthHttp {
  router: Router;
  /** The token endpoint for the direct lane (the hot path of apps). */
  laneRoutes: OAuthLaneRoute[];
}

export function oauthRouter(wiring: OAuthWiring): OAuthHttp {
  const { deps } = wiring;
  const router = Router();
  const proxies = trustedProxies(wiring.trustedProxies);
  const sessions = wiring.sessions ?? new BrowserSessions();
  /**
   * Per page request: the session it found or made, saved before the answer goes out (the
   * browser's next request may reach another node), and the answer held until then.
   */
  const sessionsOfRequests = new WeakMap<Response, BrowserSession>();
  const heldAnswers = new WeakMap<Response, (() => void) | null>();
  const answer = (res: Response, send: () => void) => {
    if (heldAnswers.has(res)) heldAnswers.set(res, send);
    else send();
  };
  const tokenEndpoint = createTokenEndpoint(deps);
  const form = express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: FORM_PARAMETERS_MAX });
  const jsonBody = express.json({ limit: FORM_LIMIT, strict: true });

  const issuerOf = (req: Request) => baseUrlOf(originRequestOf(req), proxies);
  const secure = (req: Request) => issuerOf(req).startsWith('https:');
  const addressOf = (req: Request) => normalizeIp(req.socket.remoteAddress) ?? 'unknown';

  const oauthRequestOf = (req: Request): OAuthRequest => ({
    method: req.method,
    headers: req.headers as Record<string, string | undefined>,
    body: typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {},
    remoteAddress: req.socket.remoteAddress ?? null,
    get issuer() {
      return issuerOf(req);
    },
  });
  const send = (res: Response, answer: OAuthAnswer) => {
    res.status(answer.status).set(answer.headers).json(answer.body);
  };

  /** A protocol endpoint: JSON in every outcome, a server_error for the unexpected. */
  const api =
    (handle: (request: OAuthRequest) => Promise<OAuthAnswer>): Handler =>
    async (req, res) => {
      try {
        send(res, await handle(oauthRequestOf(req)));
      } catch (err) {
        // a typed OAuth refusal is its answer; anything else is logged and a server_error
        send(
          res,
          answerOfError(err, (error) => wiring.log.error({ err: error, path: req.path }, 'oauth endpoint failed')),
        );
      }
    };

  const pageHeaders = (res: Response) =>
    res.set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
  const html = (res: Response, status: number, body: string) => {
    answer(res, () => pageHeaders(res).status(status).send(body));
  };
  const redirect = (res: Response, location: string, status = 303) => {
    answer(res, () => res.set('Cache-Control', 'no-store').redirect(status, location));
  };
  /** The service clock in milliseconds (session idleness and every limiter's window follow it). */
  const nowMs = () => Math.floor(deps.clock.nowUs() / 1000);
  /** The browser's session, made (and its cookie set) when it has none. */
  const sessionOf = async (req: Request, res: Response): Promise<BrowserSession> => {
    const held = sessionsOfRequests.get(res);
    if (held) return held;
    const now = nowMs();
    let session = await sessions.find(req.headers.cookie, now);
    if (!session) {
      session = await sessions.create(now);
      res.append('Set-Cookie', sessionCookie(session, secure(req)));
    }
    sessionsOfRequests.set(res, session);
    return session;
  };
  /** A page handler: an unexpected failure is an error page, never a stack. */
  const pageRoute =
    (handle: Handler): Handler =>
    async (req, res) => {
      heldAnswers.set(res, null);
      try {
        await handle(req, res);
        const session = sessionsOfRequests.get(res);
        if (session) await sessions.save(session);
        const send = heldAnswers.get(res);
        heldAnswers.delete(res);
        send?.();
      } catch (err) {
        heldAnswers.delete(res);
        wiring.log.error({ err, path: req.path }, 'oauth page failed');
        if (!res.headersSent) html(res, 500, errorPage('Something went wrong on our side. Please try again.'));
      }
    };
  /** A page route in the browser's session (found, or begun, before `handle` runs). */
  const sessionPage = (handle: (req: Request, res: Response, session: BrowserSession) => Promise<void>): Handler =>
    pageRoute(async (req, res) => handle(req, res, await sessionOf(req, res)));
  const formField = (req: Request, name: string): string => {
    const value = (req.body as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' ? value : '';
  };
  /** Where to go once signed in: back to the authorization, or a plain "signed in" page. */
  const resume = async (req: Request, res: Response, session: BrowserSession) => {
    const query = session.resume;
    session.resume = null;
    session.loggedInFor = query;
    if (query === null) {
      html(res, 200, signedInPage());
      return;
    }
    redirect(res, `/oauth/authorize?${query}`);
  };
  const signIn = async (req: Request, res: Response, session: BrowserSession, accountId: string) => {
    await sessions.signIn(session, accountId);
    res.append('Set-Cookie', sessionCookie(session, secure(req)));
  };

  router.get(
    '/oauth/authorize',
    pageRoute(async (req, res) => {
      const issuer = issuerOf(req);
      const validation = await validateAuthorization(req.query, deps, issuer);
      if (validation.kind === 'error_page') return html(res, 400, errorPage(validation.message));
      if (validation.kind === 'redirect') return redirect(res, validation.location, 302);
      const request = validation.request;
      const session = await sessionOf(req, res);
      const queryAt = req.originalUrl.indexOf('?');
      const query = queryAt >= 0 ? req.originalUrl.slice(queryAt + 1) : '';
      // prompt=login is satisfied by a login made for this very request (once)
      const loggedInForThis = session.loggedInFor === query;
      session.loggedInFor = null;
      const decision = await decide(request, session.account_id, deps, issuer, loggedInForThis);
      if (decision.kind === 'redirect') return redirect(res, decision.location, 302);
      if (decision.kind === 'login') {
        session.resume = query;
        if (request.prompt === 'login' && session.account_id !== null) await sessions.signOut(session);
        return redirect(res, '/oauth/login', 302);
      }
      const requestId = addPending(session, request);
      html(res, 200, consentPage(session.csrf, requestId, request.client.name, request.scopes));
    }),
  );

  router.get(
    '/oauth/login',
    sessionPage(async (req, res, session) => {
      const flash = session.flash;
      session.flash = null;
      html(res, 200, loginPage(session.csrf, flash ? { note: flash.note, email: flash.email } : {}));
    }),
  );

  router.post(
    '/oauth/login',
    form,
    sessionPage(async (req, res, session) => {
      if (!csrfMatches(session, formField(req, 'csrf')))
        return html(res, 403, loginPage(session.csrf, { error: 'The form expired. Please try again.' }));
      const email = formField(req, 'email').trim();
      const result = await logIn(
        { store: deps.store, members: wiring.members, accounts: deps.accounts, limiter: wiring.loginLimiter },
        email,
        formField(req, 'password'),
        addressOf(req),
        nowMs(),
      );
      if (!result.ok) {
        if ((result.delayMs ?? 0) > 0) await sleep(result.delayMs);
        const { refusal } = result;
        if (refusal.code === 'login_limited') {
          res.set('Retry-After', retryAfterS(result.retryAfterMs));
          return html(
            res,
            429,
            loginPage(session.csrf, { error: 'Too many failed attempts. Wait a while, then try again.', email }),
          );
        }
        if (refusal.code === 'account_inactive')
          return html(
            res,
            403,
            loginPage(session.csrf, {
              error: `This account is ${refusal.status === 'pending' ? 'pending approval' : refusal.status}.`,
              email,
            }),
          );
        return html(res, 401, loginPage(session.csrf, { error: 'Email or password is incorrect.', email }));
      }
      if (result.value.needs_totp) {
        session.totp_account_id = result.value.account_id;
        return redirect(res, '/oauth/login/totp');
      }
      await signIn(req, res, session, result.value.account_id);
      await resume(req, res, session);
    }),
  );

  router.get(
    '/oauth/login/totp',
    sessionPage(async (req, res, session) => {
      if (session.totp_account_id === null) return redirect(res, '/oauth/login');
      html(res, 200, totpPage(session.csrf));
    }),
  );

  router.post(
    '/oauth/login/totp',
    form,
    sessionPage(async (req, res, session) => {
      const accountId = session.totp_account_id;
      if (accountId === null) return redirect(res, '/oauth/login');
      if (!csrfMatches(session, formField(req, 'csrf')))
        return html(res, 403, totpPage(session.csrf, 'The form expired. Please try again.'));
      const result = await logInTotp(
        { store: deps.store, limiter: wiring.loginLimiter },
        accountId,
        formField(req, 'code'),
        deps.clock.nowUs(),
      );
      if (!result.ok && result.refusal.code === 'totp_limited') {
        session.totp_account_id = null;
        res.set('Retry-After', retryAfterS(result.retryAfterMs));
        return html(
          res,
          429,
          loginPage(session.csrf, { error: 'Too many wrong codes. Wait a while, then log in again.' }),
        );
      }
      if (!result.ok) {
        await sleep(result.delayMs ?? 0);
        return html(res, 401, totpPage(session.csrf, 'That code is not valid. Enter the current code from your app.'));
      }
      await signIn(req, res, session, accountId);
      await resume(req, res, session);
    }),
  );

  router.get(
    '/player/register',
    sessionPage(async (_req, res, session) => {
      html(res, 200, registerPage(session.csrf));
    }),
  );

  router.post(
    '/player/register',
    form,
    sessionPage(async (req, res, session) => {
      const values = {
        first_name: formField(req, 'first_name').trim(),
        last_name: formField(req, 'last_name').trim(),
        email: formField(req, 'email').trim(),
      };
      const refuse = (status: number, error: string) => html(res, status, registerPage(session.csrf, values, error));
      if (!csrfMatches(session, formField(req, 'csrf'))) return refuse(403, 'The form expired. Please try again.');
      const result = await signUp(
        {
          store: deps.store,
          accountsByEmail: wiring.members.accountsByEmail,
          limiter: wiring.signUps,
          openMember: wiring.openMember,
        },
        { ...values, password: formField(req, 'password') },
        addressOf(req),
        deps.clock.nowUs(),
      );
      if (!result.ok) {
        const { refusal } = result;
        if (refusal.code === 'invalid_input') return refuse(400, refusal.message);
        if (refusal.code === 'email_taken')
          return refuse(409, 'An account with this email already exists. Log in instead.');
        res.set('Retry-After', retryAfterS(result.retryAfterMs));
        return refuse(429, 'Too many sign-ups from this address. Wait a while, then try again.');
      }
      session.flash = { note: 'Your account is created. Log in to continue.', email: values.email };
      redirect(res, '/oauth/login');
    }),
  );

  router.post(
    '/oauth/consent',
    form,
    sessionPage(async (req, res, session) => {
      if (!csrfMatches(session, formField(req, 'csrf')))
        return html(res, 403, errorPage('The form expired. Start again from the application.'));
      const requestId = formField(req, 'request');
      const request: AuthorizationRequest | undefined = session.pending.get(requestId);
      if (!request)
        return html(
          res,
          400,
          errorPage('This authorization request is no longer pending. Start again from the application.'),
        );
      session.pending.delete(requestId);
      const issuer = issuerOf(req);
      if (session.account_id === null)
        return html(res, 401, errorPage('You are signed out. Start again from the application.'));
      const decision = formField(req, 'decision');
      if (decision === 'allow') return redirect(res, await allow(request, session.account_id, deps, issuer));
      return redirect(res, deny(request, issuer));
    }),
  );

  const registrations = wiring.registrations;
  const tokenHandler = api((request) => tokenEndpoint.handle(request));
  router.post('/oauth/token', formBody, tokenHandler);
  router.post(
    '/oauth/revoke',
    form,
    api((request) => revoke(request, deps)),
  );
  router.post(
    '/oauth/introspect',
    form,
    api((request) => introspect(request, deps)),
  );
  router.post(
    '/oauth/register',
    jsonBody,
    api((request) => register(request, deps, registrations)),
  );

  // Unparseable bodies on these paths: the RFC's JSON error (pages get an error page).
  router.use(['/oauth', '/player'], (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const status = typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : 500;
    if (status >= 500) wiring.log.error({ err, path: req.path }, 'oauth request failed');
    const code = status === 413 ? 'invalid_request' : status >= 500 ? 'server_error' : 'invalid_request';
    const description =
      status === 413
        ? 'The request body is too large'
        : status >= 500
          ? 'The request could not be completed'
          : 'The request body could not be parsed';
    if (req.path.startsWith('/register') && req.baseUrl === '/oauth' && code === 'invalid_request') {
      res
        .status(400)
        .set('Cache-Control', 'no-store')
        .json({ error: 'invalid_client_metadata', error_description: description });
      return;
    }
    res
      .status(status >= 500 ? 500 : 400)
      .set('Cache-Control', 'no-store')
      .json({ error: code, error_description: description });
  });
  return {
    router,
    laneRoutes: [{ method: 'POST', path: '/oauth/token', routerPath: '/oauth/token', chain: [formBody, tokenHandler] }],
  };
}
