// Every projector the service runs. Add new ones here.
import type { Projector } from './projector.ts';
import { MEMBER_PROJECTORS } from './member/index.ts';
import { coreProjector } from './core/projector.ts';
import { credentialsProjector } from './credentials/projector.ts';
import { grantsProjector } from './oauth/grants.ts';
import { announcementsProjector } from './shared/announcements.ts';

/**
 * Projectors no longer run, with the tables they kept: on start the runner drops those tables
 * and their checkpoint (an install upgraded from a build that ran them keeps no stale copies).
 */
export const RETIRED_PROJECTORS: ReadonlyArray<Pick<Projector, 'name' | 'tables'>> = [
  {
    // its market stats and leaderboard facts moved into the core projector (core version 5)
    name: 'member_activity',
    tables: [
      'member_sport_events',
      'member_markets',
      'member_orders',
      'member_fills',
      'member_positions',
      'member_balances',
      'member_fee_entries',
      'member_market_stats',
    ],
  },
];

export function allProjectors(): Projector[] {
  return [coreProjector(), ...MEMBER_PROJECTORS, credentialsProjector, grantsProjector, announcementsProjector];
}
