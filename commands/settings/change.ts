// PATCH /admin/v1/settings as a command: the patch is checked against the current settings
// (validate.ts), the engine is told the referral points in force first (it credits referrals, and
// the value is journaled with it), then the settings document changes.

import { judged, type CommandResult } from '../result.ts';
import { submitOperatorInput, type EngineCaller } from '../operatorInput.ts';
import type { Settings, SettingsStore } from './settings.ts';
import { validateSettingsPatch } from './validate.ts';

interface SettingsDeps extends EngineCaller {
  settings: SettingsStore;
}

export async function changeSettings(
  deps: SettingsDeps,
  patch: Record<string, unknown>,
): Promise<CommandResult<Settings>> {
  const checked = judged(() => validateSettingsPatch(patch, deps.settings.get()));
  if (!checked.ok) return checked;
  const valid = checked.value;
  if (valid.referral_points !== undefined) {
    const told = await submitOperatorInput(deps, { kind: 'SetReferralPoints', points: valid.referral_points });
    if (!told.ok) return told;
  }
  return deps.settings.update(valid);
}
