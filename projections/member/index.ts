// The member read models' projectors, registered in projections/registry.ts. Market stats and
// the leaderboard's facts are core tables (projections/core/slices/marketStats.ts): they are
// folded from the same facts as orders and fills, in the same transaction.
import type { Projector } from '../projector.ts';
import { memberProfilesProjector } from './profiles/projector.ts';

export const MEMBER_PROJECTORS: readonly Projector[] = [memberProfilesProjector];
