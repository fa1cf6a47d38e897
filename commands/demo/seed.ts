// DEMO=1: at first start, seed an exchange that looks alive — sports events (some started),
// markets in several statuses, two market makers quoting both sides, some trades, and a demo
// member whose read-write API key (private key printed once) comes with a ready signed request.
// Everything goes through the same engine inputs and commands the operator API uses; each step is
// reported through an optional progress port (the composition root draws it on a terminal).

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { MarketFields, OrderRequest, SportEventFields } from '../../domain/engine/inputs.ts';
import { APP_SCOPES, MEMBER_SCOPES } from '../../domain/auth/scopes.ts';
import type { MarketStatus } from '../../domain/views.ts';
import { WrongExpectedRevision } from '../../eventstore/port.ts';
import { deposit, openAccount, type OpenedAccount } from '../accounts/accounts.ts';
import { valueOrThrow } from '../result.ts';
import { submitOrThrow } from '../operatorInput.ts';
import type { AppContext } from '../context.ts';
import { issueApiKey, type IssuedApiKey } from '../credentials/apiKeys.ts';
import { registerClient } from '../oauthClients/commands.ts';
import { signRequest } from './signing.ts';

export const DEMO_STREAM = 'demo-seed';
export const DEMO_HINT =
  'Tip: start with DEMO=1 (e.g. `DEMO=1 npm start`) to seed demo markets, market makers and a demo API key on the first start.';

const HOUR_US = 3_600_000_000;
const DEMO_EMAIL = 'demo@example.com';
const DEMO_REDIRECT_URI = 'http://127.0.0.1:8976/callback';
/** Every scope but accepting terms for the member. */
const DEMO_CLIENT_SCOPES = [...MEMBER_SCOPES.filter((scope) => scope !== 'terms.write'), ...APP_SCOPES];

/** The demo OAuth client (a web app allowed from this machine, so orders.write counts) and a ready authorize URL. */
async function seedDemoOAuthClient(ctx: AppContext, baseUrl: string) {
  const registered = valueOrThrow(
    await registerClient(
      ctx.store,
      {
        name: 'Demo app',
        app_type: 'web',
        redirect_uris: [DEMO_REDIRECT_URI],
        scopes: DEMO_CLIENT_SCOPES,
        ip_allowlist: ['127.0.0.1/32', '::1/128'],
      },
      { nowUs: ctx.clock.nowUs(), registeredBy: 'admin' },
    ),
  );
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: registered.client.client_id,
    redirect_uri: DEMO_REDIRECT_URI,
    scope: 'profile.read balance.read orders.read',
    state: randomBytes(8).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  return {
    clientId: registered.client.client_id,
    secret: registered.client_secret ?? '',
    verifier,
    authorizeUrl: `${baseUrl}/oauth/authorize?${params.toString()}`,
  };
}
const MARKET_MAKER_FUNDS = '100000.00';
const DEMO_MEMBER_FUNDS = '1000.00';

interface DemoMarket {
  title: string;
  status: MarketStatus;
  /** Applied after the quotes: halt, or a result that settles the positions. */
  then?: 'halt' | { result: 'win' | 'lose' | 'void' };
  quotes: boolean;
  trades: boolean;
  in_play_delay_sec?: number;
}

interface DemoEvent {
  title: string;
  short_title: string;
  sport: string;
  competition: string;
  participants: string[];
  start_offset_us: number; // from now
  started: boolean;
  markets: DemoMarket[];
}

const DEMO_EVENTS: DemoEvent[] = [
  {
    title: 'Boston Celtics at Los Angeles Lakers',
    short_title: 'BOS @ LAL',
    sport: 'basketball',
    competition: 'NBA',
    participants: ['Boston Celtics', 'Los Angeles Lakers'],
    start_offset_us: 3 * HOUR_US,
    started: false,
    markets: [
      { title: 'Los Angeles Lakers to win', status: 'open', quotes: true, trades: true },
      { title: 'Total points over 221.5', status: 'pre_open', quotes: true, trades: false },
    ],
  },
  {
    title: 'Arsenal v Chelsea',
    short_title: 'ARS v CHE',
    sport: 'soccer',
    competition: 'EPL',
    participants: ['Arsenal', 'Chelsea'],
    start_offset_us: -HOUR_US / 2,
    started: true,
    markets: [
      { title: 'Arsenal to win', status: 'open', quotes: true, trades: true, in_play_delay_sec: 3 },
      { title: 'Over 2.5 goals', status: 'open', quotes: true, trades: true, then: 'halt' },
    ],
  },
  {
    title: 'New York Yankees at Boston Red Sox',
    short_title: 'NYY @ BOS',
    sport: 'baseball',
    competition: 'MLB',
    participants: ['New York Yankees', 'Boston Red Sox'],
    start_offset_us: 26 * HOUR_US,
    started: false,
    markets: [{ title: 'New York Yankees to win', status: 'scheduled', quotes: false, trades: false }],
  },
  {
    title: 'Buffalo Bills at Kansas City Chiefs',
    short_title: 'BUF @ KC',
    sport: 'football',
    competition: 'NFL',
    participants: ['Buffalo Bills', 'Kansas City Chiefs'],
    start_offset_us: -20 * HOUR_US,
    started: true,
    markets: [
      { title: 'Kansas City Chiefs to win', status: 'open', quotes: false, trades: true, then: { result: 'win' } },
    ],
  },
];

/** Quote ladders around a mid price, in cents: bids below, offers above. */
const BID_PRICES = ['0.44', '0.42', '0.40'];
const OFFER_PRICES = ['0.48', '0.50', '0.53'];
const QUOTE_SIZES = ['150', '300', '500'];

function order(marketId: string, action: 'buy' | 'sell', price: string, quantity: string): OrderRequest {
  return {
    order_id: randomUUID(),
    market_id: marketId,
    action,
    order_type: 'limit',
    price,
    quantity,
    client_order_id: null,
    device_id: 'demo-seed',
    ip_address: null,
    expiration: null,
    expiration_time: null,
    cancel_on_disconnect: false,
  };
}

interface DemoSeedResult {
  seeded: boolean;
  member_account_id?: string;
  key_id?: string;
}

/** Seeds once per data directory (a marker stream records it); later starts do nothing. */
export async function seedDemo(ctx: AppContext, options: DemoOptions = {}): Promise<void> {
  await seedDemoOnce(ctx, options);
}

/** How far seeding is, for whoever shows it (the composition root draws it on a terminal). */
interface SeedProgress {
  /** `done` of the total steps (engine inputs and commands) so far. */
  update(done: number): void;
  /** Seeding is over (called once, before the banner is printed, also when seeding fails). */
  finish(): void;
}

interface DemoOptions {
  /** Where the service listens, for the printed request (default http://127.0.0.1:$PORT). */
  baseUrl?: string;
  /** Where the banner goes (default standard output). */
  out?: (text: string) => void;
  /** Called once seeding starts, with the number of steps it will take (default: no progress shown). */
  progress?: (totalSteps: number) => SeedProgress;
}

/** The steps seeding takes: each account opened or funded, engine input, API key and OAuth client. */
export function demoSeedSteps(): number {
  let steps = 2 * 2; // two market makers, each opened and funded
  for (const demo of DEMO_EVENTS) {
    steps += 1 + (demo.started ? 1 : 0);
    for (const spec of demo.markets) {
      steps +=
        1 + (spec.trades ? 4 : 0) + (spec.quotes ? 2 * BID_PRICES.length : 0) + (spec.then === undefined ? 0 : 1);
    }
  }
  return steps + 3 + 1; // the demo member opened, funded and given a key; the OAuth client
}

export async function seedDemoOnce(ctx: AppContext, options: DemoOptions = {}): Promise<DemoSeedResult> {
  const out = options.out ?? ((text: string) => void process.stdout.write(text));
  try {
    await ctx.store.append(
      DEMO_STREAM,
      [{ id: randomUUID(), type: 'DemoSeedStarted', data: { at_us: ctx.clock.nowUs() } }],
      'no_stream',
    );
  } catch (err) {
    if (err instanceof WrongExpectedRevision) {
      const marks = await ctx.store.readStream(DEMO_STREAM);
      if (marks.some((mark) => mark.type === 'DemoSeeded')) ctx.logger.info('demo data already seeded; skipping');
      else
        ctx.logger.warn(
          'demo seeding was interrupted at an earlier start; not repeating it (start on a fresh DATA_DIR to seed again)',
        );
      return { seeded: false };
    }
    throw err;
  }
  const totalSteps = demoSeedSteps();
  const progress = options.progress?.(totalSteps);
  let done = 0;
  const step = async <T>(work: Promise<T>): Promise<T> => {
    const result = await work;
    done += 1;
    progress?.update(done);
    return result;
  };
  let seeded: Seeded;
  try {
    seeded = await seedAll(ctx, options, step);
  } finally {
    progress?.finish();
  }
  const { member, key, demoPassword, marketsListed, tradesMade, quotedMarkets, oauth, baseUrl } = seeded;
  const signed = signRequest({
    baseUrl,
    keyId: key.key_id,
    privateKeyBase64: key.private_key ?? '',
    method: 'GET',
    path: '/api/v1/account/balance',
    nowMs: Math.floor(ctx.clock.nowUs() / 1000),
  });
  ctx.logger.info(
    { member_account_id: member.account.account_id, key_id: key.key_id, markets: marketsListed, trades: tradesMade },
    'demo data seeded; the demo API key and its private key are printed once on the terminal, never logged',
  );
  out(
    [
      '',
      '=== Demo exchange seeded ===',
      `Demo member account: ${member.account.account_id} (balance ${DEMO_MEMBER_FUNDS})`,
      `API key id (X-SVC-ACCESS-KEY): ${key.key_id}`,
      `Private key (base64 Ed25519 seed) — shown ONCE, keep it: ${key.private_key ?? '(none)'}`,
      '',
      'A signed request (valid for 30 seconds from now):',
      `  ${signed.curl}`,
      '',
      'A fresh one at any time:',
      `  npx exchange admin sign --key-id ${key.key_id} --private-key '${key.private_key ?? ''}' GET /api/v1/markets`,
      '',
      'OAuth: a demo web app (client_secret_basic) that may act for members from this machine:',
      `  client_id ${oauth.clientId}, client_secret (shown ONCE) ${oauth.secret}`,
      'An application token (client_credentials):',
      `  curl -s -u '${oauth.clientId}:${oauth.secret}' -d grant_type=client_credentials ${baseUrl}/oauth/token`,
      `The code flow with PKCE: open this in a browser and log in as ${DEMO_EMAIL} / ${demoPassword}:`,
      `  ${oauth.authorizeUrl}`,
      'then copy `code` from the address the browser lands on (nothing listens there) and, within 60 seconds:',
      `  curl -s -u '${oauth.clientId}:${oauth.secret}' -d grant_type=authorization_code -d redirect_uri=${DEMO_REDIRECT_URI} -d code_verifier=${oauth.verifier} -d code=PASTE_CODE ${baseUrl}/oauth/token`,
      '',
      ...(quotedMarkets[0]
        ? [
            'Watch an order book move (the demo market makers keep quoting and trading):',
            `  npx exchange watch orderbook --market-id ${quotedMarkets[0]} --key-id ${key.key_id} --private-key '${key.private_key ?? ''}'`,
            '',
          ]
        : []),
    ].join('\n'),
  );
  return { seeded: true, member_account_id: member.account.account_id, key_id: key.key_id };
}

type Step = <T>(work: Promise<T>) => Promise<T>;
interface Seeded {
  member: OpenedAccount;
  key: IssuedApiKey;
  demoPassword: string;
  marketsListed: number;
  tradesMade: number;
  quotedMarkets: string[];
  oauth: Awaited<ReturnType<typeof seedDemoOAuthClient>>;
  baseUrl: string;
}

/** Every seeding step, each counted through `step`. */
async function seedAll(ctx: AppContext, options: DemoOptions, step: Step): Promise<Seeded> {
  const nowUs = ctx.clock.nowUs();

  const makers = [];
  for (const name of ['Alpha', 'Beta']) {
    const opened = valueOrThrow(
      await step(
        openAccount(ctx, {
          first_name: 'Market Maker',
          last_name: name,
          fee_schedule: 'on_trade',
          maker_factor: 0,
          taker_factor: 0.01,
        }),
      ),
    );
    valueOrThrow(await step(deposit(ctx, opened.account.account_id, MARKET_MAKER_FUNDS)));
    makers.push(opened.account.account_id);
  }
  const [alpha, beta] = makers as [string, string];

  let marketsListed = 0;
  let tradesMade = 0;
  const quotedMarkets: string[] = [];
  for (const demo of DEMO_EVENTS) {
    const event: SportEventFields = {
      event_id: randomUUID(),
      title: demo.title,
      start: nowUs + demo.start_offset_us,
      short_title: demo.short_title,
      event_type: 'match',
      sport: demo.sport,
      competition: demo.competition,
      participants: demo.participants,
    };
    await step(submitOrThrow(ctx, { kind: 'ScheduleSportEvent', event }));
    const delayedMarkets: string[] = [];
    for (const spec of demo.markets) {
      const marketId = randomUUID();
      const market: MarketFields = {
        market_id: marketId,
        event_id: event.event_id,
        title: spec.title,
        max_price: '1.00',
        status: spec.status,
        trading: true,
        in_play_delay_sec: spec.in_play_delay_sec ?? 0,
        points_cost: 10,
        grouping_id: marketId,
        grouping_name: null,
        symbol: null,
        question: `${spec.title}?`,
        rules: 'Settles at 1.00 per contract if the outcome happens, else 0.',
        short_title: null,
        featured: marketsListed === 0,
      };
      await step(submitOrThrow(ctx, { kind: 'ListMarket', market }));
      marketsListed += 1;
      if (spec.trades) {
        // Beta lifts Alpha's offer, then Alpha hits Beta's bid: two trades at different prices.
        await step(
          submitOrThrow(ctx, { kind: 'PlaceOrder', account_id: alpha, order: order(marketId, 'sell', '0.46', '40') }),
        );
        await step(
          submitOrThrow(ctx, { kind: 'PlaceOrder', account_id: beta, order: order(marketId, 'buy', '0.46', '40') }),
        );
        await step(
          submitOrThrow(ctx, { kind: 'PlaceOrder', account_id: beta, order: order(marketId, 'buy', '0.45', '25') }),
        );
        await step(
          submitOrThrow(ctx, { kind: 'PlaceOrder', account_id: alpha, order: order(marketId, 'sell', '0.45', '25') }),
        );
        tradesMade += 2;
      }
      if (spec.quotes) {
        for (let level = 0; level < BID_PRICES.length; level += 1) {
          const size = QUOTE_SIZES[level] as string;
          await step(
            submitOrThrow(ctx, {
              kind: 'PlaceOrder',
              account_id: level % 2 === 0 ? alpha : beta,
              order: order(marketId, 'buy', BID_PRICES[level] as string, size),
            }),
          );
          await step(
            submitOrThrow(ctx, {
              kind: 'PlaceOrder',
              account_id: level % 2 === 0 ? beta : alpha,
              order: order(marketId, 'sell', OFFER_PRICES[level] as string, size),
            }),
          );
        }
      }
      if (spec.quotes && spec.then === undefined && spec.status === 'open') quotedMarkets.push(marketId);
      if (spec.then === 'halt')
        await step(submitOrThrow(ctx, { kind: 'ChangeMarketStatus', market_id: marketId, trading: false }));
      else if (spec.then !== undefined) delayedMarkets.push(`${marketId}:${spec.then.result}`);
    }
    if (demo.started) await step(submitOrThrow(ctx, { kind: 'StartSportEvent', event_id: event.event_id }));
    for (const entry of delayedMarkets) {
      const [marketId, result] = entry.split(':') as [string, 'win' | 'lose' | 'void'];
      await step(submitOrThrow(ctx, { kind: 'ResultMarket', market_id: marketId, result }));
    }
  }

  const demoPassword = `demo-${randomBytes(9).toString('base64url')}`;
  const member = valueOrThrow(
    await step(openAccount(ctx, { first_name: 'Demo', last_name: 'Trader', email: DEMO_EMAIL }, demoPassword)),
  );
  valueOrThrow(await step(deposit(ctx, member.account.account_id, DEMO_MEMBER_FUNDS)));
  const key = valueOrThrow(
    await step(issueApiKey(ctx, { account_id: member.account.account_id, scope: 'read_write' })),
  );
  await ctx.store.append(
    DEMO_STREAM,
    [
      {
        id: randomUUID(),
        type: 'DemoSeeded',
        data: {
          member_account_id: member.account.account_id,
          key_id: key.key_id,
          market_makers: makers,
          markets: marketsListed,
          trades: tradesMade,
          quoted_markets: quotedMarkets,
        },
      },
    ],
    'any',
  );

  const baseUrl = options.baseUrl ?? `http://127.0.0.1:${ctx.config.port}`;
  const oauth = await step(seedDemoOAuthClient(ctx, baseUrl));
  return { member, key, demoPassword, marketsListed, tradesMade, quotedMarkets, oauth, baseUrl };
}
