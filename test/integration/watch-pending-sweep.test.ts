/**
 * The pending sweep over the real stores (SQLite in a file, a real redis-server) and a real anvil
 * chain read through the service's chain view: payments signed by the official x402 client, one of
 * them settled by the in-process facilitator as a paid call would have settled it before its
 * process died. The sweep's clock is set past the longest paid call; nothing else is faked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { pino } from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainView, rpcClient } from '../../src/payments/chain/chain-view.ts';
import { exactAuthorizationOf } from '../../src/payments/exact-authorization.ts';
import { createInProcessFacilitator, type Facilitator } from '../../src/payments/facilitator/facilitator.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { USDC_EIP712_DOMAIN } from '../../src/payments/server/resource-server.ts';
import { connectSharedStore, type SharedStore } from '../../src/redis/connection.ts';
import { redisWatchStore } from '../../src/redis/watch-store.ts';
import { createPendingSweep, SWEEP_PENDING_AFTER_MS } from '../../src/watches/pending-sweep.ts';
import { activate, type WatchRecord } from '../../src/watches/model.ts';
import type { WatchService, WatchStore } from '../../src/watches/ports.ts';
import { createWatchSecrets } from '../../src/watches/secrets.ts';
import { openSqliteWatchStore } from '../../src/sqlite/watch-store.ts';
import { createStoreWatchService } from '../../src/watches/store-service.ts';
import { freePort } from '../support/free-port.ts';
import { clientFor } from '../world/payer-client.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { siteHealthFor } from '../world/watch-service.ts';
import { watchRecord } from '../world/watch-records.ts';
import { waitFor } from '../support/wait-for.ts';

const logger = pino({ level: 'silent' });
const secrets = createWatchSecrets('pending-sweep-test-key-0123456789abcdef');
const WEBHOOK = 'https://hooks.example.net/in';
const PRICE = '100000';

let chain: LocalChain;
let facilitator: Facilitator;
let redis: RedisServer;
let dir: string;
const connections: SharedStore[] = [];

beforeAll(async () => {
  [chain, redis] = await Promise.all([startLocalChain(), startRedisServer()]);
  facilitator = createInProcessFacilitator({
    network: 'eip155:8453',
    rpcUrl: chain.rpcUrl,
    settlerPrivateKey: chain.settler.privateKey,
    receiptPollMs: 50,
  });
  dir = mkdtempSync(join(tmpdir(), 'pending-sweep-'));
}, 60_000);
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await Promise.all([chain?.stop(), redis?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

function requirementsFor(maxTimeoutSeconds: number): PaymentRequirements {
  return {
    scheme: 'exact',
    network: 'eip155:8453',
    amount: PRICE,
    asset: chain.asset,
    payTo: chain.payTo,
    maxTimeoutSeconds,
    extra: { ...USDC_EIP712_DOMAIN },
  };
}

/** A payment for a watch signed by a new funded payer with the official client, valid for `seconds`. */
async function signed(seconds = 45) {
  const payer = privateKeyToAccount(generatePrivateKey());
  await chain.fund(payer.address, 1_000_000n);
  const requirements = requirementsFor(seconds);
  const payload: PaymentPayload = await clientFor(payer).createPaymentPayload({
    x402Version: 2,
    resource: {
      url: 'https://checks.example.test/v1/watches',
      description: '',
      mimeType: 'application/json',
    },
    accepts: [requirements],
  });
  const authorization = exactAuthorizationOf(payload);
  if (!authorization) throw new Error('the client signed no exact authorization');
  return { payer, payload, requirements, authorization };
}

type Signed = Awaited<ReturnType<typeof signed>>;

/** Settles `payment` on chain, as the paid call of a process that then died had done. */
async function settle({ payload, requirements }: Signed) {
  const settled = await facilitator.client.settle(payload, requirements);
  expect(settled.success, settled.errorReason).toBe(true);
}

function serviceOver(store: WatchStore): WatchService {
  return createStoreWatchService({
    store,
    check: async () => ({
      type: 'result',
      result: siteHealthFor({ probeOk: true, lifetimeLeft: 0.5, failing: false }),
    }),
    secrets,
    intervalS: 3_600,
    dayS: 86_400,
    wake: () => {},
    logger,
  });
}

/** Opens the pending watch of `payment` as the paid call's `run` does. */
async function openFor(service: WatchService, { authorization }: Signed) {
  const { signature, from, nonce, validBefore } = authorization;
  const id = await secrets.watchId(signature);
  const opened = await service.open({
    id,
    domain: 'example.com',
    days: 30,
    webhookUrl: WEBHOOK,
    payment: { from, nonce, validBefore: Number(validBefore) },
  });
  expect(opened).toMatchObject({ kind: 'opened', created: true });
  return id;
}

/** A sweep as one instance runs it, on `rpcUrl`, with its clock `aheadMs` ahead of now. */
function sweepOf(store: WatchStore, service: WatchService, aheadMs: number, rpcUrl = chain.rpcUrl) {
  return createPendingSweep({
    store,
    service,
    chain: createChainView(rpcClient(rpcUrl)),
    asset: chain.asset,
    logger,
    now: () => Date.now() + aheadMs,
  });
}

/** Each runtime's store, with a second handle on it (another instance sharing a Redis). */
const stores: Record<string, () => Promise<[WatchStore, WatchStore]>> = {
  'SQLite in a file': async () => {
    const store = openSqliteWatchStore(join(dir, `watches-${Date.now()}.db`));
    return [store, store];
  },
  'a real redis-server, two instances': async () => {
    await redis.client.flushall();
    const pair = [0, 1].map(() => connectSharedStore(redis.url, logger));
    connections.push(...pair);
    await waitFor(() => pair.every((connection) => connection.reachable()), {
      what: 'both connections to redis-server',
    });
    return pair.map(redisWatchStore) as [WatchStore, WatchStore];
  },
};

describe.each(Object.keys(stores))('the pending sweep over %s', (name) => {
  let store: WatchStore;
  let other: WatchStore;
  beforeAll(async () => {
    [store, other] = await (stores[name] as () => Promise<[WatchStore, WatchStore]>)();
  });

  it('lists the pending watches opened by a time, oldest first, up to a limit, and no others', async () => {
    const at = Date.parse('2020-01-01T00:00:00Z');
    const ids = ['wat_list_a', 'wat_list_b', 'wat_list_c', 'wat_list_d', 'wat_list_e'];
    for (const [i, id] of [...ids].reverse().entries())
      await store.insert(watchRecord(id, { createdAt: at + (ids.length - 1 - i) * 1_000 }));
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    const activated = activate((await store.get(b)) as WatchRecord, at, 86_400);
    expect(await store.commit({ ...activated, expectedVersion: 0, deliveries: [] })).toBe(true);
    expect(await store.discardPending(c)).toBe(true);
    const listed = async (openedBy: number, limit: number) =>
      (await other.pendingOpenedBy(openedBy, limit))
        .map((watch) => watch.id)
        .filter((id) => ids.includes(id));
    expect(await listed(at + 3_000, 10)).toEqual([a, d]);
    expect(await listed(at + 3_000, 1)).toEqual([a]);
    expect(await listed(at - 1, 10)).toEqual([]);
    expect(await listed(at + 4_000, 10)).toEqual([a, d, e]);
    for (const id of [a, d, e]) expect(await store.discardPending(id)).toBe(true);
    expect(await listed(at + 4_000, 10)).toEqual([]);
  });

  it('activates a watch whose payment the chain shows used, once, with watch.created for its webhook', async () => {
    const service = serviceOver(store);
    const paid = await signed();
    const id = await openFor(service, paid);
    await settle(paid);

    // Younger than any paid call: its own call may still finish it; the sweep leaves it.
    const young = await sweepOf(store, service, 0)();
    expect(young).toMatchObject({ activated: [], discarded: [], waiting: [] });
    // Due once it is older than any paid call: the Node runner wakes then.
    const opened = (await store.get(id))?.createdAt ?? Number.NaN;
    expect(young.nextDueAt).toBe(opened + SWEEP_PENDING_AFTER_MS);
    expect((await store.get(id))?.status).toBe('pending');

    // Two instances sweep at once, past the bound: one transition, one watch.created.
    const [one, two] = await Promise.all([
      sweepOf(store, service, SWEEP_PENDING_AFTER_MS)(),
      sweepOf(other, serviceOver(other), SWEEP_PENDING_AFTER_MS)(),
    ]);
    expect([...one.activated, ...two.activated]).toContain(id);
    const watch = await store.get(id);
    expect(watch?.status).toBe('active');
    expect(watch).not.toHaveProperty('payment');
    const events = await store.events(id, 0, 100);
    expect(events.map((event) => event.type)).toEqual(['watch.created']);
    const due = await store.claimDeliveries(Date.now() + 1_000, 100, 60_000);
    expect(due.filter((delivery) => delivery.watchId === id)).toEqual([
      expect.objectContaining({ eventId: events[0]?.id, url: WEBHOOK }),
    ]);
    // A later sweep finds nothing left to judge.
    expect((await sweepOf(store, service, SWEEP_PENDING_AFTER_MS)()).activated).not.toContain(id);
  });

  it('removes a watch whose payment was never sent once its authorization expired, charging nothing', async () => {
    const service = serviceOver(store);
    const unpaid = await signed();
    const id = await openFor(service, unpaid);
    const report = await sweepOf(store, service, SWEEP_PENDING_AFTER_MS)();
    expect(report.discarded).toContain(id);
    expect(await store.get(id)).toBeNull();
    expect(await chain.balanceOf(unpaid.payer.address)).toBe(1_000_000n);
  });

  it('waits for one whose authorization can still be mined, and for one the chain cannot tell', async () => {
    const service = serviceOver(store);
    const longWindow = await signed(3_600);
    const open = await openFor(service, longWindow);
    const paid = await signed();
    const unreadable = await openFor(service, paid);
    await settle(paid);

    const closed = new URL(`http://127.0.0.1:${await freePort()}`);
    const blind = await sweepOf(store, service, SWEEP_PENDING_AFTER_MS, closed)();
    expect(blind.waiting).toEqual(expect.arrayContaining([open, unreadable]));
    expect(blind.activated).toEqual([]);
    expect(blind.discarded).toEqual([]);
    expect((await store.get(unreadable))?.status).toBe('pending');

    const seeing = await sweepOf(store, service, SWEEP_PENDING_AFTER_MS)();
    expect(seeing.waiting).toContain(open);
    expect(seeing.activated).toContain(unreadable);
    expect((await store.get(open))?.status).toBe('pending');
  }, 30_000);
});
