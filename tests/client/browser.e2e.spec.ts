// The client in a browser (Chromium through playwright-core): the package bundled for the browser
// (esbuild; `ws` falls back to its browser stub, so the feed uses the browser's WebSocket), the
// pure-JS signer giving the same headers as Node's, and the feed's public `events` topic joined
// anonymously, which is all a browser may do without handshake headers.

import type * as ExchangeClientModule from '@event-exchange/client';
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { createSigner, generateKeyPair } from '@event-exchange/client';
import { startService, type Service } from './support.ts';
import { launchChromium, skipWithoutChromium } from '../support/chromium.ts';

describe('client: in a browser', function () {
  this.timeout(120_000);
  let service: Service;
  let browser: Browser;
  let page: http.Server;
  let pageUrl = '';

  before(async function () {
    skipWithoutChromium(this);
    const bundle = await build({
      entryPoints: [path.resolve('client/dist/index.js')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    const script = bundle.outputFiles[0]!.text;
    page = http.createServer((req, res) => {
      if (req.url === '/client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<!doctype html><script type="module">import * as client from "/client.js"; window.exchangeClient = client;</script>',
          );
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    service = await startService();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.svc.stop();
    page?.close();
  });

  it('signs as Node does (pure JS), and follows the public `events` topic over the browser WebSocket', async () => {
    const admin = service.admin;
    await admin.market('Browser Town to win');
    const { privateKey } = generateKeyPair();
    const inNode = createSigner('key-1', privateKey).headers('GET', '/api/v1/orders?limit=5', 1_767_225_600_000);

    const tab = await browser.newPage();
    await tab.goto(pageUrl);
    await tab.waitForFunction(() => 'exchangeClient' in window);
    const result = await tab.evaluate(
      async ({ privateKey, baseUrl, wsUrl }) => {
        const lib = (window as unknown as { exchangeClient: typeof ExchangeClientModule }).exchangeClient;
        const headers = lib
          .createSigner('key-1', privateKey)
          .headers('GET', '/api/v1/orders?limit=5', 1_767_225_600_000);
        const feed = lib.createClient({ baseUrl, wsUrl }).feed();
        const events = await new Promise<unknown>((resolve, reject) => {
          feed
            .channel('events', {})
            .join()
            .receive('ok', resolve)
            .receive('error', reject)
            .receive('timeout', () => reject(new Error('timeout')));
        });
        await feed.close();
        return { headers, events, hasProcess: typeof (globalThis as { process?: unknown }).process !== 'undefined' };
      },
      { privateKey, baseUrl: service.baseUrl, wsUrl: service.wsUrl },
    );
    expect(result.hasProcess).to.equal(false); // so the signature came from @noble/curves
    expect(result.headers).to.deep.equal(inNode);
    expect((result.events as { events: unknown[] }).events).to.be.an('array').that.is.not.empty;
  });
});
