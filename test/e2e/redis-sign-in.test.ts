/**
 * The wallet as the account on a fleet: two `npm start` processes sharing one `REDIS_URL` (a real
 * redis-server) behind a round-robin front whose origin is their `PUBLIC_BASE_URL`. The agent buys
 * on one instance, forgets the 201, and signs in with the official client helpers through the
 * front; its wallet ledger and the accepted nonces are the fleet's: a proof accepted by one
 * instance is refused by the other. It extends the watch, paid, by its wallet alone.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SIGN_IN_WITH_X } from '../../src/watches/sign-in.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { type RoundRobinFront, startRoundRobinFront } from '../world/round-robin-front.ts';
import {
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';
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
import { FUNDS } from './charged-iff-delivered.ts';

let settlement: SettlementWorld;
let redis: RedisServer;
let front: RoundRobinFront;
let services: SelfSettlingService[];

beforeAll(async () => {
  [settlement, redis, front] = await Promise.all([
    startSettlementWorld(),
    startRedisServer(),
    startRoundRobinFront(),
  ]);
  const env = {
    REDIS_URL: redis.url.href,
    PUBLIC_BASE_URL: front.url.origin,
    WATCH_SECRET_KEY: 'fleet-sign-in-key-0123456789abcdef0123456789',
  };
  services = await Promise.all([0, 1].map(() => settlement.startService({ env })));
  front.targets = services.map((service) => service.process.url);
}, 120_000);
afterAll(async () => {
  await settlement?.close();
  await Promise.all([redis?.close(), front?.close()]);
});

const first = () => services[0]!.process.url;
const second = () => services[1]!.process.url;

it('lists, reads and cancels by the paying wallet whichever instance answers; another wallet sees nothing', async () => {
  const [agent, stranger] = await Promise.all([settlement.newPayer(FUNDS), settlement.newPayer(0n)]);
  const bought = await buyPullOnly(second(), agent, 'healthy-shop.com');
  const signed = signingFetchFor(agent);
  // Several sign-ins through the front: each instance answers some of them.
  for (let i = 0; i < 3; i += 1) {
    expect(await listed(signed, front.url)).toMatchObject([{ watch_id: bought.watch_id, status: 'active' }]);
  }
  expect(await listed(signingFetchFor(stranger), front.url)).toEqual([]);
  const url = new URL(`/v1/watches/${bought.watch_id}`, front.url);
  const foreign = await fetch(new URL(url.pathname, first()), {
    headers: { [SIGN_IN_WITH_X]: await proofFor(url, stranger) },
  });
  expect(foreign.status).toBe(404);
  // The events it missed, read by its wallet through the front: after the first, not the first.
  const read = (await (await signed(url)).json()) as { events: { id: string; type: string }[] };
  expect(read.events[0]?.type).toBe('watch.created');
  const missed = await signed(new URL(`${url.pathname}?since=${read.events[0]!.id}`, front.url));
  expect(missed.status).toBe(200);
  expect(
    ((await missed.json()) as { events: { id: string }[] }).events.map((event) => event.id),
  ).not.toContain(read.events[0]!.id);
  // A paid extension by its wallet alone: the unpaid request and the paid retry may each meet
  // either instance, with one proof.
  const beforeExtension = await settlement.chain.balanceOf(agent.address);
  const extended = await extendBySignIn(front.url, agent, bought.watch_id, 3);
  // One proof for both requests of @x402/fetch: the unpaid one leaves its nonce unspent.
  expect(extended).toMatchObject({ status: 200, body: { days: 5, status: 'active' }, paid: [false, true] });
  expect(await settlement.chain.balanceOf(agent.address)).toBe(
    beforeExtension - BigInt(watchPriceAtomic('0.10', 3)),
  );
  const cancelled = await signed(url, { method: 'DELETE' });
  expect(cancelled.status).toBe(200);
  expect(await cancelled.json()).toMatchObject({ status: 'cancelled' });
}, 60_000);

it('refuses a proof replayed on the other instance, and the other refusals', async () => {
  const [owner, other] = await Promise.all([settlement.newPayer(0n), settlement.newPayer(0n)]);
  // Proofs are made for the public origin and sent to one instance; the replay goes to the other.
  const path = '/v1/watches';
  const firstUrl = new URL(path, first());
  const signedFor = new URL(path, front.url);
  await expectRefusals(signedFor, owner, other, new URL(path, second()), firstUrl);
}, 60_000);

it('spends a sign-in on a paid extension for its payment alone, whichever instance the same paid call is sent to again', async () => {
  const agent = await settlement.newPayer(FUNDS);
  const bought = await buyPullOnly(first(), agent, 'healthy-shop.com');
  await expectSignInSpentByItsPayment({
    base: first(),
    retryBase: second(),
    publicBase: front.url,
    payer: agent,
    watchId: bought.watch_id,
    balanceOf: (address) => settlement.chain.balanceOf(address),
    price: (days) => BigInt(watchPriceAtomic('0.10', days)),
  });
}, 60_000);
