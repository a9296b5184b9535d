/**
 * One instance without `REDIS_URL`, killed (`kill -9`) in the middle of a paid call and started
 * again by its supervisor on the same files (`WATCH_DB_PATH`'s directory): the chain remembers the
 * payment, and so does the process now (`src/sqlite/payment-records.ts`). The same request with the
 * same signature gets the result, charged once; a payment that carried a payment identifier gets
 * its stored answer and receipt again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SettlementWorld, startSettlementWorld } from '../world/self-settling-service.ts';
import { FUNDS, OPERATION, PRICE } from './charged-iff-delivered.ts';
import {
  answerOf,
  checkRequest,
  chargedOf,
  type Fleet,
  kill,
  killAfterSend,
  retryUntilServed,
  signedPayment,
} from './paid-call-crash.ts';

let settlement: SettlementWorld;
let fleet: Fleet;
let dir: string;

beforeAll(async () => {
  [settlement, dir] = await Promise.all([startSettlementWorld(), mkdtemp(join(tmpdir(), 'restart-crash-'))]);
  // The restarted process listens on another port: the public URL (what payments are signed for) stays.
  fleet = {
    settlement,
    settlerPrivateKey: generatePrivateKey(),
    env: { WATCH_DB_PATH: join(dir, 'watches.db'), PUBLIC_BASE_URL: 'https://checks.example.test' },
  };
}, 120_000);
afterAll(async () => {
  await settlement?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const start = () => settlement.startService(fleet);
const charged = (payer: Parameters<typeof chargedOf>[1]) => chargedOf(settlement, payer, FUNDS);
const request = checkRequest(OPERATION.route, OPERATION.domain);

describe('a single instance killed and restarted on the same files', () => {
  it('after its settlement reached the chain: the retry gets the result, charged once', async () => {
    const payer = await settlement.newPayer(FUNDS);
    const { signature } = await killAfterSend(fleet, payer, request, PRICE, FUNDS);

    const restarted = await start();
    const served = await retryUntilServed(restarted, signature, request);
    expect(served.status, served.refusals.join(', ')).toBe(200);
    expect(served.body?.domain).toBe(OPERATION.domain);
    expect(served.receipt).not.toBeNull();
    expect(await charged(payer)).toBe(PRICE);
    // Delivered once: a further copy is refused (the authorization is used).
    expect((await answerOf(restarted, signature, request)).status).toBe(402);
    expect(await charged(payer)).toBe(PRICE);
    await restarted.close();
  }, 180_000);

  it('a paid answer that carried a payment identifier is answered again after the restart, same receipt', async () => {
    const payer = await settlement.newPayer(FUNDS);
    const first = await start();
    const signature = await signedPayment(first, payer, request, 'pay_restart_0123456789');
    const answered = await answerOf(first, signature, request);
    expect(answered.status).toBe(200);
    await kill(first);

    const restarted = await start();
    const again = await answerOf(restarted, signature, request);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(answered.body);
    expect(again.receipt).toBe(answered.receipt);
    expect(await charged(payer)).toBe(PRICE);
    await restarted.close();
  }, 180_000);
});
