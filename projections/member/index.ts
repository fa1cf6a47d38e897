// The member read models' projectors, registered in projections/registry.ts.
import type { Projector } from '../projector.ts';
import { memberActivityProjector } from './activity/projector.ts';
import { memberProfilesProjector } from './profiles/projector.ts';

export const MEMBER_PROJECTORS: readonly Projector[] = [memberProfilesProjector, memberActivityProjector];
