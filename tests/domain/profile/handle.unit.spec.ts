// Handle rules and the profile decider (PATCH /api/v1/me/profile, docs/MEMBER.md "Profile"), without I/O.
import { expect } from 'chai';
import {
  HANDLE_CHANGE_WINDOW_US,
  HandleRule,
  foldHandle,
  generatedHandle,
  handleRuleBroken,
} from '../../../domain/profile/handle.ts';
import {
  LEADERBOARD_LAUNCH_US,
  decideProfile,
  defaultOptIn,
  evolveProfile,
  handleChangeableAtUs,
  initialProfile,
  type ProfileState,
  type UpdateProfile,
} from '../../../domain/profile/profile.ts';
import { DomainError } from '../../../domain/errors.ts';

const lists = { reserved_handles: ['admin', 'support'], blocked_handles: ['badword'] };
const NOW = LEADERBOARD_LAUNCH_US + 400 * 24 * 3600 * 1_000_000;
const generated = { handle: 'trader_abc123', avatar: { style: 'dots' as const, palette: 'ember' as const, seed: 'g' } };
const command = (fields: Partial<UpdateProfile>, now_us = NOW): UpdateProfile => ({
  account_id: 'a1',
  now_us,
  generated,
  ...fields,
});
const apply = (state: ProfileState, fields: Partial<UpdateProfile>, now_us = NOW) =>
  decideProfile(command(fields, now_us), state, lists).events.reduce(evolveProfile, state);

describe('handle rules', () => {
  const cases: Array<[string, string | null]> = [
    ['alice', null],
    ['a.b', null],
    ['a_b.c9', null],
    ['abc', null],
    ['x'.repeat(24), null],
    ['', 'blank'],
    ['   ', 'blank'],
    ['ab', 'length'],
    ['x'.repeat(25), 'length'],
    ['.abc', 'characters'],
    ['abc_', 'characters'],
    ['ab-c', 'characters'],
    ['ab c', 'characters'],
    ['élan', 'characters'],
    ['admin', 'reserved'],
    ['badword', 'blocked'],
    ['the_bad.word', 'blocked'],
  ];
  for (const [handle, rule] of cases) {
    it(`${JSON.stringify(handle)} → ${rule ?? 'accepted'}`, () => {
      expect(handleRuleBroken(handle, lists)).to.equal(rule);
    });
  }

  it('folds case before the rules, so uppercase input is the lowercase handle', () => {
    expect(foldHandle('Alice.B')).to.equal('alice.b');
    expect(handleRuleBroken(foldHandle('ADMIN'), lists)).to.equal('reserved');
  });

  it('generates handles that satisfy every character rule', () => {
    for (let i = 0; i < 256; i += 1) {
      const entropy = Uint8Array.from({ length: 8 }, (_, j) => (i * 31 + j * 7) % 256);
      expect(handleRuleBroken(generatedHandle(entropy), { reserved_handles: [], blocked_handles: [] })).to.equal(null);
    }
  });
});

describe('profile decider', () => {
  it('re-sending the current handle is no change and ignores the 30-day window', () => {
    const state = apply(initialProfile(), { handle: 'alice' });
    expect(decideProfile(command({ handle: 'ALICE' }, NOW + 1), state, lists).events).to.deep.equal([]);
  });

  it('refuses a second change inside 30 days and accepts it at the end of the window', () => {
    const state = apply(initialProfile(), { handle: 'alice' });
    expect(() => decideProfile(command({ handle: 'bob' }, NOW + 1), state, lists)).to.throw(
      DomainError,
      HandleRule.window,
    );
    expect(handleChangeableAtUs(state, NOW + 1)).to.equal(NOW + HANDLE_CHANGE_WINDOW_US);
    expect(handleChangeableAtUs(state, NOW + HANDLE_CHANGE_WINDOW_US)).to.equal(null);
    const later = apply(state, { handle: 'bob' }, NOW + HANDLE_CHANGE_WINDOW_US);
    expect(later.handle).to.equal('bob');
  });

  it('joining gives a generated handle and avatar when none yet, without starting the window', () => {
    const state = apply(initialProfile(), { leaderboard_opt_in: true });
    expect(state.handle).to.equal(generated.handle);
    expect(state.avatar).to.deep.equal(generated.avatar);
    expect(state.opt_in).to.equal(true);
    expect(handleChangeableAtUs(state, NOW)).to.equal(null);
  });

  it('joining keeps an existing handle and avatar; a handle sent with the join wins', () => {
    const mine = apply(initialProfile(), { handle: 'mine', avatar: { style: 'grid', palette: 'gold', seed: 's' } });
    const joined = apply(mine, { leaderboard_opt_in: true });
    expect(joined.handle).to.equal('mine');
    expect(joined.avatar?.style).to.equal('grid');
    const withHandle = apply(initialProfile(), { leaderboard_opt_in: true, handle: 'chosen' });
    expect(withHandle.handle).to.equal('chosen');
  });

  it('leaving keeps the handle; each consent change is recorded with its time', () => {
    const joined = apply(initialProfile(), { leaderboard_opt_in: true });
    const decision = decideProfile(command({ leaderboard_opt_in: false }, NOW + 5), joined, lists);
    expect(decision.events).to.deep.equal([
      { type: 'LeaderboardOptInChanged', account_id: 'a1', opt_in: false, at_us: NOW + 5 },
    ]);
    const left = decision.events.reduce(evolveProfile, joined);
    expect(left.handle).to.equal(generated.handle);
    expect(left.opt_in_changed_at_us).to.equal(NOW + 5);
  });

  it('a refused handle applies nothing else of the request', () => {
    expect(() =>
      decideProfile(command({ handle: 'admin', leaderboard_opt_in: true }), initialProfile(), lists),
    ).to.throw(DomainError, HandleRule.reserved);
  });

  it('new accounts start with the jurisdiction default; accounts older than the leaderboard start out', () => {
    expect(defaultOptIn({ jurisdiction: 'us', created_at: LEADERBOARD_LAUNCH_US })).to.equal(true);
    expect(defaultOptIn({ jurisdiction: 'ca', created_at: LEADERBOARD_LAUNCH_US + 1 })).to.equal(false);
    expect(defaultOptIn({ jurisdiction: 'us', created_at: LEADERBOARD_LAUNCH_US - 1 })).to.equal(false);
  });
});
