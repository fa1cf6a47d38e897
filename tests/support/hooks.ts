// Mocha root hooks (loaded through .mocharc.json "require"): shared test resources are
// released once after the whole run.

import { stopTestPostgres } from './pg.ts';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopTestPostgres();
  },
};
