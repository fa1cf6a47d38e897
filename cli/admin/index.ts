// `exchange admin …`: the operator CLI over /admin/v1 (docs/OPERATOR.md). Every command prints
// a readable table, or the raw JSON answer with --json; failures go to stderr with exit code 1.

import { defaultServiceUrl } from '../config.ts';
import { Argument, type Command, Option } from 'commander';
import { signRequest } from '../../commands/demo/signing.ts';
import { AdminApiError, AdminClient } from './client.ts';
import { print } from './format.ts';

interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

type Answer = Record<string, unknown>;

/** Runs one command against the admin API and prints its answer. */
async function execute(cmd: Command, call: (client: AdminClient) => Promise<Answer>): Promise<void> {
  const options = cmd.optsWithGlobals<GlobalOptions>();
  try {
    const client = await AdminClient.connect(options);
    print(await call(client), options.json === true);
  } catch (err) {
    const message = err instanceof AdminApiError || err instanceof Error ? err.message : String(err);
    console.error(`error: ${message}`);
    process.exitCode = 1;
  }
}

const number = (flag: string) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`${flag} must be a number`);
  return parsed;
};
const integer = (flag: string) => (value: string) => {
  if (!/^-?\d+$/.test(value)) throw new Error(`${flag} must be an integer`);
  return Number(value);
};
const bool = (flag: string) => (value: string) => {
  if (value !== 'true' && value !== 'false') throw new Error(`${flag} must be true or false`);
  return value === 'true';
};

/** Copies the options that were given into a request body, renamed from camelCase. */
function bodyOf(options: Record<string, unknown>, names: Record<string, string>): Answer {
  const body: Answer = {};
  for (const [option, field] of Object.entries(names)) if (options[option] !== undefined) body[field] = options[option];
  return body;
}

/** The action of a command whose argument is one id: `method` on `path` (its `:id` the id), the options in `fields` as the body. */
/** The action of a command that sends its options (named by `fields`) as the body of one request. */
function withBody(method: string, path: string, fields: Record<string, string>) {
  return (options: Answer, cmd: Command): Promise<void> =>
    execute(cmd, (c) => c.request(method, path, bodyOf(options, fields)));
}

function onId(method: string, path: string, fields?: Record<string, string>) {
  return (id: string, options: Answer, cmd: Command): Promise<void> =>
    execute(cmd, (c) =>
      c.request(
        method,
        path.replace(':id', () => encodeURIComponent(id)),
        fields && bodyOf(options, fields),
      ),
    );
}

/** The action of a command whose arguments are an id and one value: the value as body field `field`, beside the options in `fields`. */
function onIdWith(method: string, path: string, field: string, fields: Record<string, string> = {}) {
  return (id: string, value: string, options: Answer, cmd: Command): Promise<void> =>
    execute(cmd, (c) =>
      c.request(
        method,
        path.replace(':id', () => encodeURIComponent(id)),
        {
          [field]: value,
          ...bodyOf(options, fields),
        },
      ),
    );
}

const ACCOUNT_FIELDS = {
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  password: 'password',
  status: 'status',
  jurisdiction: 'jurisdiction',
  feeSchedule: 'fee_schedule',
  baseFeePercent: 'base_fee_percent',
  makerFactor: 'maker_factor',
  takerFactor: 'taker_factor',
  createdAt: 'created_at',
};

function withAccountOptions(command: Command): Command {
  return command
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name')
    .option('--email <email>', 'email (login)')
    .option('--password <password>', 'login password')
    .addOption(new Option('--status <status>', 'account status').choices(['active', 'pending', 'suspended']))
    .addOption(new Option('--jurisdiction <code>', 'jurisdiction').choices(['us', 'ca']))
    .addOption(
      new Option('--fee-schedule <schedule>', 'fee schedule').choices([
        'fixed_percent',
        'on_trade',
        'loyalty_tier_on_trade',
      ]),
    )
    .option('--base-fee-percent <percent>', 'fee percentage on fixed_percent', number('--base-fee-percent'))
    .option('--maker-factor <factor>', 'maker factor on on_trade schedules', number('--maker-factor'))
    .option('--taker-factor <factor>', 'taker factor on on_trade schedules', number('--taker-factor'))
    .option('--created-at <date-time>', 'creation time, for accounts that predate the leaderboard');
}

const CLIENT_FIELDS = {
  name: 'name',
  appType: 'app_type',
  scope: 'scopes',
  redirectUri: 'redirect_uris',
  ip: 'ip_allowlist',
  status: 'status',
};

function withClientOptions(command: Command, required: boolean): Command {
  const name = new Option('--name <name>', 'application name');
  const appType = new Option('--app-type <type>', 'web and server apps get a secret').choices([
    'web',
    'server',
    'browser',
    'native',
  ]);
  const scope = new Option('--scope <scopes...>', 'allowed scopes, e.g. market_data events orders.read');
  if (required) {
    name.makeOptionMandatory();
    appType.makeOptionMandatory();
    scope.makeOptionMandatory();
  }
  return command
    .addOption(name)
    .addOption(appType)
    .addOption(scope)
    .option('--redirect-uri <uris...>', 'registered callback URIs')
    .option('--ip <cidrs...>', 'IP allowlist (CIDRs)')
    .addOption(new Option('--status <status>', 'client status').choices(['active', 'suspended']));
}

/** `key=value` pairs; each value is JSON when it parses as JSON, else a plain string. */
function settingsPatch(pairs: string[]): Answer {
  const patch: Answer = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`expected key=value, got ${pair}`);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a bare string
    }
    patch[pair.slice(0, at)] = value;
  }
  return patch;
}

export function registerAdminCommands(program: Command): void {
  const admin = program
    .command('admin')
    .description('operate the exchange through the admin API (/admin/v1)')
    .option(
      '--url <url>',
      'operator listener URL (default $EXCHANGE_URL, else http://$ADMIN_HOST:$ADMIN_PORT, i.e. http://127.0.0.1:8082 with neither set); `sign` prints a URL on the public port ($EXCHANGE_URL, else http://localhost:$PORT)',
    )
    .option('--token <token>', 'admin token (default $ADMIN_TOKEN, else $DATA_DIR/admin-token)')
    .option('--json', 'print the raw JSON answer instead of a table');

  // accounts
  const accounts = admin.command('accounts').description('member accounts');
  withAccountOptions(accounts.command('create').description('open an account')).action(
    withBody('POST', '/accounts', ACCOUNT_FIELDS),
  );
  accounts.command('get').description('show an account').argument('<account_id>').action(onId('GET', '/accounts/:id'));
  withAccountOptions(
    accounts
      .command('update')
      .description('change an account (status, fees, names, password)')
      .argument('<account_id>'),
  ).action(onId('PATCH', '/accounts/:id', ACCOUNT_FIELDS));
  accounts
    .command('totp')
    .description('turn two-factor login on (prints the base32 secret and otpauth:// URL once)')
    .argument('<account_id>')
    .action(onId('POST', '/accounts/:id/totp'));
  accounts
    .command('grants')
    .description("list the member's OAuth grants, revoked ones included")
    .argument('<account_id>')
    .action(onId('GET', '/accounts/:id/grants'));

  admin
    .command('deposit')
    .description('deposit cash into an account')
    .argument('<account_id>')
    .argument('<amount>', 'dollars, e.g. 100.00')
    .action(onIdWith('POST', '/accounts/:id/deposits', 'amount'));
  admin
    .command('withdraw')
    .description('withdraw cash from an account')
    .argument('<account_id>')
    .argument('<amount>', 'dollars')
    .option('--method <method>', 'payment method')
    .option('--reason <reason>', 'reason')
    .addOption(new Option('--sub-method <sub>', 'Interac transfers').choices(['Send', 'Request']))
    .action(
      onIdWith('POST', '/accounts/:id/withdrawals', 'amount', {
        method: 'method',
        reason: 'reason',
        subMethod: 'sub_method',
      }),
    );
  admin
    .command('adjust')
    .description('adjust an account balance (signed amount)')
    .argument('<account_id>')
    .argument('<amount>', 'signed dollars, e.g. -5.00')
    .option('--reason <reason>', 'reason')
    .action(onIdWith('POST', '/accounts/:id/adjustments', 'amount', { reason: 'reason' }));

  // API keys and sessions
  const keys = admin.command('keys').description('API keys');
  keys
    .command('create')
    .description('issue an API key (a generated key pair prints the private key once)')
    .argument('<account_id>')
    .addOption(new Option('--scope <scope>', 'key scope').choices(['read_only', 'read_write']).default('read_write'))
    .option('--public-key <base64>', 'your own Ed25519 public key (base64 of 32 bytes)')
    .action(onId('POST', '/accounts/:id/api_keys', { scope: 'scope', publicKey: 'public_key' }));
  keys
    .command('revoke')
    .description('revoke an API key (stops working at once)')
    .argument('<key_id>')
    .action(onId('DELETE', '/api_keys/:id'));
  admin
    .command('sessions')
    .description('member sessions')
    .command('create')
    .description('issue a member session bearer token')
    .argument('<account_id>')
    .option('--expires-in <seconds>', 'lifetime in seconds', integer('--expires-in'))
    .action(onId('POST', '/accounts/:id/sessions', { expiresIn: 'expires_in' }));

  // events
  const events = admin.command('events').description('sports events');
  events
    .command('create')
    .description('schedule an event')
    .requiredOption('--title <title>', 'event title')
    .requiredOption('--start <date-time>', 'start time, e.g. 2030-01-01T18:00:00Z')
    .option('--short-title <title>', 'short title')
    .option('--event-type <type>', 'event type')
    .option('--sport <sport>', 'sport')
    .option('--competition <code>', 'competition')
    .option('--participant <names...>', 'participants')
    .action(
      withBody('POST', '/events', {
        title: 'title',
        start: 'start',
        shortTitle: 'short_title',
        eventType: 'event_type',
        sport: 'sport',
        competition: 'competition',
        participant: 'participants',
      }),
    );
  events
    .command('start')
    .description('mark an event in progress (good_till_start orders cancelled, in-play delays apply)')
    .argument('<event_id>')
    .action(onId('POST', '/events/:id/start'));

  // markets
  const markets = admin.command('markets').description('markets and their lifecycle');
  markets
    .command('create')
    .description('list a market on an event')
    .requiredOption('--event <event_id>', 'event')
    .requiredOption('--title <title>', 'market title')
    .option('--max-price <dollars>', 'settlement value of a winning contract (default 1.00)')
    .addOption(
      new Option('--status <status>', 'initial status (default scheduled)').choices([
        'scheduled',
        'pre_open',
        'open',
        'closed',
      ]),
    )
    .option('--trading <bool>', 'accepting orders (default true)', bool('--trading'))
    .option(
      '--in-play-delay-sec <seconds>',
      'order delay while the event is in progress',
      integer('--in-play-delay-sec'),
    )
    .option('--points-cost <n>', 'cost of each loyalty point', integer('--points-cost'))
    .option('--grouping-id <id>', 'mutually exclusive outcome set')
    .option('--grouping-name <name>', 'grouping name')
    .option('--symbol <symbol>', 'symbol')
    .option('--question <text>', 'question')
    .option('--rules <text>', 'rules')
    .option('--short-title <title>', 'short title')
    .option('--featured', 'feature the market')
    .action(
      withBody('POST', '/markets', {
        event: 'event_id',
        title: 'title',
        maxPrice: 'max_price',
        status: 'status',
        trading: 'trading',
        inPlayDelaySec: 'in_play_delay_sec',
        pointsCost: 'points_cost',
        groupingId: 'grouping_id',
        groupingName: 'grouping_name',
        symbol: 'symbol',
        question: 'question',
        rules: 'rules',
        shortTitle: 'short_title',
        featured: 'featured',
      }),
    );
  const transitions: Array<[string, string, Answer]> = [
    ['pre-open', 'accept resting limit orders before opening', { status: 'pre_open' }],
    ['open', 'open the market for trading', { status: 'open', trading: true }],
    ['halt', 'halt trading (status kept, renders as suspended)', { trading: false }],
    ['resume', 'resume trading after a halt', { trading: true }],
    ['close', 'close the market', { status: 'closed' }],
    ['cancel', 'cancel the market (its live orders are cancelled)', { status: 'cancelled' }],
  ];
  for (const [name, description, body] of transitions) {
    markets
      .command(name)
      .description(description)
      .argument('<market_id>')
      .action((id: string, _o: Answer, cmd: Command) =>
        execute(cmd, (c) => c.request('POST', `/markets/${encodeURIComponent(id)}/status`, body)),
      );
  }
  markets
    .command('status')
    .description('set status and/or trading explicitly')
    .argument('<market_id>')
    .addOption(
      new Option('--status <status>', 'status').choices(['scheduled', 'pre_open', 'open', 'closed', 'cancelled']),
    )
    .option('--trading <bool>', 'true or false', bool('--trading'))
    .action(onId('POST', '/markets/:id/status', { status: 'status', trading: 'trading' }));
  markets
    .command('result')
    .description('result the market and settle every position')
    .argument('<market_id>')
    .addArgument(new Argument('<result>', 'win, lose or void').choices(['win', 'lose', 'void']))
    .action(onIdWith('POST', '/markets/:id/result', 'result'));

  // fills
  admin
    .command('fills')
    .description('fills')
    .command('amend')
    .description('amend a fill (price and/or contracts)')
    .argument('<trade_id>')
    .option('--price <dollars>', 'new price')
    .option('--filled <contracts>', 'new contract count')
    .action(onId('POST', '/fills/:id/amend', { price: 'price', filled: 'filled' }));

  // OAuth clients
  const clients = admin.command('oauth-clients').alias('clients').description('OAuth clients');
  withClientOptions(
    clients.command('create').description('register an OAuth client (web and server apps get a secret, shown once)'),
    true,
  ).action(withBody('POST', '/oauth/clients', CLIENT_FIELDS));
  withClientOptions(
    clients.command('update').description('change an OAuth client').argument('<client_id>'),
    false,
  ).action(onId('PATCH', '/oauth/clients/:id', CLIENT_FIELDS));

  // settings
  const settings = admin.command('settings').description('operator settings');
  settings
    .command('get')
    .description('show the settings')
    .action((_o: Answer, cmd: Command) => execute(cmd, (c) => c.request('GET', '/settings')));
  settings
    .command('set')
    .description(
      'change settings: key=value pairs, values as JSON (e.g. leaderboard_enabled=false batch_limit=50 \'geofencing={"enforced":true}\')',
    )
    .argument('<pairs...>')
    .action((pairs: string[], _o: Answer, cmd: Command) =>
      execute(cmd, async (c) => c.request('PATCH', '/settings', settingsPatch(pairs))),
    );

  admin
    .command('leaderboard')
    .description('leaderboards')
    .command('refresh')
    .description('rebuild the leaderboard snapshots now')
    .action((_o: Answer, cmd: Command) => execute(cmd, (c) => c.request('POST', '/leaderboard/refresh')));

  // clock (service started with TEST_CLOCK=1)
  const clockCall = (c: AdminClient, method: string, body?: Answer) =>
    c.request(method, '/clock', body).catch((err: unknown) => {
      if (err instanceof AdminApiError && err.status === 404)
        throw new Error('404: the clock routes exist only when the service runs with TEST_CLOCK=1');
      throw err;
    });
  const clock = admin.command('clock').description('the service clock (only with TEST_CLOCK=1)');
  clock
    .command('get')
    .description('show the service time')
    .action((_o: Answer, cmd: Command) => execute(cmd, (c) => clockCall(c, 'GET')));
  clock
    .command('set')
    .description('set the service time')
    .argument('<date-time>')
    .action((at: string, _o: Answer, cmd: Command) => execute(cmd, (c) => clockCall(c, 'POST', { set: at })));
  clock
    .command('advance')
    .description('move the service time forward (negative moves it back)')
    .argument('<ms>', 'milliseconds')
    .action((ms: string, _o: Answer, cmd: Command) =>
      execute(cmd, async (c) => clockCall(c, 'POST', { advance_ms: number('<ms>')(ms) })),
    );

  // signing helper for API keys (no admin token needed)
  admin
    .command('sign')
    .description('print a ready-to-run curl for a signed /api/v1 request (timestamp: now; valid 30 s)')
    .requiredOption('--key-id <key_id>', 'API key id')
    .requiredOption('--private-key <base64>', 'base64 Ed25519 seed printed when the key was created')
    .argument('[method]', 'HTTP method', 'GET')
    .argument('[path]', 'path with query string', '/api/v1/account/balance')
    .option('--body <json>', 'request body')
    .action(
      (method: string, path: string, options: { keyId: string; privateKey: string; body?: string }, cmd: Command) => {
        const globals = cmd.optsWithGlobals<GlobalOptions>();
        const signed = signRequest({
          baseUrl: globals.url ?? defaultServiceUrl(),
          keyId: options.keyId,
          privateKeyBase64: options.privateKey,
          method,
          path,
          ...(options.body === undefined ? {} : { body: options.body }),
          nowMs: Date.now(),
        });
        if (globals.json)
          console.log(JSON.stringify({ method: signed.method, url: signed.url, headers: signed.headers }, null, 2));
        else console.log(signed.curl);
      },
    );
}
