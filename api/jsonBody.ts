// The JSON body parser of /api/v1: express.json with the same options, plus a direct path for
// the ordinary request (Content-Type exactly `application/json`, no Content-Encoding or
// Transfer-Encoding, a Content-Length within the limit) that reads and parses the body itself,
// with body-parser's outcome in every case: UTF-8 with a leading BOM dropped, an empty body is
// `{}`, a body not starting with `{` or `[` (after whitespace) or not parsing is a 400, a request
// aborted while reading is a 400. Anything else goes to express.json unchanged.

import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

const PLAIN_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8']);
const CONTENT_LENGTH = /^\d{1,10}$/;
const BOM = 0xfeff;
const FIRST_NON_WHITESPACE = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d]|$)/; // eslint-disable-line no-control-regex

/** A parse failure as body-parser reports it (the error handler looks at the status only). */
function bodyError(message: string): Error & { status: number; statusCode: number; expose: boolean; type: string } {
  return Object.assign(new Error(message), { status: 400, statusCode: 400, expose: true, type: 'entity.parse.failed' });
}

function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  if (text[0] !== '{' && text[0] !== '[') {
    const first = FIRST_NON_WHITESPACE.exec(text)?.[1];
    if (first !== '{' && first !== '[') throw bodyError('strict violation');
  }
  return JSON.parse(text);
}

/** Methods whose routes take no body: a body sent with them is not read, let alone parsed. */
const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A body parser that leaves requests of body-less methods alone. */
export function onlyWithBody(parser: RequestHandler): RequestHandler {
  return function parseBodyOfWrites(req: Request, res: Response, next: NextFunction): void {
    if (BODYLESS_METHODS.has(req.method)) next();
    else parser(req, res, next);
  };
}

export function jsonBody(limitBytes: number, limit: string): RequestHandler {
  const standard = express.json({ limit });
  return function jsonBodyParser(req: Request, res: Response, next: NextFunction): void {
    if (BODYLESS_METHODS.has(req.method)) {
      next();
      return;
    }
    const headers = req.headers;
    const type = headers['content-type'];
    const length = headers['content-length'];
    if (
      type === undefined ||
      !PLAIN_TYPES.has(type) ||
      headers['content-encoding'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      length === undefined ||
      !CONTENT_LENGTH.test(length) ||
      Number(length) > limitBytes ||
      !req.readable ||
      req.readableEnded ||
      req.readableFlowing !== null
    ) {
      standard(req, res, next);
      return;
    }
    req.body = undefined;
    const expected = Number(length);
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (error: Error | null): void => {
      if (settled) return;
      settled = true;
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('aborted', onAborted);
      req.removeListener('error', onError);
      if (error) {
        next(error);
        return;
      }
      let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)).toString('utf8');
      if (text.charCodeAt(0) === BOM) text = text.slice(1);
      try {
        req.body = parseStrict(text);
      } catch (parseError) {
        next(Object.assign(bodyError((parseError as Error).message), { body: text }));
        return;
      }
      next();
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = (): void =>
      finish(received === expected ? null : bodyError('request size did not match content length'));
    const onAborted = (): void => finish(bodyError('request aborted'));
    const onError = (error: Error): void =>
      finish(Object.assign(error, { status: 400, statusCode: 400, expose: true }));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onError);
  };
}
