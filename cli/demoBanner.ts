// Where the DEMO=1 banner goes: it holds a private key, a client secret and a password, so it is
// written to the terminal itself, or, when standard output is not one (a pipe, a container, a log
// collector, which would keep the secrets in every copy of the log), to a file under DATA_DIR
// that only the service's user can read. Never to the log.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../commands/context.ts';

/** Under DATA_DIR: the DEMO=1 banner (a private key, a client secret, a password) when standard output is no terminal. */
const DEMO_BANNER_FILE = 'demo-banner.txt';
/** Read and write for its owner only. */
const OWNER_ONLY_MODE = 0o600;

/**
 * The banner's destination: the terminal itself, or else a file only the service's user can read
 * (a pipe to a log collector would keep the secrets in every copy of the log).
 */
export function demoBannerOut(config: Config, logger: Logger, stream: NodeJS.WriteStream): (text: string) => void {
  if (stream.isTTY) return (text) => void stream.write(text);
  return (text) => {
    const file = path.join(config.dataDir, DEMO_BANNER_FILE);
    mkdirSync(config.dataDir, { recursive: true });
    rmSync(file, { force: true }); // a file left by an earlier start keeps its mode: make it anew
    writeFileSync(file, text, { mode: OWNER_ONLY_MODE, flag: 'wx' });
    logger.info(
      { file },
      'demo banner (the demo API key, client secret and password) written to a file readable by its owner only: standard output is not a terminal',
    );
  };
}
