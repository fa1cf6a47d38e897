// The CLI's HTTP client for /admin/v1: base URL and admin token resolved once, JSON in and out,
// non-2xx answers turned into an error that carries the status and the service's message.

import { readStoredAdminToken } from '../../api/admin/token.ts';
import { defaultServiceUrl } from '../config.ts';

const REQUEST_TIMEOUT_MS = 30_000;

interface ConnectionOptions {
  url?: string;
  token?: string;
  dataDir?: string;
}

export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'AdminApiError';
  }
}

export class AdminClient {
  private constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** --url / EXCHANGE_URL / http://$ADMIN_HOST:$ADMIN_PORT (127.0.0.1:8082); --token / ADMIN_TOKEN / DATA_DIR/admin-token. */
  static async connect(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): Promise<AdminClient> {
    const url = (options.url ?? defaultServiceUrl(env, true)).replace(/\/+$/, '');
    const dataDir = options.dataDir ?? env.DATA_DIR ?? './data';
    const token = options.token ?? (env.ADMIN_TOKEN || undefined) ?? (await readStoredAdminToken(dataDir));
    if (token === undefined) {
      throw new Error(
        `no admin token: pass --token, set ADMIN_TOKEN, or run where ${dataDir}/admin-token exists (DATA_DIR)`,
      );
    }
    return new AdminClient(url, token);
  }

  async request(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const init: RequestInit = {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: 'application/json',
        'user-agent': 'exchange-cli',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/admin/v1${path}`, init);
    } catch (err) {
      throw new Error(`cannot reach ${this.baseUrl}: ${(err as Error).message}`, { cause: err });
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = { error: text };
    }
    if (!response.ok) {
      const message = (parsed as { error?: unknown })?.error;
      throw new AdminApiError(
        response.status,
        `${response.status} ${typeof message === 'string' ? message : response.statusText}`,
        parsed,
      );
    }
    return parsed as Record<string, unknown>;
  }
}
