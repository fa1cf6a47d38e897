// A raw Phoenix V2 client over `ws`: sends frames exactly as given and keeps every frame the
// server sends, for tests of what the official client never does (bursts of joins, stale
// join_refs, many sockets at once).

import WebSocket from 'ws';
import { handshakeHeaders, type Credentials } from './phoenix.ts';

export type Frame = [string | null, string | null, string, string, any];

export class RawSocket {
  readonly frames: Frame[] = [];
  private readonly waiters: Array<{ match: (frame: Frame) => boolean; resolve: (frame: Frame) => void }> = [];
  closeCode: number | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      this.frames.push(frame);
      for (const waiter of [...this.waiters]) {
        if (waiter.match(frame)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(frame);
        }
      }
    });
    ws.on('close', (code) => {
      this.closeCode = code;
    });
  }

  /** Opens a socket (rejects with the HTTP status when the handshake is refused). */
  static open(socketUrl: string, credentials: Credentials = {}): Promise<RawSocket> {
    const url = `${socketUrl}/websocket?vsn=2.0.0`;
    const ws = new WebSocket(url, { headers: handshakeHeaders(url, credentials) });
    return new Promise((resolve, reject) => {
      ws.on('open', () => resolve(new RawSocket(ws)));
      ws.on('unexpected-response', (_req, res) =>
        reject(Object.assign(new Error(`handshake refused: ${res.statusCode}`), { status: res.statusCode })),
      );
      ws.on('error', (error) => reject(error));
    });
  }

  send(joinRef: string | null, ref: string | null, topic: string, event: string, payload: unknown = {}): void {
    this.ws.send(JSON.stringify([joinRef, ref, topic, event, payload]));
  }

  /** The first frame (already received or next) matching `match`. */
  next(match: (frame: Frame) => boolean): Promise<Frame> {
    const found = this.frames.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** The `phx_reply` to the frame sent with `ref`. */
  reply(ref: string): Promise<Frame> {
    return this.next((frame) => frame[3] === 'phx_reply' && frame[1] === ref);
  }

  /** Sends a heartbeat and waits for its reply: every frame before it that is answered at once (leave, events) has been. */
  async sync(ref: string): Promise<void> {
    this.send(null, ref, 'phoenix', 'heartbeat');
    await this.reply(ref);
  }

  close(): void {
    this.ws.close();
  }
}
