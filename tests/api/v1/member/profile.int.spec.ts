// GET /me and PATCH /me/profile over HTTP: every profile rule (docs/MEMBER.md "Profile"), and the public avatars.

import { expect } from 'chai';
import { HANDLE_CHANGE_WINDOW_US } from '../../../../domain/profile/handle.ts';
import { LEADERBOARD_LAUNCH_US } from '../../../../domain/profile/profile.ts';
import type { AccountFields } from '../../../../domain/engine/inputs.ts';
import { openAccount as openAccountInput } from '../../../projections/member/fixtures.ts';
import { startMemberService, type MemberService, type Who } from './harness.ts';

const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

describe('member profile over HTTP', () => {
  let svc: MemberService;
  let next = 100;
  /** A fresh account, opened through an engine step as the operator API would. */
  async function openAccount(fields: AccountFields = {}, userId?: string): Promise<Who> {
    next += 1;
    const accountId = id(next);
    const input = openAccountInput(accountId, {
      created_at: svc.clock.nowUs(),
      first_name: 'Ada',
      last_name: 'Lovelace',
      ...fields,
    });
    await svc.engineStep(userId && input.kind === 'OpenAccount' ? { ...input, user_id: userId } : input);
    return { account_id: accountId };
  }
  const patch = (who: Who, body: unknown) => svc.call('PATCH', '/api/v1/me/profile', who, body);
  const me = async (who: Who) => (await svc.call('GET', '/api/v1/me', who)).body.me;

  before(async () => {
    svc = await startMemberService();
  });
  after(async () => svc?.stop());

  describe('GET /me', () => {
    it('identity from the account, credential fields from the principal (bearer)', async () => {
      const who = await openAccount();
      const res = await svc.call('GET', '/api/v1/me', who);
      expect(res.status).to.equal(200);
      expect(res.body.me).to.deep.include({
        account_id: who.account_id,
        first_name: 'Ada',
        last_name: 'Lovelace',
        handle: null,
        avatar_url: null,
        handle_changeable_at: null,
        method: 'bearer',
        scope: null,
        key_id: null,
      });
      expect(res.body.me.user_id).to.be.a('string');
    });

    it('identity follows the account: a renamed account shows its new names and its own user id', async () => {
      const userId = id(9_000 + next);
      const who = await openAccount({}, userId);
      await svc.engineStep({
        kind: 'UpdateAccount',
        account_id: who.account_id,
        fields: { first_name: 'Augusta', last_name: 'King' },
      });
      expect(await me(who)).to.deep.include({ first_name: 'Augusta', last_name: 'King', user_id: userId });
    });

    it('an API key request shows the key id and scope', async () => {
      const who = await openAccount();
      const readOnly: Who = { ...who, method: 'api_key', key_scope: 'read_only' };
      const got = await me(readOnly);
      expect(got).to.deep.include({ method: 'api_key', scope: 'read_only', key_id: await svc.keyIdOf(readOnly) });
    });
  });

  describe('PATCH /me/profile: 400 for malformed bodies', () => {
    const cases: Array<[string, unknown]> = [
      ['an empty object', {}],
      ['a non-object body', [1, 2]],
      ['handle as a number', { handle: 42 }],
      ['leaderboard_opt_in as a string', { leaderboard_opt_in: 'true' }],
      ['avatar null', { avatar: null }],
      ['avatar as a string', { avatar: 'dots' }],
      ['avatar without a seed', { avatar: { style: 'dots', palette: 'ember' } }],
      ['an unknown palette', { avatar: { style: 'dots', palette: 'neon', seed: 'x' } }],
      ['an unknown style', { avatar: { style: 'waves', palette: 'ember', seed: 'x' } }],
      ['an empty seed', { avatar: { style: 'dots', palette: 'ember', seed: '' } }],
      ['a 33-character seed', { avatar: { style: 'dots', palette: 'ember', seed: 's'.repeat(33) } }],
      ['a seed as a number', { avatar: { style: 'dots', palette: 'ember', seed: 7 } }],
      ['an unknown key', { nickname: 'x' }],
      ['malformed JSON', '{"handle": '],
    ];
    for (const [what, body] of cases) {
      it(`refuses ${what}`, async () => {
        const who = await openAccount();
        const res = await patch(who, body);
        expect(res.status).to.equal(400);
        expect(res.body.error).to.be.a('string');
      });
    }
  });

  describe('credentials', () => {
    it('a read_only API key gets 403; a read_write key and a bearer session may change the profile', async () => {
      const who = await openAccount();
      const readOnly = await patch(
        { ...who, method: 'api_key', key_scope: 'read_only' },
        { leaderboard_opt_in: false },
      );
      expect(readOnly.status).to.equal(403);
      expect(readOnly.body.error).to.match(/read-only/);
      const writer: Who = { ...who, method: 'api_key', key_scope: 'read_write' };
      const readWrite = await patch(writer, { leaderboard_opt_in: false });
      expect(readWrite.status).to.equal(200);
      expect(readWrite.body.me).to.deep.include({
        method: 'api_key',
        scope: 'read_write',
        key_id: await svc.keyIdOf(writer),
        leaderboard_opt_in: false,
      });
      const session = await patch(who, { leaderboard_opt_in: true });
      expect(session.status).to.equal(200);
    });
  });

  describe('handle', () => {
    it('is case folded and gives the avatar path; the 30-day window follows the service clock', async () => {
      const who = await openAccount();
      const first = await patch(who, { handle: 'Grace.Hopper' });
      expect(first.status).to.equal(200);
      expect(first.body.me).to.deep.include({ handle: 'grace.hopper', avatar_url: '/avatars/grace.hopper.svg' });
      const changeableAt = Date.parse(first.body.me.handle_changeable_at) * 1000;
      expect(changeableAt - svc.clock.nowUs()).to.be.within(
        HANDLE_CHANGE_WINDOW_US - 60_000_000,
        HANDLE_CHANGE_WINDOW_US,
      );

      const again = await patch(who, { handle: 'grace_h' });
      expect(again.status).to.equal(422);
      expect(again.body.error).to.equal('Handle can be changed only once every 30 days');

      const same = await patch(who, { handle: 'GRACE.HOPPER' });
      expect(same.status).to.equal(200);
      expect(same.body.me.handle).to.equal('grace.hopper');

      svc.clock.advance(HANDLE_CHANGE_WINDOW_US / 1000);
      expect((await me(who)).handle_changeable_at).to.equal(null);
      const later = await patch(who, { handle: 'grace_h' });
      expect(later.status).to.equal(200);
      expect(later.body.me.handle).to.equal('grace_h');
      expect((await me(who)).handle).to.equal('grace_h');
    });

    const refused: Array<[string, string]> = [
      ['', 'Handle must not be blank'],
      ['   ', 'Handle must not be blank'],
      ['ab', 'Handle must be 3 to 24 characters'],
      ['a'.repeat(25), 'Handle must be 3 to 24 characters'],
      ['_lead', 'Handle may contain only lowercase letters, digits and inner . or _'],
      ['trail.', 'Handle may contain only lowercase letters, digits and inner . or _'],
      ['dash-ed', 'Handle may contain only lowercase letters, digits and inner . or _'],
      ['Admin', 'Handle is reserved'],
    ];
    for (const [handle, error] of refused) {
      it(`${JSON.stringify(handle)} → 422 ${error}`, async () => {
        const who = await openAccount();
        const res = await patch(who, { handle });
        expect(res.status).to.equal(422);
        expect(res.body.error).to.equal(error);
        expect((await me(who)).handle).to.equal(null);
      });
    }

    it('reserved and blocked lists come from the operator settings', async () => {
      await svc.ctx.settings.update({ reserved_handles: ['vip'], blocked_handles: ['rude'] });
      const who = await openAccount();
      expect((await patch(who, { handle: 'vip' })).body.error).to.equal('Handle is reserved');
      expect((await patch(who, { handle: 'rude' })).body.error).to.equal('Handle is blocked');
      expect((await patch(who, { handle: 'so.rude_1' })).body.error).to.equal('Handle is blocked');
      expect((await patch(who, { handle: 'admin' })).status).to.equal(200); // no longer on the list
    });

    it('must be unused; a handle given up can be taken again', async () => {
      const owner = await openAccount();
      const other = await openAccount();
      expect((await patch(owner, { handle: 'taken_one' })).status).to.equal(200);
      const clash = await patch(other, { handle: 'Taken_One' });
      expect(clash.status).to.equal(422);
      expect(clash.body.error).to.equal('Handle is taken');
      svc.clock.advance(HANDLE_CHANGE_WINDOW_US / 1000);
      expect((await patch(owner, { handle: 'moved_on' })).status).to.equal(200);
      expect((await patch(other, { handle: 'taken_one' })).status).to.equal(200);
    });

    it('two concurrent requests cannot both take one handle', async () => {
      const racers = await Promise.all(Array.from({ length: 8 }, () => openAccount()));
      const results = await Promise.all(racers.map((who) => patch(who, { handle: 'contested' })));
      expect(results.filter((r) => r.status === 200)).to.have.length(1);
      expect(results.filter((r) => r.status === 422).map((r) => r.body.error)).to.deep.equal(
        Array(7).fill('Handle is taken'),
      );
    });

    it('a refused handle applies nothing else of the request', async () => {
      const who = await openAccount({ jurisdiction: 'ca' });
      const res = await patch(who, { handle: 'x', leaderboard_opt_in: true });
      expect(res.status).to.equal(422);
      expect((await me(who)).leaderboard_opt_in).to.equal(false);
    });
  });

  describe('leaderboard consent', () => {
    it('new accounts start with the jurisdiction default: us joined, ca not', async () => {
      expect((await me(await openAccount({ jurisdiction: 'us' }))).leaderboard_opt_in).to.equal(true);
      expect((await me(await openAccount({ jurisdiction: 'ca' }))).leaderboard_opt_in).to.equal(false);
    });

    it('accounts older than the leaderboard start out', async () => {
      const who = await openAccount({ jurisdiction: 'us', created_at: LEADERBOARD_LAUNCH_US - 1_000_000 });
      expect((await me(who)).leaderboard_opt_in).to.equal(false);
    });

    it('joining generates a handle and avatar when none; leaving keeps them', async () => {
      const who = await openAccount({ jurisdiction: 'ca' });
      const joined = await patch(who, { leaderboard_opt_in: true });
      expect(joined.status).to.equal(200);
      expect(joined.body.me.leaderboard_opt_in).to.equal(true);
      expect(joined.body.me.handle).to.match(/^[a-z]+_[a-z0-9]{6}$/);
      expect(joined.body.me.avatar).to.have.keys('style', 'palette', 'seed');
      expect(joined.body.me.handle_changeable_at).to.equal(null); // a generated handle can be replaced at once
      const left = await patch(who, { leaderboard_opt_in: false });
      expect(left.body.me).to.deep.include({ leaderboard_opt_in: false, handle: joined.body.me.handle });
      const recorded = (await svc.store.readStream(`profile-${who.account_id}`)).filter(
        (e) => e.type === 'LeaderboardOptInChanged',
      );
      expect(recorded.map((e) => (e.data as { opt_in: boolean }).opt_in)).to.deep.equal([true, false]);
      expect(recorded.every((e) => typeof (e.data as { at_us: number }).at_us === 'number')).to.equal(true);
    });

    it('joining keeps a handle already chosen', async () => {
      const who = await openAccount({ jurisdiction: 'ca' });
      await patch(who, { handle: 'chosen_one', avatar: { style: 'rings', palette: 'mint', seed: 'abc' } });
      const joined = await patch(who, { leaderboard_opt_in: true });
      expect(joined.body.me).to.deep.include({ handle: 'chosen_one' });
      expect(joined.body.me.avatar).to.deep.equal({ style: 'rings', palette: 'mint', seed: 'abc' });
    });
  });

  describe('avatars and sport icons (no credentials)', () => {
    it('renders the chosen avatar deterministically with caching headers; 304 on a matching ETag', async () => {
      const a = await openAccount();
      const b = await openAccount();
      await patch(a, { handle: 'same_seed_a', avatar: { style: 'stripes', palette: 'ocean', seed: 'one' } });
      await patch(b, { handle: 'same_seed_b', avatar: { style: 'stripes', palette: 'ocean', seed: 'one' } });
      const first = await svc.call('GET', '/avatars/same_seed_a.svg', null);
      expect(first.status).to.equal(200);
      expect(first.headers.get('content-type')).to.match(/^image\/svg\+xml/);
      expect(first.headers.get('cache-control')).to.match(/max-age=\d+/);
      const etag = first.headers.get('etag');
      expect(etag).to.be.a('string');
      expect(first.text).to.match(/^<svg/);
      expect((await svc.call('GET', '/avatars/same_seed_b.svg', null)).text).to.equal(first.text);
      const cached = await svc.call('GET', '/avatars/same_seed_a.svg', null, undefined, { 'if-none-match': etag! });
      expect(cached.status).to.equal(304);
      await patch(a, { avatar: { style: 'stripes', palette: 'ocean', seed: 'two' } });
      expect((await svc.call('GET', '/avatars/same_seed_a.svg', null)).text).to.not.equal(first.text);
    });

    it('404 for an unknown handle', async () => {
      expect((await svc.call('GET', '/avatars/nobody_here.svg', null)).status).to.equal(404);
      expect((await svc.call('GET', '/avatars/x.png', null)).status).to.equal(404);
    });

    it('serves sport icons at the path behind top_sport_icon_url', async () => {
      const icon = await svc.call('GET', '/icons/sports/ice_hockey.svg', null);
      expect(icon.status).to.equal(200);
      expect(icon.text).to.match(/^<svg/);
      expect(icon.headers.get('etag')).to.be.a('string');
      expect((await svc.call('GET', '/icons/sports/Bad%20Key.svg', null)).status).to.equal(404);
    });
  });
});
