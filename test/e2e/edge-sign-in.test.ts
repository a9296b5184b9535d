/**
 * The wallet as the account on the Worker in local workerd (two isolates sharing the Durable
 * Objects; the first one's origin is `PUBLIC_BASE_URL`): the agent buys on one isolate with
 * `@x402/fetch`, forgets the 201 and signs in with the official client helpers; its watches are
 * listed from the wallet's object, another wallet sees none of them, and a proof accepted by one
 * isolate is refused by the other (the nonce's object). It reads the events it missed and extends
 * the watch, paid, by its wallet alone.
 */
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SIGN_IN_WITH_X } from '../../src/watches/sign-in.ts';
import { type EdgeWatchWorld, startEdgeWatchWorld } from '../world/edge-watch-world.ts';
import {
  buyPullOnly,
  expectRefusals,
  expectSignInSpentByItsPayment,
  extendBySignIn,
  listed,
  proofFor,
  signingFetchFor,
} from '../world/sign-in-journey.ts';
import { watchPriceAtomic } from '../../src/watches/pricing.ts';

let running: EdgeWatchWorld;

beforeAll(async () => {
  running = await startEdgeWatchWorld({ WATCH_INTERVAL_S: '2', WATCH_DAY_S: '864' });
}, 120_000);
afterAll(() => running?.close());

const at = (path: string, instance = 0) => new URL(path, running.edge.urls[instance]);

async function payer(funds: bigint): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (funds > 0n) await running.chain.fund(account.address, funds);
  return account;
}

it('takes a forgetful agent from purchase to cancellation by its wallet; another wallet sees nothing', async () => {
  const [agent, stranger] = await Promise.all([payer(1_000_000n), payer(0n)]);
  const bought = await buyPullOnly(at('/', 1), agent, 'healthy-shop.com');
  const signed = signingFetchFor(agent);
  expect(await listed(signed, at('/'))).toMatchObject([{ watch_id: bought.watch_id, status: 'active' }]);
  const status = await signed(at(`/v1/watches/${bought.watch_id}`));
  const body = (await status.json()) as { events: { id: string; type: string }[] };
  expect(status.status).toBe(200);
  expect(body.events[0]?.type).toBe('watch.created');
  expect(JSON.stringify(body)).not.toMatch(/wtk_|whsec_/);

  expect(await listed(signingFetchFor(stranger), at('/'))).toEqual([]);
  const url = at(`/v1/watches/${bought.watch_id}`);
  const foreign = await fetch(at(url.pathname, 1), {
    headers: { [SIGN_IN_WITH_X]: await proofFor(url, stranger) },
  });
  expect(foreign.status).toBe(404);

  // The events it missed after the first one, then a paid extension by its wallet alone.
  const missed = await signed(at(`/v1/watches/${bought.watch_id}?since=${body.events[0]?.id}`));
  expect(((await missed.json()) as { events: { type: string }[] }).events).not.toContainEqual(
    expect.objectContaining({ type: 'watch.created' }),
  );
  const beforeExtension = await running.chain.balanceOf(agent.address);
  const extended = await extendBySignIn(at('/'), agent, bought.watch_id, 3);
  // One proof for both requests of @x402/fetch: the unpaid one leaves its nonce unspent.
  expect(extended).toMatchObject({ status: 200, body: { days: 5, status: 'active' }, paid: [false, true] });
  expect(await running.chain.balanceOf(agent.address)).toBe(
    beforeExtension - BigInt(watchPriceAtomic('0.10', 3)),
  );

  const rotated = await signed(at(`/v1/watches/${bought.watch_id}/rotate-token`), { method: 'POST' });
  const { token } = (await rotated.json()) as { token: string };
  const byOld = await fetch(url, { headers: { authorization: `Bearer ${bought.token}` } });
  expect(byOld.status).toBe(404);
  const cancelled = await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  expect(await cancelled.json()).toMatchObject({ status: 'cancelled' });
}, 90_000);

it('refuses a proof replayed on the other isolate, and the other refusals', async () => {
  const [owner, other] = await Promise.all([payer(0n), payer(0n)]);
  await expectRefusals(at('/v1/watches'), owner, other, at('/v1/watches', 1));
}, 90_000);

it('spends a sign-in on a paid extension for its payment alone, whichever isolate the same paid call is sent to again', async () => {
  const agent = await payer(1_000_000n);
  const bought = await buyPullOnly(at('/', 1), agent, 'healthy-shop.com');
  await expectSignInSpentByItsPayment({
    base: at('/'),
    retryBase: at('/', 1),
    payer: agent,
    watchId: bought.watch_id,
    balanceOf: (address) => running.chain.balanceOf(address),
    price: (days) => BigInt(watchPriceAtomic('0.10', days)),
  });
}, 90_000);
