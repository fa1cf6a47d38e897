// The system Chromium for the browser tests (playwright-core drives it; no browser download).

import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Skips the suite (from its `before`, given mocha's context) when Chromium is not installed. */
export function skipWithoutChromium(context: Mocha.Context): void {
  if (!existsSync(CHROMIUM)) {
    console.warn('    chromium is not installed (apt-get install -y chromium): browser tests skipped');
    context.skip();
  }
}

/** Chromium, headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}
