/**
 * A lost-result claim whose reply is lost after Redis ran it (a real redis-server behind a relay
 * that drops its answers, then cuts the connection): the claim fails (the paid call answers 503,
 * uncharged) and the payer's next copy still finds the result. The claim is a read; the record goes
 * only once the result is handed over.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAuthorizations } from '../../src/redis/authorizations.ts';
import { connectSharedStore, KEY_PREFIX, type SharedStore } from '../../src/redis/connection.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { startTcpFaultProxy, type TcpFaultProxy } from '../world/tcp-fault-proxy.ts';

const logger = pino({ level: 'silent' });
const RECEIPT = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' as const };
const SIGNATURE = `0x${'5a'.repeat(65)}`;
const RESOURCE = 'https://checks.example.test/v1/cert';
const KEY = `0x${'1'.repeat(40)}:0x${'2'.repeat(64)}`;

let server: RedisServer;
let proxy: TcpFaultProxy;
let store: SharedStore;

beforeAll(async () => {
  server = await startRedisServer();
  proxy = await startTcpFaultProxy(server.url);
  store = connectSharedStore(proxy.url, logger);
  expect(await store.refusal()).toBeNull();
});
afterAll(async () => {
  await store?.close();
  await proxy?.close();
  await server?.close();
});

describe('a lost-result claim whose reply never came back', () => {
  it('loses nothing: the next claim finds the result, which goes once handed over', async () => {
    const { undelivered } = redisAuthorizations(store, logger);
    await undelivered.settling(KEY, SIGNATURE, RESOURCE);
    await undelivered.remember(KEY, SIGNATURE, RECEIPT);
    // As in a fleet that has served claims before: whatever a claim sends, the server already knows.
    expect(await undelivered.claim(`${KEY}0`, SIGNATURE, RESOURCE)).toBeNull();

    proxy.dropReplies(true);
    const claim = undelivered.claim(KEY, SIGNATURE, RESOURCE);
    await proxy.replyDropped();
    await expect(claim).rejects.toThrow(/timed out/i);
    proxy.dropReplies(false);
    const ready = new Promise((resolve) => store.redis.once('ready', resolve));
    proxy.cut();
    await ready;

    expect(await undelivered.claim(KEY, SIGNATURE, RESOURCE)).toEqual(RECEIPT);
    await undelivered.settled(KEY);
    expect(await undelivered.claim(KEY, SIGNATURE, RESOURCE)).toBeNull();
    expect(await server.client.exists(`${KEY_PREFIX}lost:${KEY}`)).toBe(0);
  });
});
