// Every projector the service runs. Add new ones here.
import type { Projector } from './projector.ts';
import { MEMBER_PROJECTORS } from './member/index.ts';

export function allProjectors(): Projector[] {
  return [...MEMBER_PROJECTORS];
}
