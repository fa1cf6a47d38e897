// Read model of member profiles: one row per account with what the consent default needs from
// the engine's AccountOpened/AccountUpdated facts (jurisdiction, created_at) and the profile
// (from the `profile-{account_id}` streams): handle, avatar, leaderboard consent and the
// effective consent after defaults. Identity fields (names, user id) are read from the core
// accounts read model, not copied here.
// Idempotent: profile events apply only past the stored stream revision, account facts only
// from a newer or equal engine step.

import type pg from 'pg';
import type { EngineEvent } from '../../../domain/engine/events.ts';
import { stepsOf } from '../../core/engineEvents.ts';
import {
  LEADERBOARD_LAUNCH_US,
  OPT_IN_DEFAULT_BY_JURISDICTION,
  type ProfileEvent,
} from '../../../domain/profile/profile.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import type { ProjectionChange, Projector } from '../../projector.ts';

const MEMBER_PROFILES_TABLE = 'member_profiles';

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS member_profiles (
  account_id text PRIMARY KEY,
  jurisdiction text,
  created_at bigint,
  account_seq bigint NOT NULL DEFAULT -1,
  handle text,
  handle_changed_at bigint,
  avatar jsonb,
  opt_in boolean,
  opt_in_changed_at bigint,
  opt_in_effective boolean NOT NULL DEFAULT false,
  profile_revision bigint NOT NULL DEFAULT -1
);
CREATE INDEX IF NOT EXISTS member_profiles_handle ON member_profiles (handle);
`;

const OPTED_IN_BY_DEFAULT = Object.entries(OPT_IN_DEFAULT_BY_JURISDICTION)
  .filter(([, on]) => on)
  .map(([code]) => code);

/** Consent after defaults: explicit choice, else the jurisdiction default, false before launch. */
const EFFECTIVE_SQL = `UPDATE member_profiles SET opt_in_effective = COALESCE(opt_in,
  CASE WHEN created_at IS NULL OR created_at < ${LEADERBOARD_LAUNCH_US} THEN false
       ELSE jurisdiction = ANY($2::text[]) END)
  WHERE account_id = $1`;

async function applyAccount(
  tx: pg.PoolClient,
  seq: number,
  account: { account_id: string; jurisdiction: string; created_at: number },
) {
  await tx.query(
    `INSERT INTO member_profiles (account_id, jurisdiction, created_at, account_seq)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) DO UPDATE SET jurisdiction = EXCLUDED.jurisdiction, created_at = EXCLUDED.created_at,
       account_seq = EXCLUDED.account_seq
     WHERE member_profiles.account_seq <= EXCLUDED.account_seq`,
    [account.account_id, account.jurisdiction, account.created_at, seq],
  );
}

async function applyProfileEvent(tx: pg.PoolClient, record: RecordedEvent): Promise<string | null> {
  const event = { type: record.type, ...(record.data as object) } as ProfileEvent;
  const accountId = event.account_id;
  if (typeof accountId !== 'string') return null;
  await tx.query('INSERT INTO member_profiles (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [
    accountId,
  ]);
  const guard = 'WHERE account_id = $1 AND profile_revision < $2';
  const revision = record.revision.toString();
  switch (event.type) {
    case 'HandleChanged':
      await tx.query(
        `UPDATE member_profiles SET handle = $3, profile_revision = $2,
           handle_changed_at = CASE WHEN $4::boolean THEN handle_changed_at ELSE $5::bigint END ${guard}`,
        [accountId, revision, event.handle, event.generated, event.at_us],
      );
      break;
    case 'AvatarChanged':
      await tx.query(`UPDATE member_profiles SET avatar = $3::jsonb, profile_revision = $2 ${guard}`, [
        accountId,
        revision,
        JSON.stringify(event.avatar),
      ]);
      break;
    case 'LeaderboardOptInChanged':
      await tx.query(`UPDATE member_profiles SET opt_in = $3, opt_in_changed_at = $4, profile_revision = $2 ${guard}`, [
        accountId,
        revision,
        event.opt_in,
        event.at_us,
      ]);
      break;
    default:
      await tx.query(`UPDATE member_profiles SET profile_revision = $2 ${guard}`, [accountId, revision]);
  }
  return accountId;
}

const isAccountSnapshot = (
  event: EngineEvent,
): event is Extract<EngineEvent, { type: 'AccountOpened' | 'AccountUpdated' }> =>
  event.type === 'AccountOpened' || event.type === 'AccountUpdated';
/** Any change of the account: the row's account step moves with each (a tier change moves nothing else here). */
const isAccountChange = (event: EngineEvent): boolean =>
  isAccountSnapshot(event) || event.type === 'LoyaltyTierChanged';

async function applyAccountStep(tx: pg.PoolClient, seq: number, accountId: string) {
  await tx.query('UPDATE member_profiles SET account_seq = $2 WHERE account_id = $1 AND account_seq <= $2', [
    accountId,
    seq,
  ]);
}

export const memberProfilesProjector: Projector = {
  name: 'member_profiles',
  version: 2,
  tables: [MEMBER_PROFILES_TABLE],
  schemaSql: SCHEMA_SQL,
  filter: { streamPrefixes: ['profile-', 'engine'] },
  wants: (record) =>
    record.stream.startsWith('profile-') || stepsOf(record).some((step) => step.events.some(isAccountChange)),
  async handle(tx, events) {
    const touched = new Set<string>();
    for (const record of events) {
      if (record.stream.startsWith('profile-')) {
        const accountId = await applyProfileEvent(tx, record);
        if (accountId) touched.add(accountId);
        continue;
      }
      for (const { seq, events } of stepsOf(record)) {
        for (const event of events) {
          if (isAccountSnapshot(event)) await applyAccount(tx, seq, event);
          else if (event.type === 'LoyaltyTierChanged') await applyAccountStep(tx, seq, event.account_id);
          else continue;
          touched.add(event.account_id);
        }
      }
    }
    const changes: ProjectionChange[] = [];
    for (const accountId of touched) {
      await tx.query(EFFECTIVE_SQL, [accountId, OPTED_IN_BY_DEFAULT]);
      changes.push({ projector: 'member_profiles', kind: 'profile', keys: { account_id: accountId } });
    }
    return changes;
  },
};
