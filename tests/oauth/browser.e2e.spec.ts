// The authorization pages in a real browser: headless Debian Chromium through playwright-core.
// Login, two-factor, sign-up, consent Allow and Deny, and prompt=none, found by their labels and
// buttons as a person would. The app's redirect_uri is a plain page served by the test.

import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { base32Decode, hotp, totpStepAt } from '../../domain/auth/totp.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { adminOk, newClient, newMember } from './support.ts';
import { launchChromium, skipWithoutChromium } from '../support/chromium.ts';

describe('OAuth pages in Chromium', function () {
  this.timeout(120_000);
  let svc: TestService;
  let browser: Browser;
  let clientId: string;
  let app: http.Server;
  let REDIRECT = '';

  before(async function () {
    skipWithoutChromium(this);
    // the app's callback: a plain page
    app = http.createServer((_req, res) => res.end('back in the app'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    REDIRECT = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    svc = await startTestService();
    browser = await launchChromium();
    clientId = (
      await newClient(svc, {
        name: 'Chart App',
        app_type: 'native',
        redirect_uris: [REDIRECT],
        scopes: ['profile.read', 'balance.read'],
      })
    ).client_id;
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
    app?.close();
  });

  function authorizeUrl(extra: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString('base64url');
    return `${svc.baseUrl}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'profile.read balance.read',
      state: 'xyz',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    }).toString()}`;
  }

  /** A fresh browser session whose redirect_uri requests are answered here. */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext();
    return context.newPage();
  }
  const landed = (page: Page) => new URL(page.url());

  async function logIn(page: Page, email: string, password: string) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  it('login, then consent names the app and the scopes; Allow lands on the redirect_uri with code, state and iss', async () => {
    const member = await newMember(svc);
    const page = await newPage();
    await page.goto(authorizeUrl());
    await logIn(page, member.email, member.password);
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const text = await page.textContent('body');
    expect(text).to.include('Chart App').and.include('See your balance');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/\/callback\?/);
    expect(landed(page).searchParams.get('code')).to.match(/^svc_code_/);
    expect(landed(page).searchParams.get('state')).to.equal('xyz');
    expect(landed(page).searchParams.get('iss')).to.equal(svc.baseUrl);

    // prompt=none in the same browser: a code without any screen
    await page.goto(authorizeUrl({ prompt: 'none' }));
    await page.waitForURL(/\/callback\?/);
    expect(landed(page).searchParams.get('code')).to.match(/^svc_code_/);
    await page.context().close();
  });

  it('Deny lands with error=access_denied; a wrong password shows an error and no session', async () => {
    const member = await newMember(svc);
    const page = await newPage();
    await page.goto(authorizeUrl());
    await logIn(page, member.email, 'not the password');
    expect(await page.getByRole('alert').textContent()).to.include('incorrect');
    await logIn(page, member.email, member.password);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(/\/callback\?/);
    expect(landed(page).searchParams.get('error')).to.equal('access_denied');
    expect(landed(page).searchParams.get('state')).to.equal('xyz');
    await page.context().close();
  });

  it('two-factor: a Code page after the password; the same code is not accepted twice', async () => {
    const member = await newMember(svc);
    const { totp } = await adminOk(svc, 'POST', `/accounts/${member.account_id}/totp`);
    const secret = base32Decode(totp.secret)!;
    const nowMs = Math.floor(svc.ctx.clock.nowUs() / 1000);
    const code = hotp(secret, totpStepAt(nowMs));
    const page = await newPage();
    await page.goto(authorizeUrl());
    await logIn(page, member.email, member.password);
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/\/callback\?/);
    expect(landed(page).searchParams.get('code')).to.match(/^svc_code_/);

    const again = await newPage();
    await again.goto(authorizeUrl());
    await logIn(again, member.email, member.password);
    await again.getByLabel('Code').fill(code);
    await again.getByRole('button', { name: 'Verify' }).click();
    expect(await again.getByRole('alert').textContent()).to.include('not valid');
    await page.context().close();
    await again.context().close();
  });

  it('sign-up on /player/register, log in in the same session, return to the pending authorization', async () => {
    const page = await newPage();
    await page.goto(authorizeUrl());
    await page.getByRole('link', { name: 'Create one' }).click();
    expect(new URL(page.url()).pathname).to.equal('/player/register');
    const email = `new-${Date.now()}@example.com`;
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Newcomer');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await logIn(page, email, 'a long enough password');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/\/callback\?/);
    expect(landed(page).searchParams.get('code')).to.match(/^svc_code_/);
    await page.context().close();
  });
});
