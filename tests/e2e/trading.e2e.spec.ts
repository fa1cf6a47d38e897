// End to end over HTTP: an operator lists an event and a market, two members deposit and trade
// against each other over /api/v1 with signed API keys, the market is resulted, the winner
// withdraws. Every balance is checked to the cent, as exact decimal strings, at every step.
//
// Economics (max_price M = 1.00, no fees: both accounts on fixed_percent at 0%):
//   Alice buys 10 at 0.60: she risks 6.00 to win 4.00. Bob sells 10 at 0.60: he risks 4.00.
//   Result `win`: the long is paid M per contract: Alice +4.00, Bob -4.00.

import { expect } from 'chai';
import { useServiceClient, type ApiKeyCredentials } from '../api/admin/http.ts';

describe('e2e: list, deposit, trade, result, withdraw', function () {
  this.timeout(120_000);
  const suite = useServiceClient();

  async function balance(key: ApiKeyCredentials) {
    const answer = await suite.client.signed(key, 'GET', '/account/balance');
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.balance as Record<string, unknown>;
  }

  async function expectBalances(
    key: ApiKeyCredentials,
    expected: { account_balance: string; available_balance: string },
  ) {
    const actual = await balance(key);
    expect({ account_balance: actual.account_balance, available_balance: actual.available_balance }).to.deep.equal(
      expected,
    );
  }

  it('every balance is exact at every step', async () => {
    // the operator lists an event and an open market
    const { event, market } = await suite.client.listEventAndMarket(
      {
        title: 'Harbour City v River Town',
        start: new Date(suite.client.nowMs() + 2 * 3_600_000).toISOString(),
        sport: 'soccer',
        competition: 'LEAGUE',
        participants: ['Harbour City', 'River Town'],
      },
      { title: 'Harbour City to win', status: 'open' },
    );
    expect(market).to.include({ max_price: '1.00', status: 'open', trading: true });

    // two members, each with a read-write API key
    const noFees = { fee_schedule: 'fixed_percent', base_fee_percent: 0 };
    const alice = (await suite.client.ok('POST', '/accounts', { first_name: 'Alice', ...noFees })).account;
    const bob = (await suite.client.ok('POST', '/accounts', { first_name: 'Bob', ...noFees })).account;
    const aliceKey: ApiKeyCredentials = (
      await suite.client.ok('POST', `/accounts/${alice.account_id}/api_keys`, { scope: 'read_write' })
    ).api_key;
    const bobKey: ApiKeyCredentials = (
      await suite.client.ok('POST', `/accounts/${bob.account_id}/api_keys`, { scope: 'read_write' })
    ).api_key;
    await expectBalances(aliceKey, { account_balance: '0.00', available_balance: '0.00' });
    await expectBalances(bobKey, { account_balance: '0.00', available_balance: '0.00' });

    // deposits
    const aliceDeposit = (await suite.client.ok('POST', `/accounts/${alice.account_id}/deposits`, { amount: '100.00' }))
      .balance;
    expect(aliceDeposit).to.include({ account_balance: '100.00', available_balance: '100.00' });
    const bobDeposit = (await suite.client.ok('POST', `/accounts/${bob.account_id}/deposits`, { amount: '50.00' }))
      .balance;
    expect(bobDeposit).to.include({ account_balance: '50.00', available_balance: '50.00' });
    await expectBalances(aliceKey, { account_balance: '100.00', available_balance: '100.00' });
    await expectBalances(bobKey, { account_balance: '50.00', available_balance: '50.00' });

    // Alice bids 10 at 0.60: the order reserves 6.00, cash is untouched
    const bid = await suite.client.signed(aliceKey, 'POST', '/orders', {
      market_id: market.market_id,
      action: 'buy',
      order_type: 'limit',
      price: '0.60',
      quantity: '10',
    });
    expect(bid.status, JSON.stringify(bid.body)).to.equal(200);
    expect(bid.body.order).to.include({ status: 'open', quantity: '10', filled: '0', price: '0.60' });
    await expectBalances(aliceKey, { account_balance: '100.00', available_balance: '94.00' });
    expect((await balance(aliceKey)).buy_order_liability).to.equal('6.00');

    // Bob sells 10 at 0.60 into it: one trade of 10 at 0.60
    const ask = await suite.client.signed(bobKey, 'POST', '/orders', {
      market_id: market.market_id,
      action: 'sell',
      order_type: 'limit',
      price: '0.60',
      quantity: '10',
    });
    expect(ask.status, JSON.stringify(ask.body)).to.equal(200);
    expect(ask.body.order).to.include({ status: 'filled', filled: '10', avg_price: '0.60' });
    await expectBalances(aliceKey, { account_balance: '100.00', available_balance: '94.00' });
    await expectBalances(bobKey, { account_balance: '50.00', available_balance: '46.00' });

    const aliceFills = (await suite.client.signed(aliceKey, 'GET', '/fills')).body.fills;
    expect(aliceFills).to.have.length(1);
    expect(aliceFills[0]).to.include({ action: 'buy', price: '0.60', filled: '10', liquidity_action: 'provider' });
    const bobFills = (await suite.client.signed(bobKey, 'GET', '/fills')).body.fills;
    expect(bobFills).to.have.length(1);
    expect(bobFills[0]).to.include({ action: 'sell', price: '0.60', filled: '10', liquidity_action: 'taker' });

    // the event starts, the market closes and is resulted `win`: Alice +4.00, Bob -4.00
    await suite.client.ok('POST', `/events/${event.event_id}/start`);
    await suite.client.ok('POST', `/markets/${market.market_id}/status`, { status: 'closed' });
    await expectBalances(aliceKey, { account_balance: '100.00', available_balance: '94.00' });
    const resulted = (await suite.client.ok('POST', `/markets/${market.market_id}/result`, { result: 'win' })).market;
    expect(resulted).to.include({ status: 'resulted', result: 'win' });
    await expectBalances(aliceKey, { account_balance: '104.00', available_balance: '104.00' });
    await expectBalances(bobKey, { account_balance: '46.00', available_balance: '46.00' });
    expect((await balance(aliceKey)).total_settlement_pnl).to.equal('4.00');
    expect((await balance(bobKey)).total_settlement_pnl).to.equal('-4.00');

    // the winner withdraws everything; one cent more is refused
    const refused = await suite.client.admin('POST', `/accounts/${alice.account_id}/withdrawals`, { amount: '104.01' });
    expect(refused.status).to.equal(422);
    await expectBalances(aliceKey, { account_balance: '104.00', available_balance: '104.00' });
    const withdrawal = (
      await suite.client.ok('POST', `/accounts/${alice.account_id}/withdrawals`, {
        amount: '104.00',
        method: 'bank_transfer',
      })
    ).withdrawal;
    expect(withdrawal).to.include({ account_id: alice.account_id, type: 'withdrawal', method: 'bank_transfer' });
    await expectBalances(aliceKey, { account_balance: '0.00', available_balance: '0.00' });
    await expectBalances(bobKey, { account_balance: '46.00', available_balance: '46.00' });

    const history = (await suite.client.signed(aliceKey, 'GET', '/portfolio/withdrawals')).body.withdrawals;
    expect(history).to.have.length(1);
    expect(history[0].id).to.equal(withdrawal.id);
  });
});
