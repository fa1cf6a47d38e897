// Forwarding of engine inputs from a follower to the writer, over HTTP/2 (node:http2, cleartext
// h2c: one multiplexed connection per writer). It forwards at the engine's gateway, not HTTP
// requests: a follower's `EngineGateway.submit` sends the engine input (the command already
// checked credentials, input, rate limits and idempotency on the node that received it) and gets
// the engine's reply back whole: outcome facts, per-leg orders, the operator's answer, the
// refusal, the journal position holding the step. The follower's route renders that reply with
// the same code the writer's would, so the answer is the writer's, byte for byte.
//
// The writer's listener (on NODE_URL's port; by default a free port on 127.0.0.1) takes only
// requests carrying a secret derived from the shared ADMIN_TOKEN (HMAC-SHA256 of a fixed label):
// without the token nothing reaches the engine through it.
//
// POST /engine/v1/submit, JSON body {"input": EngineInput}; answers:
//   200 {"reply": EngineReply with "position" as a decimal string}
//   401 the secret is missing or wrong     421 this node is not the writer (nothing was decided)
//   503 {"error":"engine_busy"|"engine_stopped", ...}    500 {"error":"engine_failed","message"}

import { createHmac, timingSafeEqual } from 'node:crypto';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { EngineInput } from '../../domain/engine/inputs.ts';
import { EngineBusyError, EngineStoppedError, type EngineReply } from '../../engine/gateway.ts';
import { httpErrorOfThrown } from '../../api/errors.ts';

export const FORWARD_PATH = '/engine/v1/submit';
/** A forwarded input's body, at most, in bytes (an order batch's JSON is well under it). */
export const FORWARD_BODY_BYTES_MAX = 4 * 1024 * 1024;
/** A forwarded input the writer has not answered in this long is answered 503 here, in milliseconds. */
export const FORWARD_TIMEOUT_MS = 10_000;
/** Connecting to the writer may take this long, in milliseconds, before the input is answered 503. */
export const FORWARD_CONNECT_TIMEOUT_MS = 2_000;
const SECRET_LABEL = 'exchange node forwarding v1';
/** Why a forwarded write fails when the writer refuses this node's secret. */
export const FORWARDING_REFUSED =
  "the writer refused this node's forwarding secret: every node must be started with the same ADMIN_TOKEN";

/** The forwarding secret: HMAC-SHA256 of a fixed label under ADMIN_TOKEN, hex. */
export function forwardingSecret(adminToken: string): string {
  return createHmac('sha256', adminToken).update(SECRET_LABEL).digest('hex');
}

/** The writer moved: this node is not it (nothing was decided; the sender asks the lease again). */
export class NotTheWriter extends Error {
  constructor() {
    super('this node is not the writer');
    this.name = 'NotTheWriter';
  }
}

type WireReply = Omit<EngineReply, 'position'> & { position: string };

export interface ForwardingServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The writer side: answers forwarded inputs with `submit` (the node's own engine; it throws
 * NotTheWriter when the node is not the writer).
 */
export async function startForwardingServer(options: {
  host: string;
  port: number;
  adminToken: string;
  submit: (input: EngineInput) => Promise<EngineReply>;
  logger: Logger;
}): Promise<ForwardingServer> {
  const expected = Buffer.from(`Bearer ${forwardingSecret(options.adminToken)}`);
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const answer = (status: number, body: unknown): void => {
      if (stream.destroyed || stream.closed) return;
      stream.respond({ ':status': status, 'content-type': 'application/json' });
      stream.end(JSON.stringify(body));
    };
    stream.on('error', () => undefined);
    const presented = Buffer.from(String(headers.authorization ?? ''));
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      answer(401, { error: 'unauthorized' });
      stream.resume();
      return;
    }
    if (headers[':method'] !== 'POST' || headers[':path'] !== FORWARD_PATH) {
      answer(404, { error: 'not found' });
      stream.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > FORWARD_BODY_BYTES_MAX) {
        answer(413, { error: 'body too large' });
        stream.close(http2.constants.NGHTTP2_CANCEL);
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => {
      if (size > FORWARD_BODY_BYTES_MAX) return;
      let input: EngineInput;
      try {
        input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: EngineInput }).input;
      } catch {
        answer(400, { error: 'body is not JSON' });
        return;
      }
      options.submit(input).then(
        (reply) => answer(200, { reply: { ...reply, position: String(reply.position) } satisfies WireReply }),
        (error: unknown) => {
          if (error instanceof NotTheWriter) answer(421, { error: 'not_writer' });
          else if (error instanceof EngineBusyError)
            answer(503, { error: 'engine_busy', queue_inputs_max: error.queueInputsMax });
          else if (error instanceof EngineStoppedError) answer(503, { error: 'engine_stopped', reason: error.reason });
          // the writer's own REST answer to a store it cannot reach is 503: the follower answers the same
          else if (httpErrorOfThrown(error)?.status === 503)
            answer(503, { error: 'engine_stopped', reason: `the writer's store failed (${String(error)})` });
          else {
            options.logger.error({ err: error }, 'forwarded engine input failed');
            answer(500, { error: 'engine_failed', message: error instanceof Error ? error.message : String(error) });
          }
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      await closed;
    },
  };
}

/** The follower side: one HTTP/2 session to the current writer, opened on first use and again after it ends. */
export class ForwardingClient {
  private session: http2.ClientHttp2Session | undefined;
  private sessionUrl: string | undefined;
  private readonly authorization: string;

  constructor(adminToken: string) {
    this.authorization = `Bearer ${forwardingSecret(adminToken)}`;
  }

  /**
   * Sends `input` to the writer at `url` and answers its reply; throws NotTheWriter (nothing
   * decided), EngineBusyError and EngineStoppedError as the writer's engine did, EngineStoppedError
   * when the writer cannot be reached or does not answer in time, or the writer's engine error.
   */
  async submit(url: string, input: EngineInput): Promise<EngineReply> {
    const session = this.sessionFor(url);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = session.request({
          ':method': 'POST',
          ':path': FORWARD_PATH,
          'content-type': 'application/json',
          authorization: this.authorization,
        });
      } catch (error) {
        this.drop(session);
        reject(new EngineStoppedError(`the writer cannot be reached (${(error as Error).message})`));
        return;
      }
      stream.setTimeout(FORWARD_TIMEOUT_MS, () => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        reject(new EngineStoppedError(`the writer did not answer within ${FORWARD_TIMEOUT_MS} ms`));
      });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (headers) => {
        status = Number(headers[':status']);
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }));
      stream.on('error', (error) => {
        this.drop(session);
        reject(new EngineStoppedError(`the writer cannot be reached (${error.message})`));
      });
      stream.on('close', () => reject(new EngineStoppedError('the writer closed the request before answering')));
      stream.end(JSON.stringify({ input }));
    });
    const body = JSON.parse(text || '{}') as {
      reply?: WireReply;
      error?: string;
      reason?: string;
      queue_inputs_max?: number;
      message?: string;
    };
    if (status === 200 && body.reply) return { ...body.reply, position: BigInt(body.reply.position) };
    if (status === 421) throw new NotTheWriter();
    if (status === 503 && body.error === 'engine_busy') throw new EngineBusyError(body.queue_inputs_max ?? 0);
    if (status === 503) throw new EngineStoppedError(body.reason ?? 'the writer is not accepting writes');
    if (status === 500) throw new Error(body.message ?? 'the writer failed');
    if (status === 401) throw new EngineStoppedError(FORWARDING_REFUSED);
    throw new EngineStoppedError(`the writer answered ${status}${body.error ? ` (${body.error})` : ''}`);
  }

  close(): void {
    if (this.session) this.drop(this.session);
  }

  /**
   * The writer is now at `url` (undefined: no node holds the lease): requests in flight to any
   * other node are ended at once, each refused as by a writer that cannot be reached (503, Retry-After),
   * instead of waiting up to FORWARD_TIMEOUT_MS on a writer that lost its lease (frozen, cut off).
   * What such a writer had already journaled is answered to the client's retry by its Idempotency-Key.
   */
  writerAt(url: string | undefined): void {
    if (this.session && this.sessionUrl !== url) this.drop(this.session);
  }

  private sessionFor(url: string): http2.ClientHttp2Session {
    if (this.session && this.sessionUrl === url && !this.session.closed && !this.session.destroyed) return this.session;
    if (this.session) this.drop(this.session);
    const session = http2.connect(url);
    const connectTimer = setTimeout(() => {
      if (!session.connecting) return;
      session.destroy(new Error(`no connection within ${FORWARD_CONNECT_TIMEOUT_MS} ms`));
    }, FORWARD_CONNECT_TIMEOUT_MS);
    connectTimer.unref();
    session.on('connect', () => clearTimeout(connectTimer));
    session.on('error', () => this.drop(session));
    session.on('goaway', () => this.drop(session));
    session.on('close', () => this.drop(session));
    session.unref();
    this.session = session;
    this.sessionUrl = url;
    return session;
  }

  private drop(session: http2.ClientHttp2Session): void {
    if (this.session === session) {
      this.session = undefined;
      this.sessionUrl = undefined;
    }
    if (!session.destroyed) session.destroy();
  }
}
