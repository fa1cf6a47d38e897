// A lean HTTP/1.1 load generator for the benches: persistent connections, one request at a time
// on each (no pipelining), requests written as one buffer, answers read by Content-Length. It
// spends a fraction of a general-purpose client's CPU per request, which on a machine whose cores
// the service and its PostgreSQL share with the bench leaves more of them to what is measured.
// It understands exactly what the service sends (a status line, headers, a Content-Length body)
// and fails loudly on anything else.

import net from 'node:net';

export interface LoadAnswer {
  status: number;
  body: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

class Connection {
  private readonly socket: net.Socket;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (answer: LoadAnswer) => void; reject: (error: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(host: string, port: number) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  get usable(): boolean {
    return this.failure === undefined;
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const headerEnd = this.buffered.indexOf(HEADER_END);
    if (headerEnd < 0) return;
    const head = this.buffered.toString('latin1', 0, headerEnd);
    const length = CONTENT_LENGTH.exec(head);
    if (!length) {
      this.fail(new Error(`answer without Content-Length: ${head.split('\r\n')[0]}`));
      return;
    }
    const end = headerEnd + HEADER_END.length + Number(length[1]);
    if (this.buffered.length < end) return;
    const status = Number(head.slice(9, 12));
    const body = this.buffered.toString('utf8', headerEnd + HEADER_END.length, end);
    this.buffered = this.buffered.subarray(end);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve({ status, body });
  }

  send(request: Buffer): Promise<LoadAnswer> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Up to `connections` persistent connections to `host:port`, each carrying one request at a time. */
export class LoadClient {
  private readonly idle: Connection[] = [];
  private readonly queued: Array<(connection: Connection) => void> = [];
  private readonly all: Connection[] = [];

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly connections: number,
  ) {}

  async request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<LoadAnswer> {
    const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\n`;
    for (const name of Object.keys(headers)) head += `${name}: ${headers[name]}\r\n`;
    head += `content-length: ${payload?.length ?? 0}\r\n\r\n`;
    const request = payload ? Buffer.concat([Buffer.from(head, 'latin1'), payload]) : Buffer.from(head, 'latin1');
    const connection = await this.acquire();
    try {
      return await connection.send(request);
    } finally {
      this.release(connection);
    }
  }

  private acquire(): Promise<Connection> {
    const connection = this.idle.pop();
    if (connection) return Promise.resolve(connection);
    if (this.all.length < this.connections) {
      const fresh = new Connection(this.host, this.port);
      this.all.push(fresh);
      return Promise.resolve(fresh);
    }
    return new Promise((resolve) => this.queued.push(resolve));
  }

  private release(connection: Connection): void {
    if (!connection.usable) {
      this.all.splice(this.all.indexOf(connection), 1);
      connection.close();
      const waiter = this.queued.shift();
      if (waiter) void this.acquire().then(waiter);
      return;
    }
    const waiter = this.queued.shift();
    if (waiter) waiter(connection);
    else this.idle.push(connection);
  }

  close(): void {
    for (const connection of this.all.splice(0)) connection.close();
    this.idle.length = 0;
  }
}
