// Every projector the service runs. Add new ones here.
import type { Projector } from './projector.ts';

export function allProjectors(): Projector[] {
  return [];
}
