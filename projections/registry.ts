// Every projector the service runs. Add new ones here.
import type { Projector } from './projector.ts';
import { MEMBER_PROJECTORS } from './member/index.ts';
import { coreProjector } from './core/projector.ts';
import { credentialsProjector } from './credentials/projector.ts';
import { grantsProjector } from './oauth/grants.ts';

export function allProjectors(): Projector[] {
  return [coreProjector(), ...MEMBER_PROJECTORS, credentialsProjector, grantsProjector];
}
