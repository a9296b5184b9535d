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
import {
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';
import { FUNDS, OPERATION, PRICE } from './charged-iff-delivered.ts';
import { type CrashRetry, crashRetry } from './crash-retry.ts';

let settlement: SettlementWorld;
let harness: CrashRetry;
let dir: string;
let start: () => Promise<SelfSettlingService>;

beforeAll(async () => {
  [settlement, dir] = await Promise.all([startSettlementWorld(), mkdtemp(join(tmpdir(), 'restart-crash-'))]);
  const settlerPrivateKey = generatePrivateKey();
  // The restarted process listens on another port: the public URL (what payments are signed for) stays.
  const env = { WATCH_DB_PATH: join(dir, 'watches.db'), PUBLIC_BASE_URL: 'https://checks.example.test' };
  start = () => settlement.startService({ settlerPrivateKey, env });
  harness = crashRetry(settlement, start);
}, 120_000);
afterAll(async () => {
  await settlement?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a single instance killed and restarted on the same files', () => {
  it('after its settlement reached the chain: the retry gets the result, charged once', async () => {
    const payer = await settlement.newPayer(FUNDS);
    const domain = OPERATION.domain;
    const { doomed, signature } = await harness.doomedCall(payer, domain);
    await harness.settledOnChain(doomed, payer, PRICE);
    await harness.kill(doomed);

    const restarted = await start();
    const served = await harness.retryUntilServed(restarted, signature, domain);
    expect(served.status, served.refusals.join(', ')).toBe(200);
    expect(served.body?.domain).toBe(domain);
    expect(served.receipt).not.toBeNull();
    expect(await harness.charged(payer)).toBe(PRICE);
    // Delivered once: a further copy is refused (the authorization is used).
    expect((await harness.paidGet(restarted, signature, domain)).status).toBe(402);
    expect(await harness.charged(payer)).toBe(PRICE);
    await restarted.close();
  }, 180_000);

  it('a paid answer that carried a payment identifier is answered again after the restart, same receipt', async () => {
    const payer = await settlement.newPayer(FUNDS);
    const domain = OPERATION.domain;
    const first = await start();
    const signature = await harness.signedPayment(first, payer, domain, 'pay_restart_0123456789');
    const answered = await harness.paidGet(first, signature, domain);
    expect(answered.status).toBe(200);
    await harness.kill(first);

    const restarted = await start();
    const again = await harness.paidGet(restarted, signature, domain);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(answered.body);
    expect(again.receipt).toBe(answered.receipt);
    expect(await harness.charged(payer)).toBe(PRICE);
    await restarted.close();
  }, 180_000);
});
