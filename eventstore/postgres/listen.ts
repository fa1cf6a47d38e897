// LISTEN on one channel over a connection of its own, connected again after it fails: what a
// process needs to hear another process's NOTIFY. A notification sent while the connection was
// down is lost, so `onConnect` runs after every (re)connection: the caller reads again what it
// may have missed, or forgets what it can no longer trust.

import pg from 'pg';

/** Pause before connecting again after the listening connection failed. */
const LISTEN_RECONNECT_DELAY_MS = 1_000;

export interface Listening {
  stop(): Promise<void>;
}

interface ListenOptions {
  connectionString: string;
  channel: string;
  applicationName?: string;
  onNotify(payload: string): void;
  /** After each successful LISTEN, the first included. */
  onConnect?(): void;
  /** The connection failed (it is made again after a pause). */
  onError?(error: unknown): void;
}

export function listen(options: ListenOptions): Listening {
  let client: pg.Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const retry = (error: unknown) => {
    if (stopped) return;
    options.onError?.(error);
    const failed = client;
    client = undefined;
    failed?.removeAllListeners();
    failed?.on('error', () => undefined);
    void failed?.end().catch(() => undefined);
    timer ??= setTimeout(() => {
      timer = undefined;
      void connect();
    }, LISTEN_RECONNECT_DELAY_MS);
    timer.unref();
  };

  const connect = async () => {
    if (stopped) return;
    const next = new pg.Client({
      connectionString: options.connectionString,
      ...(options.applicationName ? { application_name: options.applicationName } : {}),
    });
    client = next;
    next.on('error', retry);
    next.on('end', () => {
      if (client === next) retry(new Error('the listening connection ended'));
    });
    next.on('notification', (message) => {
      if (message.channel === options.channel) options.onNotify(message.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${options.channel.replaceAll('"', '""')}"`);
    } catch (error) {
      if (client === next) retry(error);
      return;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    options.onConnect?.();
  };

  void connect();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const current = client;
      client = undefined;
      current?.removeAllListeners();
      current?.on('error', () => undefined);
      await current?.end().catch(() => undefined);
    },
  };
}
