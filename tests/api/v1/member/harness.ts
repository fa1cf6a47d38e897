// The member routes over real HTTP in the whole service (startWholeService: the composition
// root's buildService), with real authentication: a request's `Who` names the account and the
// kind of credential, and the harness presents a real one, issued through the credential
// commands (a session token, or a request signed with an API key of the scope asked). The
// history the tests need at given times (accounts, markets, trades, results) is made by the
// tests' own engine (Desk), journaled as engine records in the service's event store, and
// awaited through the service's projection worker.

import type { AppContext, ControllableClock } from '../../../../commands/context.ts';
import { issueApiKey } from '../../../../commands/credentials/apiKeys.ts';
import { issueSession } from '../../../../commands/credentials/sessions.ts';
import type { EngineEvent } from '../../../../domain/engine/events.ts';
import type { EngineInput } from '../../../../domain/engine/inputs.ts';
import type { EventStore } from '../../../../eventstore/port.ts';
import { Desk } from '../../../projections/core/fixtures.ts';
import { signedHeaders, startWholeService, type ApiKey } from '../harness.ts';
import { answerOf } from '../../../support/answer.ts';
import { valueOrThrow } from '../../../../commands/result.ts';

export interface Who {
  account_id: string;
  /** A session token (bearer, the default) or a request signed with an API key. */
  method?: 'api_key' | 'bearer';
  key_scope?: 'read_only' | 'read_write';
}

/** How long the harness waits for the service's read models to pass a journaled record. */
const READ_MODELS_WAIT_MS = 30_000;

export interface MemberService {
  ctx: AppContext;
  store: EventStore;
  clock: ControllableClock;
  /**
   * Runs inputs through an engine of the test's own (every one must be accepted), journals them
   * as one record in the service's event store (as the engine would), and waits until the
   * service's read models have it. Answers the facts the inputs produced.
   */
  engineStep(inputs: EngineInput | EngineInput[], nowUs?: number): Promise<EngineEvent[]>;
  call(
    method: string,
    path: string,
    who: Who | null,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  /** The id of the API key a `Who` with method api_key signs with (issued on first use). */
  keyIdOf(who: Who): Promise<string>;
  stop(): Promise<void>;
}

export async function startMemberService(options: { jurisdiction?: 'us' | 'ca' } = {}): Promise<MemberService> {
  // the tests rebuild the leaderboards themselves, at the times they choose
  const whole = await startWholeService(options.jurisdiction ? { JURISDICTION: options.jurisdiction } : {}, {
    leaderboardScheduler: false,
  });
  const { ctx } = whole;
  const clock = ctx.testClock;
  if (!clock) throw new Error('the member tests need the test clock');
  const desk = new Desk();
  const keys = new Map<string, Promise<ApiKey>>();

  /** One key per account and scope. */
  const keyOf = (who: Who): Promise<ApiKey> => {
    const scope = who.key_scope ?? 'read_write';
    const label = `${who.account_id} ${scope}`;
    let key = keys.get(label);
    if (!key) {
      key = issueApiKey(ctx, { account_id: who.account_id, scope }).then(valueOrThrow) as Promise<ApiKey>;
      keys.set(label, key);
    }
    return key;
  };

  /** A session is issued for every request: tests move the service clock past a session's lifetime. */
  const credentialHeaders = async (who: Who, method: string, path: string): Promise<Record<string, string>> => {
    if (who.method === 'api_key') return signedHeaders(await keyOf(who), method, path, clock.nowUs() / 1000);
    const { token } = valueOrThrow(await issueSession(ctx, { account_id: who.account_id }));
    return { authorization: `Bearer ${token}` };
  };

  return {
    ctx,
    store: ctx.store,
    clock,
    async engineStep(inputs, nowUs) {
      const record = desk.record(inputs, { nowUs: nowUs ?? clock.nowUs() });
      const { position } = await ctx.store.append(
        'engine',
        [{ id: record.id, type: record.type, data: record.data }],
        'any',
      );
      await whole.service.runner.waitFor(position, READ_MODELS_WAIT_MS);
      return desk.facts;
    },
    async call(method, path, who, body, headers = {}) {
      const credentials = who ? await credentialHeaders(who, method, path) : {};
      const init: RequestInit = { method, headers: { ...headers, 'content-type': 'application/json', ...credentials } };
      if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
      return answerOf(await fetch(`${whole.base}${path}`, init));
    },
    async keyIdOf(who) {
      return (await keyOf(who)).key_id;
    },
    stop: () => whole.stop(),
  };
}
